//! The seven tools (docs/tools.md): their names, schemas, argument parsing and
//! execution. Every path is confined to the [`Workspace`]; every failure is a
//! [`ToolOutcome`] for the model, never a crash.

pub(crate) mod bash;
pub(crate) mod change;
pub(crate) mod edit_file;
pub(crate) mod edit_match;
pub(crate) mod file_text;
pub(crate) mod lenient;
pub(crate) mod list_files;
pub(crate) mod losses;
pub(crate) mod move_file;
pub(crate) mod name;
pub(crate) mod outcome;
pub(crate) mod outline;
pub(crate) mod read_file;
pub(crate) mod search;
pub(crate) mod similarity;
pub(crate) mod walk;
pub(crate) mod workspace;
pub(crate) mod write_file;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub(crate) use change::{FileChange, FilesSeen};
pub(crate) use file_text::decode_text;
pub(crate) use name::ToolName;
pub(crate) use outcome::ToolOutcome;
pub(crate) use workspace::{ResolvedPath, Workspace};

/// Parsed, validated arguments of one call.
#[derive(Debug, Clone)]
pub(crate) enum ToolInput {
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
    pub(crate) fn parse(tool: ToolName, arguments: &Value) -> Result<ToolInput, String> {
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
    pub(crate) fn tool(&self) -> ToolName {
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
    pub(crate) fn paths(&self) -> Vec<&str> {
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
    pub(crate) fn detail(&self) -> String {
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

/// Computes the change a `write_file` or `edit_file` call would make, without
/// writing. `Ok(None)` for every other tool.
pub(crate) fn prepare_change(
    input: &ToolInput,
    ws: &Workspace,
    seen: &FilesSeen,
) -> Result<Option<FileChange>, String> {
    let change = match input {
        ToolInput::WriteFile(args) => write_file::prepare(args, ws, seen)?,
        ToolInput::EditFile(args) => edit_file::prepare(args, ws, seen)?,
        ToolInput::ReadFile(_)
        | ToolInput::MoveFile(_)
        | ToolInput::ListFiles(_)
        | ToolInput::Search(_)
        | ToolInput::Bash(_) => return Ok(None),
    };
    Ok(Some(change))
}

/// Runs a call that is not a prepared file change (see [`prepare_change`]).
pub(crate) async fn execute(input: &ToolInput, ws: &Workspace, seen: &FilesSeen) -> ToolOutcome {
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

/// The one-line shape of a tool's arguments, e.g.
/// `{"path": string, "offset"?: integer}`, for error messages.
pub(crate) fn signature(tool: ToolName) -> String {
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
    use crate::vocab::Mode;
    use pretty_assertions::assert_eq;
    use serde_json::json;

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
