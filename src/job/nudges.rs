//! What `oc` tells the model when a reply did not do the work: an empty
//! reply, blocks that named no file, a reply cut off. The guards send
//! them; the record's steps read them back to mark the reply before as
//! failed.

/// Said when a reply's code blocks name no file and more than one file
/// may change: nothing was written.
pub(crate) const UNPLACED: &str = "Nothing changed: your code blocks name no file. Write the file's path on the line before each block.";

/// What an empty reply gets once.
pub(crate) const NUDGE: &str =
    "Your reply was empty. Continue the task: call a tool, or give your answer.";

/// [`NUDGE`] where no tool is offered (the text edit formats): a change is
/// made with file blocks.
pub(crate) const NUDGE_IN_TEXT: &str =
    "Your reply was empty. Continue the task: give your answer, or the file blocks of your change.";

/// [`NUDGE`] where the reply is an answer and nothing else (a JSON value
/// held to a schema, an answer in the text edit formats).
pub(crate) const NUDGE_TO_ANSWER: &str = "Your reply was empty. Give your answer.";

/// The tool result of a call in a reply cut off at the length limit.
pub(crate) const CUT_OFF: &str = "not run: the reply was cut off at the length limit, so this call may be incomplete. Make smaller changes, one call at a time.";
