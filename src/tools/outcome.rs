//! What a tool call produced, for the model and for people.

/// What a tool call produced.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ToolOutcome {
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
    pub(crate) fn error(message: impl Into<String>) -> Self {
        let message = message.into();
        ToolOutcome {
            ok: false,
            summary: first_line(&message),
            content: format!("error: {message}"),
            changed: Vec::new(),
        }
    }

    /// A successful call that changed nothing.
    pub(crate) fn ok(content: impl Into<String>, summary: impl Into<String>) -> Self {
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
