//! Files as the text edit formats show them: a small file whole, as its
//! path and a fenced block; a big one in parts, each part headed by its
//! path, its lines and the definition it is, with an outline of the rest.

use crate::agent::excerpts::Parts;
use crate::agent::grounding::FileRole;

/// A file shown to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ShownFile {
    pub path: String,
    pub role: FileRole,
    /// The whole text; `None` for a file to create.
    pub text: Option<String>,
    /// Set when the file is shown in parts: only these are shown.
    pub parts: Option<Parts>,
}

impl ShownFile {
    /// A file shown whole (or, without text, one to create).
    pub(crate) fn whole(path: &str, role: FileRole, text: Option<String>) -> Self {
        ShownFile {
            path: path.to_string(),
            role,
            text,
            parts: None,
        }
    }

    /// The texts the model was shown: the file, or each part.
    pub(crate) fn shown_texts(&self) -> Vec<String> {
        match (&self.parts, &self.text) {
            (Some(parts), _) => parts.pieces.iter().map(|p| p.text.clone()).collect(),
            (None, Some(text)) => vec![text.clone()],
            (None, None) => Vec::new(),
        }
    }

    /// The qualified names of the definitions shown in parts.
    pub(crate) fn shown_definitions(&self) -> Vec<String> {
        self.parts
            .iter()
            .flat_map(|p| &p.pieces)
            .filter_map(|p| p.definition.clone())
            .collect()
    }

    /// The line ranges shown (1-based, inclusive): each part, or the whole
    /// file.
    pub(crate) fn shown_lines(&self) -> Vec<(usize, usize)> {
        match (&self.parts, &self.text) {
            (Some(parts), _) => parts
                .pieces
                .iter()
                .map(|p| (p.start_line, p.end_line))
                .collect(),
            (None, Some(_)) => vec![(1, usize::MAX)],
            (None, None) => Vec::new(),
        }
    }

    /// The file as the model sees it; empty for a file to create.
    pub(crate) fn render(&self) -> String {
        let Some(text) = &self.text else {
            return String::new();
        };
        let mark = if self.role == FileRole::ReadOnly {
            " (for reference, do not change)"
        } else {
            ""
        };
        let Some(parts) = &self.parts else {
            return format!("{}{mark}\n{}", self.path, fence(&self.path, text));
        };
        let mut out = format!(
            "{}{mark}: {} lines, too long to show whole; these parts are shown",
            self.path, parts.total_lines
        );
        if !parts.outline.is_empty() {
            out.push_str(&format!(
                "; its other definitions (lines): {}",
                parts.outline.join(", ")
            ));
        }
        out.push('.');
        for piece in &parts.pieces {
            let what = match &piece.definition {
                Some(name) => format!(" ({name})"),
                None => String::new(),
            };
            out.push_str(&format!(
                "\n\n{} lines {}-{}{what}\n{}",
                self.path,
                piece.start_line,
                piece.end_line,
                fence(&self.path, &piece.text)
            ));
        }
        out
    }
}

/// `content` in a fence labelled with the file's language (four backticks
/// when it holds a fence of three).
pub(crate) fn fence(path: &str, content: &str) -> String {
    let ticks = if content.contains("```") {
        "````"
    } else {
        "```"
    };
    format!("{ticks}{}\n{}{ticks}", lang_of(path), with_newline(content))
}

/// `text` ending with a newline (unless empty).
pub(crate) fn with_newline(text: &str) -> String {
    if text.is_empty() || text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

/// The fence label for a file, from its extension.
pub(crate) fn lang_of(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "py" | "pyi" => "python",
        "rs" => "rust",
        "js" | "mjs" | "cjs" => "javascript",
        "ts" => "typescript",
        "go" => "go",
        "java" => "java",
        "c" | "h" => "c",
        "cc" | "cpp" | "hpp" => "cpp",
        "rb" => "ruby",
        "sh" | "bash" => "bash",
        "json" => "json",
        "toml" => "toml",
        "yml" | "yaml" => "yaml",
        "md" => "markdown",
        "html" => "html",
        "css" => "css",
        "sql" => "sql",
        _ => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::excerpts::Piece;
    use pretty_assertions::assert_eq;

    #[test]
    fn big_files_are_shown_by_their_parts() {
        let file = ShownFile {
            parts: Some(Parts {
                total_lines: 400,
                outline: vec!["Signer.sign (50-60)".into()],
                pieces: vec![Piece {
                    label: "Signer.get_signature".into(),
                    definition: Some("Signer.get_signature".into()),
                    start_line: 40,
                    end_line: 41,
                    text: "    def get_signature(self):\n        return 1\n".into(),
                }],
            }),
            ..ShownFile::whole("s.py", FileRole::Editable, Some("…".into()))
        };
        assert_eq!(
            file.render(),
            "s.py: 400 lines, too long to show whole; these parts are shown; its other definitions (lines): Signer.sign (50-60).\n\ns.py lines 40-41 (Signer.get_signature)\n```python\n    def get_signature(self):\n        return 1\n```"
        );
        assert_eq!(file.shown_definitions(), ["Signer.get_signature"]);
        let small = ShownFile::whole("t.py", FileRole::ReadOnly, Some("x = 1".into()));
        assert_eq!(
            small.render(),
            "t.py (for reference, do not change)\n```python\nx = 1\n```"
        );
    }
}
