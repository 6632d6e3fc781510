//! The agent loop (SPEC §5): send the messages and the mode's tools, stream
//! the reply, run each tool call (validate → permission → execute → cap),
//! append one `role: "tool"` message per call, repeat until the model answers
//! without tool calls or `max_turns` requests have been made.

pub mod context;
pub mod prompt;
pub mod text_calls;

use std::borrow::Cow;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::client::{
    ChatOptions, ChatRequest, FunctionCall, Message, OllamaClient, Role, ToolCall,
};

use crate::config::Settings;
use crate::error::{Error, ExitStatus, Result};
use crate::permissions::rules::{Action, Rule};
use crate::permissions::secrets::Secrets;
use crate::permissions::{
    self, Approval, ApprovalRequest, Approver, PermissionRecord, Source, Verdict,
};
use crate::protocol::{Denial, RunSummary, SCHEMA_VERSION};
use crate::session::{AbortedReply, Check, FinetuneRecord, Repair, Session, Status, Store, Usage};
use crate::signals::{Signals, Stop};
use crate::tools::{self, ResolvedPath, ToolInput, ToolName, ToolOutcome, Workspace};
use crate::ui::Output;
use crate::vocab::{Mode, TextTools, Think};
use text_calls::{Filtered, TextCallFilter};

/// One streamed reply.
struct Reply {
    message: Message,
    done_reason: Option<String>,
    prompt_eval_count: u64,
    eval_count: u64,
}

/// What one invocation asks of the agent, beside the settings.
#[derive(Debug, Default)]
pub struct Job {
    /// The new user message.
    pub prompt: String,
    /// A saved session to go on from (`--continue`, `--resume`).
    pub resume: Option<Session>,
    /// Write the session file and the fine-tuning record (false with
    /// `--no-save`).
    pub save: bool,
    /// Limit on the whole run (`--timeout`); reaching it exits 124.
    pub timeout: Option<Duration>,
    /// Where to write the final answer (`-o`).
    pub last_message_file: Option<PathBuf>,
    /// A command run after the model finished (`--check`); the run counts as
    /// a success for fine-tuning only when it exits 0.
    pub check: Option<String>,
}

/// Runs one agent session to its end and returns the exit status.
///
/// Errors: only those before the session exists: an unusable workspace
/// (exit 2), server unreachable or model missing (exit 3). A failure later
/// is reported through `out`, saved with the session, and returned as
/// [`ExitStatus::Failure`].
pub async fn run(
    settings: &Settings,
    job: Job,
    approver: &mut dyn Approver,
    out: &mut dyn Output,
) -> Result<ExitStatus> {
    let started = Instant::now();
    let deadline = job.timeout.map(|t| tokio::time::Instant::now() + t);
    let mut stops = Signals::install()?.watch();
    let client = OllamaClient::new(&settings.host, settings.timeouts)?;
    let workspace = Workspace::new(&settings.cwd).map_err(|e| {
        Error::Usage(format!(
            "cannot use `{}` as the workspace: {e}",
            settings.cwd.display()
        ))
    })?;
    let info = tokio::select! {
        info = client.show(&settings.model) => info?,
        Some(stop) = stops.recv() => {
            return Err(Error::Stopped {
                status: stop.exit_status(),
                message: format!("stopped by {} before the run started", stop.name()),
            });
        }
        () = until(deadline) => {
            return Err(Error::Stopped {
                status: ExitStatus::TimedOut,
                message: format!(
                    "timed out after {} before the run started",
                    humantime::format_duration(job.timeout.unwrap_or_default())
                ),
            });
        }
    };

    let think = if info.has("thinking") {
        Some(settings.think)
    } else {
        if settings.think_explicit && settings.think.is_on() {
            out.warn(&format!(
                "model `{}` cannot think (no `thinking` capability); `--think` is ignored",
                settings.model
            ));
        }
        None
    };
    let num_ctx = match info.context_length {
        Some(max) if u64::from(settings.num_ctx) > max => {
            let clamped = u32::try_from(max).unwrap_or(u32::MAX);
            out.note(&format!(
                "num_ctx {} is more than `{}` supports; using {clamped}",
                settings.num_ctx, settings.model
            ));
            clamped
        }
        _ => settings.num_ctx,
    };
    let native_tools = info.has("tools");
    let offered: Vec<ToolName> = if native_tools || settings.text_tools == TextTools::Auto {
        ToolName::for_mode(settings.mode)
    } else {
        if settings.mode != Mode::Chat {
            out.warn(&format!(
                "model `{}` has no `tools` capability and `--text-tools off` is set; it can only answer",
                settings.model
            ));
        }
        Vec::new()
    };
    // A model without native tool calling gets the tools in its system
    // prompt and writes calls as ```tool fences (the fenced-tool protocol).
    let fenced = !native_tools && !offered.is_empty();
    let schemas: Vec<Value> = offered.iter().map(|t| t.schema()).collect();

    let store = Store::new(&settings.home);
    let resumed = job.resume.is_some();
    let mut session = match job.resume {
        Some(mut session) => {
            // The saved system prompt is kept byte for byte, so the server
            // can reuse its cache of the conversation.
            session.mode = settings.mode;
            session.model = settings.model.clone();
            session.num_ctx = num_ctx;
            session.status = Status::Running;
            session.exit_reason = None;
            session.aborted_reply = None;
            session.messages.push(Message::text(Role::User, job.prompt));
            session
        }
        None => {
            let system = prompt::system_prompt(settings.mode, workspace.root(), &offered, fenced);
            let mut session = Session::new(
                settings.mode,
                &settings.model,
                &crate::client::host::display_host(&settings.host),
                workspace.root(),
                &job.prompt,
                num_ctx,
            );
            session.messages.push(Message::text(Role::System, system));
            session.messages.push(Message::text(Role::User, job.prompt));
            session
        }
    };
    if job.save {
        store.save(&mut session)?;
    }
    out.session_started(&session, resumed);
    let first_turn = session.turns;

    let mut run = Run {
        settings,
        client: &client,
        workspace: &workspace,
        offered: &offered,
        schemas: if fenced { &[] } else { &schemas },
        fenced,
        options: ChatOptions {
            num_ctx,
            temperature: settings.sampling.temperature,
            top_p: settings.sampling.top_p,
            top_k: settings.sampling.top_k,
            presence_penalty: settings.sampling.presence_penalty,
        },
        think,
        first_turn,
        approver,
        out,
        store: job.save.then_some(&store),
        denials: Vec::new(),
        tool_calls: 0,
        files_changed: Vec::new(),
        seen: tools::Seen::default(),
        partial: PartialReply::default(),
        secrets: Secrets::gather(workspace.root()),
        rules: settings.rules.clone(),
        repeats: (String::new(), 0),
        nudged: false,
        project_config: permissions::project_config::ProjectConfigGuard::new(workspace.root()),
    };
    let ending = tokio::select! {
        result = run.turns(&mut session) => match result {
            Ok(ending) => ending,
            Err(error) => Ending::Failed(error),
        },
        Some(stop) = stops.recv() => Ending::Stopped(stop),
        () = until(deadline) => Ending::TimedOut,
    };
    if matches!(ending, Ending::Stopped(_) | Ending::TimedOut) {
        let what = match &ending {
            Ending::Stopped(stop) => format!("stopped by {}", stop.name()),
            _ => format!(
                "timed out after {}",
                humantime::format_duration(job.timeout.unwrap_or_default())
            ),
        };
        run.out.warn(&format!("{what}; saving the session"));
        let partial = std::mem::take(&mut run.partial);
        if !partial.raw.is_empty() || !partial.thinking.is_empty() {
            session.aborted_reply = Some(AbortedReply {
                aborted: true,
                content: partial.raw,
                thinking: partial.thinking,
            });
        }
        session.answer_unanswered_calls("interrupted: result unknown");
    }
    let (status, reason, exit) = match &ending {
        Ending::Answered if run.denials.is_empty() => (
            Status::Finished,
            "answered".to_string(),
            ExitStatus::Success,
        ),
        Ending::Answered => (
            Status::Finished,
            "answered; some actions were denied for want of approval".to_string(),
            ExitStatus::Denied,
        ),
        Ending::MaxTurns => (
            Status::MaxTurns,
            format!("max turns ({}) reached", settings.max_turns),
            ExitStatus::MaxTurns,
        ),
        Ending::Failed(e) => (Status::Failed, e.to_string(), ExitStatus::Failure),
        Ending::Stopped(stop) => (
            Status::Interrupted,
            format!("stopped by {}", stop.name()),
            stop.exit_status(),
        ),
        Ending::Stuck => (
            Status::Stuck,
            format!("stopped: the model made the same call {REPEAT_STOP} times in a row"),
            ExitStatus::MaxTurns,
        ),
        Ending::TimedOut => (
            Status::TimedOut,
            format!(
                "timed out after {}",
                humantime::format_duration(job.timeout.unwrap_or_default())
            ),
            ExitStatus::TimedOut,
        ),
    };
    session.status = status;
    session.exit_reason = Some(reason.clone());
    let mut exit = exit;
    if let (Some(command), Ending::Answered | Ending::MaxTurns | Ending::Stuck) =
        (&job.check, &ending)
    {
        // The check is part of the run: a signal or `--timeout` stops it too.
        let stopped = tokio::select! {
            check = run.run_check(command) => {
                session.check = Some(check);
                None
            }
            Some(stop) = stops.recv() => Some((stop.exit_status(), Status::Interrupted, format!("stopped by {} during the check", stop.name()))),
            () = until(deadline) => Some((ExitStatus::TimedOut, Status::TimedOut, "timed out during the check".to_string())),
        };
        if let Some((status, session_status, why)) = stopped {
            run.out.warn(&why);
            session.check = Some(Check {
                command: command.clone(),
                exit_code: None,
                passed: false,
            });
            session.status = session_status;
            session.exit_reason = Some(why);
            exit = status;
        }
    }
    let reason = session.exit_reason.clone().unwrap_or(reason);
    let Run {
        out,
        denials,
        tool_calls,
        files_changed,
        ..
    } = run;
    if job.save {
        let saved = store.save(&mut session).and_then(|()| {
            store.append_finetune(&FinetuneRecord::from_session(&session, &schemas))
        });
        if let Err(e) = saved {
            out.warn(&format!("{e:#}"));
        }
    }
    let final_text = session
        .messages
        .iter()
        .rev()
        .find(|m| m.role == Role::Assistant)
        .map(|m| m.content.clone())
        .unwrap_or_default();
    if let Some(path) = job
        .last_message_file
        .as_ref()
        .filter(|_| !final_text.is_empty())
    {
        let mut text = final_text.clone();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        if let Err(e) = crate::fsutil::write_atomic(path, text.as_bytes(), 0o666) {
            // A script waiting for that file must not see success.
            out.error(&format!(
                "cannot write the last message to `{}`: {e}",
                path.display()
            ));
            if matches!(exit, ExitStatus::Success | ExitStatus::Denied) {
                exit = ExitStatus::Failure;
            }
        }
    }
    match &ending {
        Ending::MaxTurns => out.warn(&format!(
            "stopped after {} turn{} (`--max-turns`) before the model finished; raise `--max-turns` to let it go on",
            session.turns - first_turn,
            plural((session.turns - first_turn) as usize)
        )),
        Ending::Failed(e) => out.error(&format!("{e:#}")),
        Ending::Stuck => out.warn(&format!(
            "stopped: the model made the same call {REPEAT_STOP} times in a row"
        )),
        Ending::Answered | Ending::Stopped(_) | Ending::TimedOut => {}
    }
    out.session_completed(&RunSummary {
        schema_version: SCHEMA_VERSION,
        session_id: session.id.clone(),
        status: session.status,
        exit_reason: reason,
        exit_code: exit.code(),
        final_text,
        turns: session.turns,
        usage: session.usage,
        tool_calls,
        files_changed,
        permission_denials: denials,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    });
    Ok(exit)
}

/// The first request of a run, built without contacting the server
/// (`--dry-run`): the body as it would be sent to `/api/chat`, for a model
/// with native tool calling, plus the bytes of the system prompt and of the
/// tool schemas.
pub fn dry_run_request(settings: &Settings, prompt: &str) -> Result<(String, usize, usize)> {
    let workspace = Workspace::new(&settings.cwd).map_err(|e| {
        Error::Usage(format!(
            "cannot use `{}` as the workspace: {e}",
            settings.cwd.display()
        ))
    })?;
    let offered = ToolName::for_mode(settings.mode);
    let schemas: Vec<Value> = offered.iter().map(|t| t.schema()).collect();
    let system = prompt::system_prompt(settings.mode, workspace.root(), &offered, false);
    let messages = [
        Message::text(Role::System, system.clone()),
        Message::text(Role::User, prompt),
    ];
    let request = ChatRequest {
        model: &settings.model,
        messages: &messages,
        tools: &schemas,
        stream: true,
        think: settings.think_explicit.then_some(settings.think),
        options: ChatOptions {
            num_ctx: settings.num_ctx,
            temperature: settings.sampling.temperature,
            top_p: settings.sampling.top_p,
            top_k: settings.sampling.top_k,
            presence_penalty: settings.sampling.presence_penalty,
        },
    };
    let body = serde_json::to_string(&request)
        .map_err(|e| Error::Server(format!("cannot encode the request: {e}")))?;
    let tools_bytes = serde_json::to_string(&schemas).map_or(0, |t| t.len());
    Ok((
        body,
        system.len(),
        if schemas.is_empty() { 0 } else { tools_bytes },
    ))
}

/// Resolves at `deadline`, or never when there is none.
async fn until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// How the turns ended.
enum Ending {
    /// The model answered without tool calls.
    Answered,
    /// `max_turns` requests were made.
    MaxTurns,
    /// A model or server error.
    Failed(Error),
    /// SIGINT or SIGTERM.
    Stopped(Stop),
    /// `--timeout` was reached.
    TimedOut,
    /// The model made the same call [`REPEAT_STOP`] times in a row.
    Stuck,
}

/// The reply being streamed, kept outside the stream's future so that an
/// interrupt does not lose it.
#[derive(Debug, Default)]
struct PartialReply {
    thinking: String,
    /// Every content delta as it came, held-back text included, for a reply
    /// cut short.
    raw: String,
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// State shared by the turns of one run.
struct Run<'a> {
    settings: &'a Settings,
    client: &'a OllamaClient,
    workspace: &'a Workspace,
    offered: &'a [ToolName],
    /// The schemas sent as `tools` (none for the fenced-tool protocol).
    schemas: &'a [Value],
    /// Tools are described in the system prompt and called as text.
    fenced: bool,
    options: ChatOptions,
    think: Option<Think>,
    /// The session's turn count when this run began.
    first_turn: u32,
    approver: &'a mut dyn Approver,
    out: &'a mut dyn Output,
    /// `None` with `--no-save`.
    store: Option<&'a Store>,
    denials: Vec<Denial>,
    tool_calls: usize,
    files_changed: Vec<String>,
    /// Files the model has read or written in this run.
    seen: tools::Seen,
    partial: PartialReply,
    /// Values scrubbed from every tool result.
    secrets: Secrets,
    /// The permission rules, with those added by "always" answers.
    rules: Vec<Rule>,
    /// The last call (name and canonical arguments) and how many times in a
    /// row it was made.
    repeats: (String, u32),
    /// Whether the last reply was empty and got a nudge.
    nudged: bool,
    /// Undoes any change a command makes to `./.ollama-code.json`.
    project_config: permissions::project_config::ProjectConfigGuard,
}

/// The same call this many times in a row is not run again.
const REPEAT_BLOCK: u32 = 3;
/// The same call this many times in a row ends the run (exit 4).
const REPEAT_STOP: u32 = 5;
/// What an empty reply gets once.
const NUDGE: &str = "Your reply was empty. Continue the task: call a tool, or give your answer.";

impl Run<'_> {
    /// Turns until an answer or the cap.
    async fn turns(&mut self, session: &mut Session) -> Result<Ending> {
        loop {
            // `--max-turns` caps the requests of this run; the session's
            // turn counter goes on across resumed runs.
            if session.turns - self.first_turn >= self.settings.max_turns {
                return Ok(Ending::MaxTurns);
            }
            session.turns += 1;
            let turn = session.turns;
            self.out.turn_started(turn);
            let reply = self.stream_reply(session).await?;
            session.usage.prompt_tokens += reply.prompt_eval_count;
            session.usage.completion_tokens += reply.eval_count;
            self.out.turn_completed(
                turn,
                Usage {
                    prompt_tokens: reply.prompt_eval_count,
                    completion_tokens: reply.eval_count,
                },
                reply.done_reason.as_deref(),
            );
            if reply.prompt_eval_count >= u64::from(self.options.num_ctx) {
                let advice = if self.options.num_ctx < self.settings.num_ctx {
                    "this is the model's whole context; split the task or use a model with a longer context"
                } else {
                    "raise `--num-ctx`"
                };
                self.out.warn(&format!(
                    "the prompt filled the whole context ({} tokens, num_ctx {}); the server may have cut it: {advice}",
                    reply.prompt_eval_count, self.options.num_ctx
                ));
            }
            let mut message = reply.message;
            let parsed = normalize_calls(&mut message.tool_calls, session.turns, self.offered);
            let cut_off = reply.done_reason.as_deref() == Some("length");
            let empty = message.content.trim().is_empty() && message.tool_calls.is_empty();
            session.messages.push(message.clone());
            for (call, (_, notes)) in message.tool_calls.iter().zip(&parsed) {
                if !notes.is_empty() {
                    self.out.note(&format!(
                        "repaired {}: {}",
                        call.function.name,
                        notes.join("; ")
                    ));
                    session.repairs.push(Repair {
                        turn,
                        tool_call_id: call.id.clone().unwrap_or_default(),
                        notes: notes.clone(),
                    });
                }
            }
            if empty && !self.nudged {
                self.nudged = true;
                self.out
                    .warn("the model sent an empty reply; asking it once to go on");
                session.messages.push(Message::text(Role::User, NUDGE));
                self.save(session)?;
                continue;
            }
            if empty {
                self.save(session)?;
                return Err(Error::Server(
                    "the model sent two empty replies in a row; try another model or a clearer prompt".into(),
                ));
            }
            self.nudged = false;
            // Saved before any tool runs: a run killed mid-call leaves the
            // calls on record, and a resumed run answers them as unknown.
            self.save(session)?;
            if message.tool_calls.is_empty() {
                return Ok(Ending::Answered);
            }
            for (call, (arguments, _)) in message.tool_calls.iter().zip(parsed) {
                let id = call.id.clone().unwrap_or_default();
                let name = call.function.name.clone();
                let signature = format!("{name} {}", canonical(&call.function.arguments));
                if self.repeats.0 == signature {
                    self.repeats.1 += 1;
                } else {
                    self.repeats = (signature, 1);
                }
                let repeated = self.repeats.1;
                let content = if repeated >= REPEAT_STOP {
                    session.messages.push(Message::tool_result(
                        &name,
                        &id,
                        "error: not run: the same call again",
                    ));
                    session.answer_unanswered_calls("error: not run: the run was stopped");
                    self.save(session)?;
                    return Ok(Ending::Stuck);
                } else if repeated >= REPEAT_BLOCK {
                    let detail = ToolName::from_name(&name)
                        .and_then(|t| ToolInput::parse(t, &call.function.arguments).ok())
                        .map(|input| input.detail())
                        .unwrap_or_default();
                    self.out
                        .tool_call(turn, &id, &name, &detail, &call.function.arguments);
                    let text = format!(
                        "not run: this is the same call with the same arguments {repeated} times in a row, and its result would not change. Use the results you already have, or take another approach."
                    );
                    self.out.tool_result(turn, &id, &name, false, &text);
                    format!("error: {text}")
                } else if cut_off {
                    self.out
                        .tool_call(turn, &id, &name, "", &call.function.arguments);
                    let text = "not run: the reply was cut off at the length limit, so this call may be incomplete. Make smaller changes, one call at a time.";
                    self.out.tool_result(turn, &id, &name, false, text);
                    format!("error: {text}")
                } else {
                    self.tool_calls += 1;
                    let outcome = self.call(session, &id, &name, arguments).await;
                    if !outcome.ok {
                        session.failed_tool_calls.push(id.clone());
                    }
                    context::cap_output(&outcome.content, context::TOOL_OUTPUT_CAP)
                };
                if content.starts_with("error: not run") {
                    session.failed_tool_calls.push(id.clone());
                }
                session
                    .messages
                    .push(Message::tool_result(&name, &id, content));
            }
            self.save(session)?;
        }
    }

    /// Saves the session, unless `--no-save`.
    fn save(&self, session: &mut Session) -> Result<()> {
        match self.store {
            Some(store) => store.save(session),
            None => Ok(()),
        }
    }

    /// Sends the conversation and streams the reply, printing as it comes.
    async fn stream_reply(&mut self, session: &Session) -> Result<Reply> {
        let fenced_messages;
        let messages = if self.fenced {
            fenced_messages = fenced_wire(&session.messages);
            &fenced_messages
        } else {
            &session.messages
        };
        let request = ChatRequest {
            model: &self.settings.model,
            messages,
            tools: self.schemas,
            stream: true,
            think: self.think,
            options: self.options,
        };
        self.partial = PartialReply::default();
        let mut stream = self.client.chat(&request).await?;
        let mut tool_calls: Vec<ToolCall> = Vec::new();
        let mut native_thinking = String::new();
        let mut filter =
            TextCallFilter::new(self.offered, self.settings.text_tools == TextTools::Auto);
        loop {
            let Some(chunk) = stream.next().await? else {
                return Err(Error::Server(format!(
                    "the /api/chat stream from {} ended before its final `done` chunk; the reply is incomplete and none of its tool calls were run",
                    self.client.host()
                )));
            };
            if let Some(message) = chunk.message {
                if let Some(delta) = message.thinking {
                    self.out.thinking(session.turns, &delta);
                    self.partial.thinking.push_str(&delta);
                    native_thinking.push_str(&delta);
                }
                if let Some(delta) = message.content {
                    self.partial.raw.push_str(&delta);
                    let shown = filter.push(&delta);
                    self.show(session.turns, &shown);
                }
                tool_calls.extend(message.tool_calls.unwrap_or_default());
            }
            if chunk.done {
                let shown = filter.finish();
                self.show(session.turns, &shown);
                let _ = std::mem::take(&mut self.partial);
                let (content, tag_thinking, text_calls) = filter.into_parts();
                let mut thinking = std::mem::take(&mut native_thinking);
                thinking.push_str(&tag_thinking);
                tool_calls.extend(text_calls.into_iter().map(|call| ToolCall {
                    id: None,
                    function: FunctionCall {
                        index: None,
                        name: call.tool.as_str().to_string(),
                        arguments: call.arguments,
                    },
                    recovered: Some(true),
                }));
                return Ok(Reply {
                    message: Message {
                        thinking: (!thinking.is_empty()).then_some(thinking),
                        tool_calls,
                        ..Message::text(Role::Assistant, content)
                    },
                    done_reason: chunk.done_reason,
                    prompt_eval_count: chunk.prompt_eval_count.unwrap_or(0),
                    eval_count: chunk.eval_count.unwrap_or(0),
                });
            }
        }
    }

    /// Validates, settles permission for and runs one call.
    async fn call(
        &mut self,
        session: &mut Session,
        id: &str,
        name: &str,
        arguments: Result<Value, String>,
    ) -> ToolOutcome {
        let turn = session.turns;
        let arguments = match arguments {
            Ok(a) => a,
            Err(message) => {
                self.out.tool_call(turn, id, name, "", &Value::Null);
                return self.report(turn, id, name, ToolOutcome::error(message));
            }
        };
        let Some(tool) = ToolName::from_name(name).filter(|t| self.offered.contains(t)) else {
            let shown = ToolName::from_name(name)
                .and_then(|t| ToolInput::parse(t, &arguments).ok())
                .map(|input| input.detail())
                .unwrap_or_default();
            self.out.tool_call(turn, id, name, &shown, &arguments);
            let message = self.unknown_tool(name);
            if ToolName::from_name(name).is_some() {
                // A real tool this mode does not offer: a refusal by mode.
                self.decide(
                    session,
                    PermissionRecord {
                        turn,
                        tool_call_id: id.to_string(),
                        tool: name.to_string(),
                        detail: shown,
                        allowed: false,
                        source: Source::Mode,
                        rule: None,
                        reason: Some(message.clone()),
                    },
                );
            }
            return self.report(turn, id, name, ToolOutcome::error(message));
        };
        let input = match ToolInput::parse(tool, &arguments) {
            Ok(input) => input,
            Err(message) => {
                self.out.tool_call(turn, id, name, "", &arguments);
                return self.report(turn, id, name, ToolOutcome::error(message));
            }
        };
        let detail = input.detail();
        self.out.tool_call(turn, id, name, &detail, &arguments);
        let decision = PermissionRecord {
            turn,
            tool_call_id: id.to_string(),
            tool: name.to_string(),
            detail: detail.clone(),
            allowed: false,
            source: Source::HardRule,
            rule: None,
            reason: None,
        };
        let mut resolved: Vec<ResolvedPath> = Vec::new();
        for path in input.paths() {
            match self.workspace.resolve(path) {
                Ok(p) => resolved.push(p),
                Err(why) => {
                    self.decide(
                        session,
                        PermissionRecord {
                            reason: Some(why.clone()),
                            ..decision
                        },
                    );
                    let outcome = ToolOutcome::error(format!("refused: {why}"));
                    return self.report(turn, id, name, outcome);
                }
            }
        }
        let request = permissions::Request {
            input: &input,
            paths: &resolved,
            root: self.workspace.root(),
        };
        let verdict = permissions::check(self.settings.permission_mode, &self.rules, &request);
        let exact = permissions::exact_rules(&request);
        // A write or edit that cannot apply fails before anyone is asked.
        let change = if matches!(verdict, Verdict::Deny { .. }) {
            None
        } else {
            match tools::prepare_change(&input, self.workspace, &self.seen) {
                Ok(change) => change,
                Err(message) => return self.report(turn, id, name, ToolOutcome::error(message)),
            }
        };
        let asked = matches!(verdict, Verdict::Ask { .. });
        let (source, rule, denied) = match verdict {
            Verdict::Allow { source, rule } => (source, rule, None),
            Verdict::Deny { source, reason } => (source, None, Some(reason)),
            Verdict::Ask { rule } => {
                let (source, added, denied) =
                    self.ask(name, &detail, change.as_ref(), &exact, rule.as_deref());
                (source, added.or(rule), denied)
            }
        };
        if let Some(reason) = denied {
            self.decide(
                session,
                PermissionRecord {
                    source,
                    rule,
                    reason: Some(reason.clone()),
                    ..decision
                },
            );
            let outcome = ToolOutcome::error(format!("not approved: {reason}"));
            return self.report(turn, id, name, outcome);
        }
        self.decide(
            session,
            PermissionRecord {
                allowed: true,
                source,
                rule,
                ..decision
            },
        );
        let outcome = match change {
            Some(change) => {
                let outcome = change.apply();
                if outcome.ok {
                    self.seen.insert(&change.path.real);
                    // A diff the user just approved is not shown twice.
                    if !outcome.changed.is_empty() && !asked {
                        self.out.diff(&change.unified_diff());
                    }
                }
                outcome
            }
            None => tools::execute(&input, self.workspace, &self.seen).await,
        };
        let mut outcome = outcome;
        if matches!(input, ToolInput::ListFiles(_) | ToolInput::Search(_)) {
            self.hide_denied_paths(&mut outcome);
        }
        if let ToolInput::Bash(_) = input
            && let Some(undone) = self.project_config.restore()
        {
            self.out.warn(&undone);
            outcome.ok = false;
            outcome.content.push_str(&format!("\n[{undone}]"));
        }
        if outcome.ok {
            // What the model now knows the content of: a file it read, or
            // the new place of a file it moved.
            if let (ToolInput::ReadFile(_) | ToolInput::MoveFile(_), Some(path)) =
                (&input, resolved.last())
            {
                self.seen.insert(&path.real);
            }
        }
        for file in &outcome.changed {
            if !self.files_changed.contains(file) {
                self.files_changed.push(file.clone());
            }
        }
        self.report(turn, id, name, outcome)
    }

    /// Runs the `--check` command under the hard and deny rules (it is the
    /// user's own, so it needs no approval).
    async fn run_check(&mut self, command: &str) -> Check {
        let args = tools::bash::Args {
            command: command.to_string(),
            timeout_secs: Some(tools::bash::MAX_TIMEOUT_SECS),
        };
        let input = ToolInput::Bash(args.clone());
        let request = permissions::Request {
            input: &input,
            paths: &[],
            root: self.workspace.root(),
        };
        if let Verdict::Deny { reason, .. } =
            permissions::check(permissions::PermissionMode::Yolo, &self.rules, &request)
        {
            self.out
                .warn(&format!("the check `{command}` was not run: {reason}"));
            return Check {
                command: command.to_string(),
                exit_code: None,
                passed: false,
            };
        }
        self.out.note(&format!("running the check `{command}`"));
        let (outcome, code) = tools::bash::run_with_status(&args, self.workspace).await;
        let passed = code == Some(0);
        let message = format!("the check `{command}`: {}", outcome.summary);
        if passed {
            self.out.note(&message);
        } else {
            self.out.warn(&message);
        }
        Check {
            command: command.to_string(),
            exit_code: code,
            passed,
        }
    }

    /// Shows filtered text and keeps it in case the reply is cut short.
    fn show(&mut self, turn: u32, shown: &Filtered) {
        if !shown.thinking.is_empty() {
            self.out.thinking(turn, &shown.thinking);
            self.partial.thinking.push_str(&shown.thinking);
        }
        if !shown.content.is_empty() {
            self.out.content(turn, &shown.content);
        }
    }

    /// Drops the lines of a `list_files` or `search` result whose path a
    /// deny rule keeps from being read: a denied file must not show up in a
    /// listing or a search either.
    fn hide_denied_paths(&self, outcome: &mut ToolOutcome) {
        let denies: Vec<&Rule> = self
            .rules
            .iter()
            .filter(|r| {
                r.action == Action::Deny
                    && (r.covers(ToolName::ReadFile)
                        || r.covers(ToolName::Search)
                        || r.covers(ToolName::ListFiles))
            })
            .collect();
        if denies.is_empty() {
            return;
        }
        let mut hidden = 0;
        let kept: Vec<&str> = outcome
            .content
            .lines()
            .filter(|line| {
                let path = line.split(':').next().unwrap_or(line);
                let denied =
                    !line.starts_with('(') && denies.iter().any(|r| r.matches_path(path, false));
                hidden += usize::from(denied);
                !denied
            })
            .collect();
        if hidden > 0 {
            outcome.content = format!("{}\n({hidden} lines hidden by deny rules)", kept.join("\n"));
        }
    }

    /// Records a permission decision in the session and the output.
    fn decide(&mut self, session: &mut Session, record: PermissionRecord) {
        self.out.permission(&record);
        session.permissions.push(record);
    }

    fn unknown_tool(&self, name: &str) -> String {
        let available: Vec<&str> = self.offered.iter().map(|t| t.as_str()).collect();
        let available = if available.is_empty() {
            "none: answer in text".to_string()
        } else {
            available.join(", ")
        };
        match ToolName::from_name(name) {
            Some(_) if self.settings.mode == Mode::Plan => format!(
                "`{name}` is not available in plan mode (read-only); available tools: {available}"
            ),
            _ => format!("there is no tool `{name}`; available tools: {available}"),
        }
    }

    /// Shows a result and returns it with secret values scrubbed: nothing
    /// the model sees, or the session keeps, holds them.
    fn report(&mut self, turn: u32, id: &str, name: &str, mut outcome: ToolOutcome) -> ToolOutcome {
        if let Cow::Owned(clean) = self.secrets.scrub(&outcome.content) {
            outcome.content = clean;
        }
        if let Cow::Owned(clean) = self.secrets.scrub(&outcome.summary) {
            outcome.summary = clean;
        }
        self.out
            .tool_result(turn, id, name, outcome.ok, &outcome.summary);
        outcome
    }

    /// Asks the approver. Returns who decided, the rule added by an
    /// "always" answer, and for a denial, why.
    fn ask(
        &mut self,
        name: &str,
        detail: &str,
        change: Option<&tools::FileChange>,
        exact: &[String],
        ask_rule: Option<&str>,
    ) -> (Source, Option<String>, Option<String>) {
        let request = ApprovalRequest {
            tool: name.to_string(),
            detail: detail.to_string(),
            diff: change.map(|c| c.unified_diff()),
            always_rules: if ask_rule.is_some() {
                Vec::new()
            } else {
                exact.to_vec()
            },
        };
        match self.approver.approve(&request) {
            Approval::Yes => (Source::User, None, None),
            Approval::Always => {
                let added = exact.join(", ");
                for text in exact {
                    match Rule::parse(Action::Allow, text) {
                        Ok(rule) => self.rules.push(rule),
                        Err(e) => self.out.warn(&e),
                    }
                    let added =
                        permissions::project_config::add_allow_rule(self.workspace.root(), text);
                    self.project_config.accept();
                    match added {
                        Ok(path) => self
                            .out
                            .note(&format!("added `allow {text}` to `{}`", path.display())),
                        Err(e) => self.out.warn(&format!("{e:#}")),
                    }
                }
                (Source::User, Some(added), None)
            }
            Approval::No { reason: Some(r) } => (
                Source::User,
                None,
                Some(format!("the user declined this call: {r}")),
            ),
            Approval::No { reason: None } => (
                Source::User,
                None,
                Some("the user declined this call".to_string()),
            ),
            Approval::Unavailable => {
                let flags = permissions::allow_flags(exact);
                self.denials.push(Denial {
                    tool: name.to_string(),
                    detail: detail.to_string(),
                    allow: match ask_rule {
                        Some(rule) => format!("the rule `ask {rule}` needs a terminal"),
                        None => flags.clone(),
                    },
                });
                let how = match ask_rule {
                    Some(rule) => format!(
                        "the rule `ask {rule}` requires approval and no one is at a terminal to give it. \
                         Only a person at a terminal can allow it"
                    ),
                    None => format!(
                        "`{name}` needs approval and no one is at a terminal to give it. \
                         The user can allow it by re-running with `--yes` or `{flags}`"
                    ),
                };
                let reason = format!(
                    "{how}. Do not retry it; go on without it, or finish and say what is needed"
                );
                (Source::NoApprover, None, Some(reason))
            }
        }
    }
}

/// Gives every call an id (`call_<turn>_<n>` when the server sent none),
/// repairs its name and arguments where that is unambiguous, and turns
/// `arguments` into a JSON object, which is what goes back on the wire.
/// Returns, per call, the arguments to run with (or the error for the model
/// when they were not usable; the wire then carries `{}`) and the repairs.
fn normalize_calls(
    calls: &mut [ToolCall],
    turn: u32,
    offered: &[ToolName],
) -> Vec<(Result<Value, String>, Vec<String>)> {
    calls
        .iter_mut()
        .enumerate()
        .map(|(n, call)| {
            if call.id.as_deref().is_none_or(str::is_empty) {
                call.id = Some(format!("call_{turn}_{n}"));
            }
            let mut notes = Vec::new();
            let tool = text_calls::repair_name(&call.function.name, offered);
            if let Some(tool) = tool.filter(|t| t.as_str() != call.function.name) {
                notes.push(format!("name `{}` read as `{}`", call.function.name, tool.as_str()));
                call.function.name = tool.as_str().to_string();
            }
            let mut arguments = std::mem::take(&mut call.function.arguments);
            if let Some(tool) = tool {
                let (repaired, repairs) = tools::lenient::repair(tool, arguments);
                arguments = repaired;
                notes.extend(repairs);
            }
            let parsed = match arguments {
                Value::Object(map) => Ok(Value::Object(map)),
                Value::Null => Ok(Value::Object(Default::default())),
                Value::String(text) => match serde_json::from_str::<Value>(&text) {
                    Ok(Value::Object(map)) => Ok(Value::Object(map)),
                    Ok(_) => Err(format!(
                        "the arguments of `{}` were the string {text:?}, which is not a JSON object; send an object such as {}",
                        call.function.name,
                        example(&call.function.name)
                    )),
                    Err(e) => Err(format!(
                        "the arguments of `{}` were a string that is not valid JSON ({e}); send an object such as {}",
                        call.function.name,
                        example(&call.function.name)
                    )),
                },
                other => Err(format!(
                    "the arguments of `{}` must be a JSON object, not {other}; send an object such as {}",
                    call.function.name,
                    example(&call.function.name)
                )),
            };
            call.function.arguments = match &parsed {
                Ok(value) => value.clone(),
                Err(_) => Value::Object(Default::default()),
            };
            (parsed, notes)
        })
        .collect()
}

/// `value` as JSON with object keys sorted: the same arguments in another
/// order give the same text.
fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// The conversation as a model without native tool calling sees it: its
/// calls as the ```tool fences it wrote, their results as user messages in
/// a fixed frame. Deterministic, so the prefix stays byte-stable.
fn fenced_wire(messages: &[Message]) -> Vec<Message> {
    messages
        .iter()
        .map(|m| match m.role {
            Role::Assistant if !m.tool_calls.is_empty() => {
                let mut content = m.content.trim_end().to_string();
                for call in &m.tool_calls {
                    let body = serde_json::json!({
                        "name": call.function.name,
                        "arguments": call.function.arguments,
                    });
                    if !content.is_empty() {
                        content.push('\n');
                    }
                    content.push_str(&format!("```tool\n{body}\n```"));
                }
                Message {
                    tool_calls: Vec::new(),
                    ..Message::text(Role::Assistant, content)
                }
            }
            Role::Tool => Message::text(
                Role::User,
                format!(
                    "[result of {} {}]\n{}",
                    m.tool_name.as_deref().unwrap_or("tool"),
                    m.tool_call_id.as_deref().unwrap_or(""),
                    m.content
                ),
            ),
            Role::System | Role::User | Role::Assistant => m.clone(),
        })
        .collect()
}

fn example(name: &str) -> String {
    ToolName::from_name(name).map_or_else(|| "{\"key\": \"value\"}".to_string(), tools::signature)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: Option<&str>, name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: id.map(str::to_string),
            function: FunctionCall {
                index: None,
                name: name.into(),
                arguments,
            },
            recovered: None,
        }
    }

    #[test]
    fn arguments_become_objects_ids_are_filled_and_repairs_noted() {
        let mut calls = vec![
            call(Some("call_a"), "read_file", json!({"path": "a"})),
            call(None, "read_file", json!("{\"path\": \"b\"}")),
            call(Some(""), "read_file", json!("{not json")),
            call(None, "read_file", json!([1])),
            call(None, "read_file", Value::Null),
            call(
                None,
                "Functions.Read_File",
                json!({"path": {"type": "string", "value": "c"}, "limit": "5"}),
            ),
        ];
        let parsed = normalize_calls(&mut calls, 3, &ToolName::ALL);
        assert_eq!(parsed[0], (Ok(json!({"path": "a"})), vec![]));
        assert_eq!(parsed[1].0, Ok(json!({"path": "b"})));
        assert!(parsed[2].0.as_ref().unwrap_err().contains("not valid JSON"));
        assert!(
            parsed[3]
                .0
                .as_ref()
                .unwrap_err()
                .contains("must be a JSON object")
        );
        assert_eq!(parsed[4].0, Ok(json!({})));
        assert_eq!(parsed[5].0, Ok(json!({"path": "c", "limit": 5})));
        assert_eq!(parsed[5].1.len(), 3, "{:?}", parsed[5].1);
        assert_eq!(calls[5].function.name, "read_file");
        let ids: Vec<_> = calls.iter().map(|c| c.id.clone().unwrap()).collect();
        assert_eq!(
            ids,
            [
                "call_a", "call_3_1", "call_3_2", "call_3_3", "call_3_4", "call_3_5"
            ]
        );
        assert!(calls.iter().all(|c| c.function.arguments.is_object()));
    }

    #[test]
    fn canonical_arguments_ignore_key_order() {
        assert_eq!(
            canonical(&json!({"b": 1, "a": {"d": 2, "c": 3}})),
            canonical(&json!({"a": {"c": 3, "d": 2}, "b": 1}))
        );
    }

    #[test]
    fn fenced_wire_turns_calls_into_fences_and_results_into_user_messages() {
        let mut assistant = Message::text(Role::Assistant, "Looking.");
        assistant.tool_calls = vec![call(Some("call_1"), "list_files", json!({"pattern": "*"}))];
        let messages = vec![
            assistant,
            Message::tool_result("list_files", "call_1", "a.py"),
        ];
        let wire = fenced_wire(&messages);
        assert_eq!(
            wire[0].content,
            "Looking.\n```tool\n{\"name\":\"list_files\",\"arguments\":{\"pattern\":\"*\"}}\n```"
        );
        assert!(wire[0].tool_calls.is_empty());
        assert_eq!(wire[1].role, Role::User);
        assert_eq!(wire[1].content, "[result of list_files call_1]\na.py");
    }
}
