//! `--output-schema FILE`: the final answer is one JSON value that a JSON
//! Schema accepts. The schema goes with every request (Ollama `format`,
//! OpenAI `response_format`), so the server holds the model to it while it
//! decodes; the answer is validated all the same (servers that ignore the
//! field exist), an invalid one is sent back once with what is wrong, and a
//! second invalid one ends the run with [`Ending::SchemaMismatch`].

use serde_json::Value;

use super::ending::Ending;
use super::turns::Turns;
use crate::client::{Message, Role};
use crate::error::Result;
use crate::job::OutputSchema;
use crate::session::{Journal, Session};
use crate::ui::Output;

/// Ends the prompt's message (the last user message) with the schema.
pub(crate) fn instruct(session: &mut Session, schema: &OutputSchema) {
    if let Some(prompt) = session
        .messages_unsaved()
        .iter_mut()
        .rev()
        .find(|m| m.role == Role::User)
    {
        prompt.content = format!("{}\n\n{}", prompt.content.trim_end(), schema.instruction());
    }
}

/// Runs the turns to their end; with `schema`, an answer must match it:
/// one that does not is sent back once with what is wrong. Returns the
/// ending and the validated JSON value (`None` without a schema or
/// without a valid answer).
///
/// Errors: as [`Turns::until_end`].
pub(crate) async fn run_to_answer(
    turns: &mut Turns<'_>,
    session: &mut Journal<'_>,
    schema: Option<&OutputSchema>,
    out: &mut dyn Output,
) -> Result<(Ending, Option<Value>)> {
    let mut retried = false;
    loop {
        let ending = turns.until_end(session, out).await?;
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
                session.push(Message::text(Role::User, text))?;
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
