//! The seven tools' names, what each is for, which a mode may use, and
//! their JSON Schemas as sent to the model (lean: no titles, no formats a
//! small model would echo).

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::{bash, edit_file, list_files, move_file, read_file, search, write_file};
use crate::vocab::Mode;

/// Every tool `oc` has, in the order they are offered to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ToolName {
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
    pub(crate) const ALL: [ToolName; 7] = [
        ToolName::ReadFile,
        ToolName::WriteFile,
        ToolName::EditFile,
        ToolName::MoveFile,
        ToolName::ListFiles,
        ToolName::Search,
        ToolName::Bash,
    ];

    /// The name the model calls the tool by.
    pub(crate) fn as_str(self) -> &'static str {
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
    pub(crate) fn from_name(name: &str) -> Option<ToolName> {
        ToolName::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// Tools that change nothing: the only ones offered in plan mode.
    pub(crate) fn is_read_only(self) -> bool {
        match self {
            ToolName::ReadFile | ToolName::ListFiles | ToolName::Search => true,
            ToolName::WriteFile | ToolName::EditFile | ToolName::MoveFile | ToolName::Bash => false,
        }
    }

    /// The tools offered in `mode`.
    pub(crate) fn for_mode(mode: Mode) -> Vec<ToolName> {
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
            ToolName::ListFiles => "List files matching a glob, honouring .gitignore. Sorted.",
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
    pub(crate) fn schema(self) -> Value {
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
