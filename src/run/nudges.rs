//! What `oc` tells the model when a reply did not do the work: an empty
//! reply, a description instead of a change, blocks that named no file or
//! changed nothing, the same call again, a reply cut off. The guards send
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

/// Sent once, with no tools offered, when a read-only run (plan, chat)
/// repeats the same call: its task is an answer, and the results are in.
pub(crate) const ANSWER_NOW: &str = "You called the same tool again and again; its results are above and will not change. Do not call any tool now: answer the question from what you have.";

/// [`ANSWER_NOW`] in the text edit formats, where the model asks in words.
pub(crate) const ANSWER_NOW_IN_TEXT: &str = "You asked for the same again and again; what you got is above and will not change. Ask for nothing more now: answer from what you have.";

/// The tool result of a call in a reply stopped for repeating itself.
pub(crate) const REPEATED_REPLY: &str = "not run: your reply repeated the same lines again and again and was stopped, so this call may be incomplete. Do not repeat yourself; make one change at a time.";

/// The tool result of a call in a reply cut off at the length limit.
pub(crate) const CUT_OFF: &str = "not run: the reply was cut off at the length limit, so this call may be incomplete. Make smaller changes, one call at a time.";

/// What a reply that describes the change instead of making it gets once,
/// before how to make it.
pub(crate) const DESCRIBED: &str =
    "Do not describe the change or tell me how to make it: make it yourself, now.";

/// What file blocks that changed nothing get once.
pub(crate) const UNCHANGED: &str = "Nothing changed: the files you sent are the same as before, so the task is not done. Make the change the task asks for.";
