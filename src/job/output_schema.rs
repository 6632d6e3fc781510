//! `--output-schema FILE`: the JSON Schema the final answer must match,
//! read, compiled and checked (docs/output.md). The agent's loop sends it
//! with every request and sends a mismatch back once (`agent::structured`).

use std::path::Path;

use serde_json::Value;

use super::calls_in_text::fence_body;
use crate::error::{Error, Result};

/// A JSON Schema the final answer must match, compiled.
pub(crate) struct OutputSchema {
    /// The schema as written in the file.
    pub schema: Value,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSchema")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl OutputSchema {
    /// Reads and compiles the JSON Schema in `path`.
    ///
    /// Errors ([`Error::Usage`], exit 2): the file cannot be read, is not
    /// JSON, or is not a valid JSON Schema.
    pub(crate) fn load(path: &Path) -> Result<Self> {
        let shown = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Usage(format!(
                "cannot read the output schema `{shown}`: {e}; pass a JSON Schema file to `--output-schema`"
            ))
        })?;
        let schema: Value = serde_json::from_str(&text).map_err(|e| {
            Error::Usage(format!(
                "the output schema `{shown}` is not JSON (line {}, column {}: {}); `--output-schema` takes a JSON Schema file",
                e.line(),
                e.column(),
                crate::json_words::describe(&e)
            ))
        })?;
        Self::new(schema).map_err(|why| {
            Error::Usage(format!(
                "the output schema `{shown}` is not a valid JSON Schema: {why}"
            ))
        })
    }

    /// Compiles `schema`; the error says what is wrong with it.
    pub(crate) fn new(schema: Value) -> std::result::Result<Self, String> {
        // Ollama takes only an object as `format` (or "json"), and `false`
        // would refuse every answer.
        if !schema.is_object() {
            return Err("a schema is an object (e.g. {\"type\": \"object\", …})".into());
        }
        let validator = jsonschema::validator_for(&schema).map_err(|e| e.to_string())?;
        Ok(OutputSchema { schema, validator })
    }

    /// The JSON value of `answer` if it matches the schema: the whole reply
    /// is one JSON value (a ```json fence around it is allowed). The error
    /// says what is wrong, for the model and the user.
    pub(crate) fn check(&self, answer: &str) -> std::result::Result<Value, String> {
        // A ```json fence around the value is allowed.
        let text = answer.trim();
        let text = fence_body(text).map_or(text, str::trim);
        let value: Value = serde_json::from_str(text)
            .map_err(|e| format!("the answer is not one JSON value ({e})"))?;
        let problems: Vec<String> = self
            .validator
            .iter_errors(&value)
            .take(5)
            .map(|e| {
                let at = e.instance_path().to_string();
                let at = if at.is_empty() {
                    "the value".into()
                } else {
                    at
                };
                format!("{at}: {e}")
            })
            .collect();
        if problems.is_empty() {
            Ok(value)
        } else {
            Err(problems.join("; "))
        }
    }

    /// The line the first user message ends with: the schema, so the model
    /// knows what the server holds it to.
    pub(crate) fn instruction(&self) -> String {
        format!(
            "Reply with only one JSON value that matches this JSON Schema, nothing else:\n{}",
            self.schema
        )
    }
}
