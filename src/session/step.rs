//! What a fine-tuning record says of each reply: whether it did what it
//! meant to, and its tokens.

use serde::{Deserialize, Serialize};

use super::usage::Usage;
use serde_json::Value;

use crate::client::Message;

/// How one reply of a record went: `ok` when it did what it meant to;
/// else `notes` say why (a call that failed or was refused, a nudge it
/// got, a check that failed after it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Step {
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Written by `oc`, not the model (the reads of the files the prompt
    /// names, made before the first request in the tool-call protocol):
    /// never a training target.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub synthetic: bool,
    /// The tokens of the request and the reply, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

impl Default for Step {
    fn default() -> Self {
        Step {
            ok: true,
            notes: Vec::new(),
            synthetic: false,
            usage: None,
        }
    }
}

impl Step {
    #[cfg(test)]
    /// Whether a trainer may learn from the reply: the model wrote it and
    /// it worked.
    pub(crate) fn learnable(&self) -> bool {
        self.ok && !self.synthetic
    }

    /// Marks the step failed, for `why`.
    pub(crate) fn fail(&mut self, why: impl Into<String>) {
        self.ok = false;
        self.notes.push(why.into());
    }
}

/// What a record holds of a run's conversation: the messages as the model
/// saw them (system prompt first) and a step per assistant message.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trajectory {
    pub messages: Vec<Message>,
    pub steps: Vec<Step>,
}

impl Trajectory {
    /// The trajectory with every `path` in it written `placeholder`: in
    /// message text, thinking, tool-call arguments and step notes.
    pub(crate) fn with_path_as(mut self, path: &str, placeholder: &str) -> Trajectory {
        if path.len() <= 1 {
            return self;
        }
        let swap = |text: &mut String| {
            if text.contains(path) {
                *text = text.replace(path, placeholder);
            }
        };
        for m in &mut self.messages {
            swap(&mut m.content);
            if let Some(thinking) = &mut m.thinking {
                swap(thinking);
            }
            for call in &mut m.tool_calls {
                strings_in(&mut call.function.arguments, &swap);
            }
        }
        for step in &mut self.steps {
            step.notes.iter_mut().for_each(&swap);
        }
        self
    }
}

/// Applies `change` to every string in `value`.
fn strings_in(value: &mut Value, change: &dyn Fn(&mut String)) {
    match value {
        Value::String(text) => change(text),
        Value::Array(items) => items.iter_mut().for_each(|v| strings_in(v, change)),
        Value::Object(map) => map.values_mut().for_each(|v| strings_in(v, change)),
        _ => {}
    }
}

/// How the ids of the reads a run's opening makes for the model begin
/// (`call_g3_0`): `oc` wrote those calls, not the model.
pub(crate) const GROUNDING_CALL: &str = "call_g";

/// Whether `message` is such reads, made by `oc` rather than the model.
pub(crate) fn is_grounding_read(message: &Message) -> bool {
    !message.tool_calls.is_empty()
        && (message.tool_calls.iter())
            .all(|c| (c.id.as_deref()).is_some_and(|id| id.starts_with(GROUNDING_CALL)))
}
