//! `--output-schema FILE`: the final answer is one JSON value that a JSON
//! Schema accepts. The schema goes with every request (Ollama `format`,
//! OpenAI `response_format`), so the server holds the model to it while it
//! decodes; the answer is validated all the same (servers that ignore the
//! field exist), an invalid one is sent back once with what is wrong, and a
//! second invalid one ends the run with [`Ending::SchemaMismatch`].

use std::path::Path;

use serde_json::Value;

use super::ending::Ending;
use super::turns::Turns;
use crate::client::{Message, Role};
use crate::error::{Error, Result};
use crate::session::Session;
use crate::ui::Output;

/// A JSON Schema the final answer must match, compiled.
pub struct OutputSchema {
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
    pub fn load(path: &Path) -> Result<Self> {
        let shown = path.display();
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::Usage(format!(
                "cannot read the output schema `{shown}`: {e}; pass a JSON Schema file to `--output-schema`"
            ))
        })?;
        let schema: Value = serde_json::from_str(&text).map_err(|e| {
            Error::Usage(format!(
                "the output schema `{shown}` is not JSON ({e}); `--output-schema` takes a JSON Schema file"
            ))
        })?;
        Self::new(schema).map_err(|why| {
            Error::Usage(format!(
                "the output schema `{shown}` is not a valid JSON Schema: {why}"
            ))
        })
    }

    /// Compiles `schema`; the error says what is wrong with it.
    pub fn new(schema: Value) -> std::result::Result<Self, String> {
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
    pub fn check(&self, answer: &str) -> std::result::Result<Value, String> {
        let text = unfenced(answer.trim());
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
    pub fn instruction(&self) -> String {
        format!(
            "Reply with only one JSON value that matches this JSON Schema, nothing else:\n{}",
            self.schema
        )
    }
}

/// Ends the prompt's message (the last user message) with the schema.
pub fn instruct(session: &mut Session, schema: &OutputSchema) {
    if let Some(prompt) = session
        .messages
        .iter_mut()
        .rev()
        .find(|m| m.role == Role::User)
    {
        prompt.content = format!("{}\n\n{}", prompt.content.trim_end(), schema.instruction());
    }
}

/// `text` without a fence around it (```` ```json ````, ```` ``` ````).
fn unfenced(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text;
    };
    // The info string ends at the first line break.
    body.split_once('\n')
        .map_or(body, |(_, inner)| inner)
        .trim()
}

/// Runs the turns to their end; with `schema`, an answer must match it:
/// one that does not is sent back once with what is wrong. Returns the
/// ending and the validated JSON value (`None` without a schema or
/// without a valid answer).
///
/// Errors: as [`Turns::run`].
pub async fn run_to_answer(
    turns: &mut Turns<'_>,
    session: &mut Session,
    schema: Option<&OutputSchema>,
    out: &mut dyn Output,
) -> Result<(Ending, Option<Value>)> {
    let mut retried = false;
    loop {
        let ending = turns.run(session, out).await?;
        // After the retry, the same reply again is the same mismatch.
        let judged =
            matches!(ending, Ending::Answered) || (retried && matches!(ending, Ending::Unchanged));
        let Some(schema) = schema.filter(|_| judged) else {
            return Ok((ending, None));
        };
        let answer = session
            .last_assistant()
            .map(|m| m.content.as_str())
            .unwrap_or_default();
        match schema.check(answer) {
            Ok(value) => return Ok((ending, Some(value))),
            Err(why) if !retried => {
                retried = true;
                out.warn(&format!(
                    "the answer does not match the output schema ({why}); asking once more"
                ));
                let text = format!(
                    "Your answer does not match the JSON Schema: {why}. {}",
                    schema.instruction()
                );
                session.messages.push(Message::text(Role::User, text));
            }
            Err(why) => return Ok((Ending::SchemaMismatch(why), None)),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> OutputSchema {
        OutputSchema::new(json!({
            "type": "object",
            "properties": {"summary": {"type": "string"}, "risk": {"enum": ["low", "high"]}},
            "required": ["summary", "risk"]
        }))
        .unwrap()
    }

    #[test]
    fn a_matching_answer_is_its_value() {
        let value = schema()
            .check("{\"summary\": \"adds mean\", \"risk\": \"low\"}")
            .unwrap();
        assert_eq!(value["risk"], "low");
        let fenced = "```json\n{\"summary\": \"x\", \"risk\": \"high\"}\n```";
        assert_eq!(schema().check(fenced).unwrap()["risk"], "high");
    }

    #[test]
    fn what_is_wrong_is_said() {
        let why = schema()
            .check("{\"summary\": 3, \"risk\": \"low\"}")
            .unwrap_err();
        assert!(why.contains("/summary"), "{why}");
        let why = schema().check("{\"summary\": \"x\"}").unwrap_err();
        assert!(why.contains("risk"), "{why}");
        let why = schema().check("Here is the JSON: {}").unwrap_err();
        assert!(why.starts_with("the answer is not one JSON value"), "{why}");
    }

    #[test]
    fn a_schema_that_is_not_one_is_refused() {
        assert!(OutputSchema::new(json!([1, 2])).is_err());
        assert!(OutputSchema::new(json!(true)).is_err());
        assert!(OutputSchema::new(json!(false)).is_err());
        assert!(OutputSchema::new(json!({"type": "no-such-type"})).is_err());
    }
}
