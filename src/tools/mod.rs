//! The seven tools (SPEC §6): their names, schemas, argument parsing and
//! execution. Every path is confined to the [`Workspace`]; every failure is a
//! [`ToolOutcome`] for the model, never a crash.

pub mod bash;
pub mod edit_file;
pub mod edit_match;
pub mod lenient;
pub mod list_files;
pub mod move_file;
pub mod read_file;
pub mod search;
pub mod walk;
pub mod workspace;
pub mod write_file;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::vocab::Mode;
pub use workspace::{ResolvedPath, Workspace};

/// Every tool `oc` has, in the order they are offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolName {
    ReadFile,
    WriteFile,
    EditFile,
    MoveFile,
    ListFiles,
    Search,
    Bash,
}

impl ToolName {
    /// All tools, in offering order.
    pub const ALL: [ToolName; 7] = [
        ToolName::ReadFile,
        ToolName::WriteFile,
        ToolName::EditFile,
        ToolName::MoveFile,
        ToolName::ListFiles,
        ToolName::Search,
        ToolName::Bash,
    ];

    /// The name the model calls the tool by.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolName::ReadFile => "read_file",
            ToolName::WriteFile => "write_file",
            ToolName::EditFile => "edit_file",
            ToolName::MoveFile => "move_file",
            ToolName::ListFiles => "list_files",
            ToolName::Search => "search",
            ToolName::Bash => "bash",
        }
    }

    /// Looks a tool up by its exact name.
    pub fn from_name(name: &str) -> Option<ToolName> {
        ToolName::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// Tools that change nothing: the only ones offered in plan mode.
    pub fn is_read_only(self) -> bool {
        match self {
            ToolName::ReadFile | ToolName::ListFiles | ToolName::Search => true,
            ToolName::WriteFile | ToolName::EditFile | ToolName::MoveFile | ToolName::Bash => false,
        }
    }

    /// The tools offered in `mode`.
    pub fn for_mode(mode: Mode) -> Vec<ToolName> {
        match mode {
            Mode::Chat => Vec::new(),
            Mode::Code => ToolName::ALL.to_vec(),
            Mode::Plan => ToolName::ALL
                .into_iter()
                .filter(|t| t.is_read_only())
                .collect(),
        }
    }

    fn description(self) -> &'static str {
        match self {
            ToolName::ReadFile => {
                "Read a text file. Returns numbered lines (a window for big files) and the total line count."
            }
            ToolName::WriteFile => {
                "Create a file, or replace a whole file, with the given content. Parent directories are created."
            }
            ToolName::EditFile => {
                "Replace old_string with new_string in a file. old_string should match the file and be unique unless replace_all is true. Read the file first."
            }
            ToolName::MoveFile => "Move or rename a file or directory.",
            ToolName::ListFiles => {
                "List files matching a glob such as **/*.rs, honouring .gitignore. Sorted."
            }
            ToolName::Search => {
                "Search file contents with a regular expression, honouring .gitignore. Returns path:line: text."
            }
            ToolName::Bash => {
                "Run a shell command with bash in the workspace. Returns output and exit code."
            }
        }
    }

    /// The schema sent to the model:
    /// `{"type": "function", "function": {"name", "description", "parameters"}}`.
    pub fn schema(self) -> Value {
        let parameters = match self {
            ToolName::ReadFile => lean_schema::<read_file::Args>(),
            ToolName::WriteFile => lean_schema::<write_file::Args>(),
            ToolName::EditFile => lean_schema::<edit_file::Args>(),
            ToolName::MoveFile => lean_schema::<move_file::Args>(),
            ToolName::ListFiles => lean_schema::<list_files::Args>(),
            ToolName::Search => lean_schema::<search::Args>(),
            ToolName::Bash => lean_schema::<bash::Args>(),
        };
        json!({
            "type": "function",
            "function": {
                "name": self.as_str(),
                "description": self.description(),
                "parameters": parameters,
            }
        })
    }
}

/// Parsed, validated arguments of one call.
#[derive(Debug, Clone)]
pub enum ToolInput {
    ReadFile(read_file::Args),
    WriteFile(write_file::Args),
    EditFile(edit_file::Args),
    MoveFile(move_file::Args),
    ListFiles(list_files::Args),
    Search(search::Args),
    Bash(bash::Args),
}

impl ToolInput {
    /// Validates `arguments` (a JSON object) against the tool's schema.
    ///
    /// Errors: a sentence for the model saying what was wrong and the exact
    /// shape to send instead.
    pub fn parse(tool: ToolName, arguments: &Value) -> Result<ToolInput, String> {
        fn typed<T: DeserializeOwned>(tool: ToolName, arguments: &Value) -> Result<T, String> {
            if !arguments.is_object() {
                return Err(format!(
                    "arguments for {} must be a JSON object; send {}",
                    tool.as_str(),
                    signature(tool)
                ));
            }
            serde_json::from_value(arguments.clone()).map_err(|e| {
                format!(
                    "invalid arguments for {}: {e}; send {}",
                    tool.as_str(),
                    signature(tool)
                )
            })
        }
        Ok(match tool {
            ToolName::ReadFile => ToolInput::ReadFile(typed(tool, arguments)?),
            ToolName::WriteFile => ToolInput::WriteFile(typed(tool, arguments)?),
            ToolName::EditFile => ToolInput::EditFile(typed(tool, arguments)?),
            ToolName::MoveFile => ToolInput::MoveFile(typed(tool, arguments)?),
            ToolName::ListFiles => ToolInput::ListFiles(typed(tool, arguments)?),
            ToolName::Search => ToolInput::Search(typed(tool, arguments)?),
            ToolName::Bash => ToolInput::Bash(typed(tool, arguments)?),
        })
    }

    /// Which tool these arguments are for.
    pub fn tool(&self) -> ToolName {
        match self {
            ToolInput::ReadFile(_) => ToolName::ReadFile,
            ToolInput::WriteFile(_) => ToolName::WriteFile,
            ToolInput::EditFile(_) => ToolName::EditFile,
            ToolInput::MoveFile(_) => ToolName::MoveFile,
            ToolInput::ListFiles(_) => ToolName::ListFiles,
            ToolInput::Search(_) => ToolName::Search,
            ToolInput::Bash(_) => ToolName::Bash,
        }
    }

    /// The paths the call names, as given (for permission checks).
    pub fn paths(&self) -> Vec<&str> {
        match self {
            ToolInput::ReadFile(a) => vec![a.path.as_str()],
            ToolInput::WriteFile(a) => vec![a.path.as_str()],
            ToolInput::EditFile(a) => vec![a.path.as_str()],
            ToolInput::MoveFile(a) => vec![a.from.as_str(), a.to.as_str()],
            ToolInput::ListFiles(a) => vec![a.path.as_deref().unwrap_or(".")],
            ToolInput::Search(a) => vec![a.path.as_deref().unwrap_or(".")],
            ToolInput::Bash(_) => Vec::new(),
        }
    }

    /// One line for people: the path(s) or the command.
    pub fn detail(&self) -> String {
        match self {
            ToolInput::ReadFile(a) => a.path.clone(),
            ToolInput::WriteFile(a) => a.path.clone(),
            ToolInput::EditFile(a) => a.path.clone(),
            ToolInput::MoveFile(a) => format!("{} → {}", a.from, a.to),
            ToolInput::ListFiles(a) => match &a.path {
                Some(p) => format!("{} in {p}", a.pattern),
                None => a.pattern.clone(),
            },
            ToolInput::Search(a) => match &a.path {
                Some(p) => format!("/{}/ in {p}", a.pattern),
                None => format!("/{}/", a.pattern),
            },
            ToolInput::Bash(a) => a.command.clone(),
        }
    }
}

/// What a tool call produced.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// False when the call failed; the content then says why.
    pub ok: bool,
    /// The tool result sent to the model.
    pub content: String,
    /// One line for people (stderr, sessions).
    pub summary: String,
    /// Files created, changed or moved, relative to the workspace.
    pub changed: Vec<String>,
}

impl ToolOutcome {
    /// A failed call: the model gets `message`.
    pub fn error(message: impl Into<String>) -> Self {
        let message = message.into();
        ToolOutcome {
            ok: false,
            summary: first_line(&message),
            content: format!("error: {message}"),
            changed: Vec::new(),
        }
    }

    /// A successful call that changed nothing.
    pub fn ok(content: impl Into<String>, summary: impl Into<String>) -> Self {
        ToolOutcome {
            ok: true,
            content: content.into(),
            summary: summary.into(),
            changed: Vec::new(),
        }
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or_default().to_string()
}

/// Text of a file's bytes: UTF-8 as is (a BOM kept), anything else decoded
/// as Latin-1 (windows-1252), which never fails and is right for the usual
/// legacy files. The flag says whether the fallback was used.
pub fn decode_text(bytes: &[u8]) -> (std::borrow::Cow<'_, str>, bool) {
    match std::str::from_utf8(bytes) {
        Ok(text) => (std::borrow::Cow::Borrowed(text), false),
        Err(_) => {
            let (text, _, _) = encoding_rs::WINDOWS_1252.decode(bytes);
            (text, true)
        }
    }
}

/// The note shown with text decoded by the [`decode_text`] fallback.
pub const LATIN1_NOTE: &str =
    "note: the file is not valid UTF-8; it is shown decoded as Latin-1 (windows-1252)";

/// Checks that `real`, when it exists, is a regular file: reading a FIFO
/// would block forever and a device is never a source file. The error
/// completes a sentence that starts with the path.
pub fn regular_file(real: &Path) -> Result<(), String> {
    match std::fs::metadata(real) {
        Ok(meta) if !meta.is_file() && !meta.is_dir() => {
            Err("is not a regular file (a FIFO, socket or device); it cannot be used".into())
        }
        _ => Ok(()),
    }
}

/// Most diff lines a file change reports back to the model.
pub const COMPACT_DIFF_LINES: usize = 40;

/// A change to one file, computed before anything is written so that it can
/// be shown (as a diff) and approved first.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    pub path: ResolvedPath,
    /// Current text, `None` when the file does not exist yet.
    pub before: Option<String>,
    pub after: String,
    /// What the tool did, e.g. "replaced 1 occurrence".
    pub note: String,
}

impl FileChange {
    /// A unified diff of the change (for prompts and logs).
    pub fn unified_diff(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        similar::TextDiff::from_lines(before, &self.after)
            .unified_diff()
            .context_radius(3)
            .header(&self.path.display, &self.path.display)
            .to_string()
    }

    /// The changed lines with one line of context, for the model: hunks
    /// headed `@@ -a,b +c,d @@`, at most [`COMPACT_DIFF_LINES`] lines.
    pub fn compact_diff(&self) -> String {
        let before = self.before.as_deref().unwrap_or("");
        let diff = similar::TextDiff::from_lines(before, &self.after);
        let text = diff.unified_diff().context_radius(1).to_string();
        let lines: Vec<&str> = text.lines().collect();
        if lines.len() <= COMPACT_DIFF_LINES {
            return lines.join("\n");
        }
        format!(
            "{}\n[… {} more diff lines]",
            lines[..COMPACT_DIFF_LINES].join("\n"),
            lines.len() - COMPACT_DIFF_LINES
        )
    }

    /// Lines added and removed.
    pub fn line_counts(&self) -> (usize, usize) {
        let before = self.before.as_deref().unwrap_or("");
        let diff = similar::TextDiff::from_lines(before, &self.after);
        let mut added = 0;
        let mut removed = 0;
        for change in diff.iter_all_changes() {
            match change.tag() {
                similar::ChangeTag::Insert => added += 1,
                similar::ChangeTag::Delete => removed += 1,
                similar::ChangeTag::Equal => {}
            }
        }
        (added, removed)
    }

    /// Writes the change atomically (temp file in the same directory, then
    /// rename; the file's permissions kept).
    pub fn apply(&self) -> ToolOutcome {
        let display = &self.path.display;
        if self.before.as_deref() == Some(self.after.as_str()) {
            return ToolOutcome::ok(
                format!("no change: {display} already has this content"),
                format!("{display}: no change"),
            );
        }
        if let Err(e) = crate::fsutil::write_atomic(&self.path.real, self.after.as_bytes(), 0o666) {
            return ToolOutcome::error(format!("cannot write {display}: {e}"));
        }
        let (added, removed) = self.line_counts();
        let verb = if self.before.is_some() {
            "updated"
        } else {
            "created"
        };
        let summary = format!("{verb} {display} (+{added} -{removed}) {}", self.note)
            .trim_end()
            .to_string();
        let content = match self.before {
            Some(_) => format!("{summary}\n{}", self.compact_diff()),
            None => summary.clone(),
        };
        ToolOutcome {
            ok: true,
            content,
            summary,
            changed: vec![display.clone()],
        }
    }
}

/// The files a run has read or written (real paths). `write_file` refuses to
/// replace an existing file the model has not looked at in this run.
#[derive(Debug, Clone, Default)]
pub struct Seen {
    files: HashSet<PathBuf>,
}

impl Seen {
    /// Notes that the model has seen the current content of `real`.
    pub fn insert(&mut self, real: &Path) {
        self.files.insert(real.to_path_buf());
    }

    /// Whether the model has seen `real` in this run.
    pub fn contains(&self, real: &Path) -> bool {
        self.files.contains(real)
    }
}

/// Computes the change a `write_file` or `edit_file` call would make, without
/// writing. `Ok(None)` for every other tool.
pub fn prepare_change(
    input: &ToolInput,
    ws: &Workspace,
    seen: &Seen,
) -> Result<Option<FileChange>, String> {
    match input {
        ToolInput::WriteFile(args) => write_file::prepare(args, ws, seen).map(Some),
        ToolInput::EditFile(args) => edit_file::prepare(args, ws).map(Some),
        ToolInput::ReadFile(_)
        | ToolInput::MoveFile(_)
        | ToolInput::ListFiles(_)
        | ToolInput::Search(_)
        | ToolInput::Bash(_) => Ok(None),
    }
}

/// Runs a call that is not a prepared file change (see [`prepare_change`]).
pub async fn execute(input: &ToolInput, ws: &Workspace, seen: &Seen) -> ToolOutcome {
    match input {
        ToolInput::ReadFile(args) => read_file::run(args, ws),
        ToolInput::MoveFile(args) => move_file::run(args, ws, seen),
        ToolInput::ListFiles(args) => list_files::run(args, ws),
        ToolInput::Search(args) => search::run(args, ws),
        ToolInput::Bash(args) => bash::run(args, ws).await,
        ToolInput::WriteFile(_) | ToolInput::EditFile(_) => match prepare_change(input, ws, seen) {
            Ok(Some(change)) => change.apply(),
            Ok(None) => ToolOutcome::error("nothing to change"),
            Err(message) => ToolOutcome::error(message),
        },
    }
}

/// A compact JSON schema for `T`: no `$schema`, `title` or integer `format`,
/// and `Option` fields as their plain type (they are simply not `required`).
/// Small models pay for every token of it.
fn lean_schema<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft07()
        .with(|s| s.meta_schema = None)
        .for_deserialize()
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    strip(&mut value);
    value
}

fn strip(value: &mut Value) {
    let Some(object) = value.as_object_mut() else {
        return;
    };
    object.remove("title");
    object.remove("$schema");
    object.remove("format");
    if object.get("minimum") == Some(&json!(0)) {
        object.remove("minimum");
    }
    if let Some(Value::Array(types)) = object.get("type") {
        let real: Vec<Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .cloned()
            .collect();
        if real.len() == 1 {
            object.insert("type".into(), real[0].clone());
        }
    }
    if object.get("default") == Some(&Value::Null) {
        object.remove("default");
    }
    for child in object.values_mut() {
        match child {
            Value::Object(_) => strip(child),
            Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
}

/// The one-line shape of a tool's arguments, e.g.
/// `{"path": string, "offset"?: integer}`, for error messages.
pub fn signature(tool: ToolName) -> String {
    let schema = tool.schema();
    let parameters = &schema["function"]["parameters"];
    let required: Vec<&str> = parameters["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let fields: Vec<String> = parameters["properties"]
        .as_object()
        .map(|props| {
            props
                .iter()
                .map(|(name, prop)| {
                    let kind = prop["type"].as_str().unwrap_or("any");
                    let mark = if required.contains(&name.as_str()) {
                        ""
                    } else {
                        "?"
                    };
                    format!("\"{name}\"{mark}: {kind}")
                })
                .collect()
        })
        .unwrap_or_default();
    format!("{{{}}}", fields.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn schemas_are_lean_and_complete() {
        let schema = ToolName::ReadFile.schema();
        let params = &schema["function"]["parameters"];
        assert_eq!(params["type"], "object");
        assert_eq!(params["required"], json!(["path"]));
        assert_eq!(params["properties"]["offset"]["type"], "integer");
        assert!(params.get("title").is_none());
        assert!(params["properties"]["offset"].get("format").is_none());
        let all: Vec<Value> = ToolName::ALL.iter().map(|t| t.schema()).collect();
        let bytes = serde_json::to_string(&all).unwrap().len();
        assert!(bytes < 4000, "tool schemas take {bytes} bytes");
    }

    #[test]
    fn signature_marks_optional_fields() {
        assert_eq!(
            signature(ToolName::EditFile),
            r#"{"path": string, "old_string": string, "new_string": string, "replace_all"?: boolean}"#
        );
    }

    #[test]
    fn bad_arguments_say_what_to_send() {
        let err = ToolInput::parse(ToolName::WriteFile, &json!({"path": "a"})).unwrap_err();
        assert!(err.contains("missing field `content`"), "{err}");
        assert!(err.contains(r#""content": string"#), "{err}");
        let err = ToolInput::parse(ToolName::ReadFile, &json!("a.txt")).unwrap_err();
        assert!(err.contains("must be a JSON object"), "{err}");
    }

    #[test]
    fn plan_mode_offers_only_read_only_tools() {
        assert_eq!(
            ToolName::for_mode(Mode::Plan),
            vec![ToolName::ReadFile, ToolName::ListFiles, ToolName::Search]
        );
    }
}
