//! Answering a reply's calls, one `role: "tool"` message each: run under
//! policy, or not run and why (the same call again and again, a reply cut
//! off). In a text edit format, a file asked for is shown as the opening
//! shows files.

use serde_json::Value;

use super::calls::CallRunner;
use super::context;
use super::edits::Protocol;
use super::guards::{self, Repeat, RepeatGuard};
use super::reply::Cut;
use crate::client::{Message, ToolCall};
use crate::error::Result;
use crate::session::Journal;
use crate::ui::Output;

/// How the calls of one reply went.
pub(crate) enum Answered {
    /// The same call came too often: the run ends.
    Stuck,
    /// Every call was answered; these failed.
    All { failed: Vec<ToolCall> },
}

/// The parts of the turn loop that answer calls.
pub(crate) struct Answerer<'t, 'a> {
    pub repeats: &'t mut RepeatGuard,
    pub calls: &'t mut CallRunner<'a>,
    pub protocol: &'t mut Protocol,
}

impl Answerer<'_, '_> {
    /// Answers each call of the reply with one `role: "tool"` message: run
    /// it, or say why it was not run.
    pub(crate) async fn answer(
        &mut self,
        session: &mut Journal<'_>,
        out: &mut dyn Output,
        calls: &[ToolCall],
        arguments: impl Iterator<Item = std::result::Result<Value, String>>,
        cut_off: Option<Cut>,
    ) -> Result<Answered> {
        let turn = session.turns;
        let mut failed = Vec::new();
        for (call, arguments) in calls.iter().zip(arguments) {
            let id = call.id.clone().unwrap_or_default();
            let name = call.function.name.clone();
            // A cut reply's calls never run: they are no repeats either
            // (a reply cut at the cap may hold one call many times).
            let repeat = match cut_off {
                Some(_) => Repeat::Run,
                None => self.repeats.check(&name, &call.function.arguments),
            };
            let content = match repeat {
                Repeat::Stop => {
                    session.push(Message::tool_result(
                        &name,
                        &id,
                        "error: not run: the same call again",
                    ))?;
                    session.close_calls("error: not run: the run was stopped")?;
                    return Ok(Answered::Stuck);
                }
                Repeat::Block(times) => {
                    let detail = guards::detail_of(&name, &call.function.arguments);
                    out.tool_call(turn, &id, &name, &detail, &call.function.arguments);
                    let text = guards::repeat_blocked(times);
                    out.tool_result(turn, &id, &name, false, &text, &text);
                    format!("error: {text}")
                }
                Repeat::Run if cut_off.is_some() => {
                    let text = guards::CUT_OFF;
                    let detail = guards::detail_of(&name, &call.function.arguments);
                    out.tool_call(turn, &id, &name, &detail, &call.function.arguments);
                    out.tool_result(turn, &id, &name, false, text, text);
                    format!("error: {text}")
                }
                Repeat::Run => {
                    // The model's calls; the reads oc makes for it in the
                    // opening are not counted.
                    self.calls.tool_calls += 1;
                    let outcome = self
                        .calls
                        .call(
                            session.unsaved(),
                            out,
                            (&id, &name),
                            &call.function.arguments,
                            arguments,
                        )
                        .await;
                    if !outcome.ok {
                        session.unsaved().failed_tool_calls.push(id.clone());
                        failed.push(call.clone());
                    }
                    let content = match outcome.ok && name == "read_file" {
                        true => self.present_read(&call.function.arguments),
                        false => None,
                    };
                    let content = content.unwrap_or(outcome.content);
                    context::cap_output(&content, context::TOOL_OUTPUT_CAP)
                }
            };
            if content.starts_with("error: not run") {
                session.unsaved().failed_tool_calls.push(id.clone());
                failed.push(call.clone());
            }
            session.push(Message::tool_result(&name, &id, content))?;
        }
        Ok(Answered::All { failed })
    }

    /// In a text edit format, a file the model asked to read is shown as
    /// the opening shows files (whole, or in parts), and may then change.
    fn present_read(&mut self, arguments: &Value) -> Option<String> {
        let Protocol::FileBlocks(blocks) = &mut *self.protocol else {
            return None;
        };
        let calls = &*self.calls;
        blocks.answer_read(arguments, calls.workspace(), &|text| calls.scrub(text))
    }
}
