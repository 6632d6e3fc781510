//! The agent (ARCHITECTURE.md): one run from the prompt to its end. [`run`] tells
//! the story; the parts live beside it: [`setup`] (workspace, model
//! capabilities, session), [`turns`] (the loop), [`calls`] (one call under
//! policy), [`guards`] (repeats, empty replies, cut-offs), [`normalize`]
//! (call repair), [`check`] (`--check`), [`ending`] (status and exit code).

pub(crate) mod answer;
pub(crate) mod calls;
pub(crate) mod cannot_run;
pub(crate) mod check;
pub(crate) mod check_command;
pub(crate) mod compaction;
pub(crate) mod context;
pub(crate) mod docstrings;
pub(crate) mod dry_run;
pub(crate) mod edits;
pub(crate) mod ending;
pub(crate) mod excerpts;
pub(crate) mod file_kind;
pub(crate) mod grounding;
pub(crate) mod guards;
pub(crate) mod lexical;
pub(crate) mod normalize;
pub(crate) mod opening;
pub(crate) mod prompt;
pub(crate) mod relevance;
pub(crate) mod repetition;
pub(crate) mod reply;
pub(crate) mod repo_map;
pub(crate) mod room;
pub(crate) mod route;
pub(crate) mod setup;
pub(crate) mod spectrum;
pub(crate) mod structured;
pub(crate) mod test_commands;
pub(crate) mod text_calls;
pub(crate) mod traceback;
pub(crate) mod turns;
pub(crate) mod usage;

use std::path::Path;
use std::time::Instant;

use serde_json::Value;

use crate::checkpoint::Checkpoint;
use crate::client::{Message, ModelInfo};
use crate::config::Settings;
use crate::error::{Error, ExitStatus, Result};
use crate::permissions::Approver;
use crate::protocol::{RunSummary, SCHEMA_VERSION};
use crate::run::interrupt::Interruptions;
use crate::run::{Job, save_with_record, settle_checkpoint, steps, write_last_message};
use crate::session::{Journal, Session, Status, Store, Usage};
use crate::signals::Signals;
use crate::ui::Output;
use crate::vocab::Confinement;
use calls::CallRunner;
use edits::Protocol;
use ending::Ending;
use setup::ModelSetup;
use turns::Turns;

pub(crate) use dry_run::dry_run;

/// Runs one agent session to its end and returns the exit status.
///
/// Errors: only those before the session exists: an unusable workspace
/// (exit 2), server unreachable or model missing (exit 3). A failure later
/// is reported through `out`, saved with the session, and returned as
/// [`ExitStatus::Failure`].
pub(crate) async fn run(
    settings: &Settings,
    job: Job,
    approver: &mut dyn Approver,
    out: &mut dyn Output,
) -> Result<ExitStatus> {
    let started = Instant::now();
    let mut interruptions = Interruptions::new(Signals::install()?.watch(), job.timeout);
    let client = settings.model_client()?;
    let workspace = setup::run_workspace(settings, out)?;
    let info = tokio::select! {
        info = client.show(&settings.model) => info?,
        stop = interruptions.next() => return Err(Error::Stopped {
            status: stop.exit_status(),
            message: format!("{} before the run started", stop.describe()),
        }),
    };
    check_vision(&job, &info, settings)?;
    let schema = job.output_schema.as_ref();
    let task = match schema {
        Some(_) => crate::vocab::Task::Answer,
        None => route::decide(settings.task, settings.mode, &job.prompt),
    };
    if settings.mode == crate::vocab::Mode::Code && task == crate::vocab::Task::Answer {
        route::say_answer(settings.task, &job.prompt, out);
    }
    let mut model = ModelSetup::from_capabilities(&info, settings, task, out);
    if let Some(schema) = schema {
        model = model.held_to(schema.schema.clone());
    }
    let store = Store::new(&settings.home);
    let resumed = job.resume.is_some();
    let opened = setup::open_session(settings, job.resume, &job.prompt, &model, &workspace, out);
    let mut session = Journal::open(opened, job.save.then_some(&store))?;
    session.task = Some(task);
    out.session_started(&session, resumed);
    let (first_turn, usage_before) = (session.turns, session.usage);

    let protocol = model.protocol(workspace.root());
    let calls = CallRunner::new(settings, &workspace, protocol.runnable(), approver);
    let mut turns = Turns::new(settings, &client, &model, first_turn, protocol, calls);
    turns.check = job.check.as_ref();
    // The opening runs the check before the first request: a signal or
    // `--timeout` stops it as it stops the turns.
    let opened_and_ran = async {
        if let Err(why) = turns.open(&mut session, job.prompt, job.images, out).await {
            return Ok((Ending::CheckUnrunnable(why), None));
        }
        if let Some(schema) = schema {
            structured::instruct(&mut session, schema);
        }
        structured::run_to_answer(&mut turns, &mut session, schema, out).await
    };
    let (mut ending, structured_output) = tokio::select! {
        result = opened_and_ran => result.unwrap_or_else(|e| (Ending::Failed(e), None)),
        stop = interruptions.next() => (Ending::Interrupted(stop), None),
    };
    if let Ending::Interrupted(stop) = &ending {
        out.warn(&format!("{}; saving the session", stop.describe()));
        turns.keep_partial_reply(&mut session);
        session.answer_unanswered_calls("interrupted: result unknown");
    }
    let attempts = turns.check_runs() + 1;
    let context = turns.context(&session);
    let speed = turns.speed();
    let schemas = turns.model.wire_schemas().to_vec();
    let protocol = turns.protocol;
    let calls = turns.calls;
    if let Some(plan) = job.check.as_ref().filter(|_| ending.runs_final_check()) {
        let (rules, ws) = (calls.rules(), &workspace);
        let check = check::run_final(
            plan,
            attempts,
            rules,
            ws,
            &mut interruptions,
            &mut session,
            out,
        );
        if let Some(stop) = check.await {
            ending = Ending::Interrupted(stop);
        }
    }
    let close = Close {
        context,
        speed,
        started,
        first_turn,
        usage_before,
        max_turns: settings.max_turns,
        store: session.store(),
        schemas: &schemas,
        protocol: &protocol,
        last_message_file: job.last_message_file.as_deref(),
        structured_output,
        checkpoint: job.checkpoint.as_ref(),
        revert_on_fail: job.revert_on_fail,
    };
    Ok(close.run(&mut session, &ending, calls, out))
}

/// The end of a run: its verdict, the `-o` file, the saved session and
/// record, and the summary.
struct Close<'a> {
    /// The conversation's tokens at the end.
    context: crate::protocol::Context,
    speed: crate::protocol::Speed,
    started: Instant,
    /// The session's turns and tokens before this run.
    first_turn: u32,
    usage_before: Usage,
    max_turns: u32,
    /// `None` with `--no-save`.
    store: Option<&'a Store>,
    /// The tool schemas as sent (none in the text formats).
    schemas: &'a [Value],
    /// How the conversation went on the wire, for the record.
    protocol: &'a Protocol,
    last_message_file: Option<&'a Path>,
    /// The answer's JSON value, validated against `--output-schema`.
    structured_output: Option<Value>,
    checkpoint: Option<&'a Checkpoint>,
    revert_on_fail: bool,
}

impl Close<'_> {
    fn run(
        &self,
        session: &mut Session,
        ending: &Ending,
        calls: CallRunner<'_>,
        out: &mut dyn Output,
    ) -> ExitStatus {
        let denied = !calls.denials.is_empty();
        let (status, reason, mut exit) =
            ending.verdict(self.max_turns, denied, session.check.as_ref());
        if session.status == Status::Running {
            session.status = status;
            session.exit_reason = Some(reason);
        }
        let (final_text, summarized) = final_text(session, &calls.files_changed);
        // With `--output-schema`, `-o` gets the JSON value, as stdout does.
        let answer = match &self.structured_output {
            Some(value) => value.to_string(),
            None => final_text.clone(),
        };
        if summarized {
            // The reply was only file blocks: stdout says what `-o` and
            // the json `final_text` say.
            out.content(session.turns, &format!("{final_text}\n"));
        }
        // Only an answer is written: a run stopped short has none, whatever
        // text its last reply had.
        if let Some(path) = self
            .last_message_file
            .filter(|_| matches!(ending, Ending::Answered | Ending::EditingDone))
        {
            exit = write_last_message(path, &answer, exit, out);
        }
        session.exit_code = Some(exit.code());
        let reverted = settle_checkpoint(self.checkpoint, self.revert_on_fail, session, exit, out);
        if let Some(store) = self.store {
            let wire = |messages: &[Message]| self.protocol.wire(messages).into_owned();
            let trajectory = steps::trajectory(session, &wire);
            save_with_record(store, session, self.schemas, trajectory, out);
        }
        ending.explain(session.turns - self.first_turn, out);
        out.session_completed(&RunSummary {
            schema_version: SCHEMA_VERSION,
            session_id: session.id.clone(),
            saved: self.store.is_some(),
            status: session.status,
            task: session.task,
            exit_reason: session.exit_reason.clone().unwrap_or_default(),
            exit_code: exit.code(),
            final_text,
            turns: session.turns - self.first_turn,
            usage: Usage {
                prompt_tokens: session.usage.prompt_tokens - self.usage_before.prompt_tokens,
                completion_tokens: session.usage.completion_tokens
                    - self.usage_before.completion_tokens,
            },
            session_turns: session.turns,
            session_usage: session.usage,
            context: self.context,
            speed: self.speed,
            tool_calls: calls.tool_calls,
            files_changed: calls.files_changed,
            permission_denials: calls.denials,
            cut_replies: (session.cut_replies.iter())
                .filter(|c| c.turn > self.first_turn)
                .cloned()
                .collect(),
            truncated_turns: (session.truncated_turns.iter())
                .filter(|&&turn| turn > self.first_turn)
                .copied()
                .collect(),
            reverted,
            check: session.check.clone(),
            precheck: session.precheck.clone(),
            structured_output: self.structured_output.clone(),
            sandbox: session.sandbox.clone().unwrap_or(Confinement::NONE),
            duration_ms: u64::try_from(self.started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        exit
    }
}

/// The last assistant message's text; when it has none (its reply was only
/// file blocks) and files changed, which ones, and `true`: the text is a
/// summary made here, not yet shown.
fn final_text(session: &Session, files_changed: &[String]) -> (String, bool) {
    let text = session
        .last_assistant()
        .map(|m| m.content.clone())
        .unwrap_or_default();
    if text.trim().is_empty() && !files_changed.is_empty() {
        return (format!("Changed {}.", files_changed.join(", ")), true);
    }
    (text, false)
}

/// A run with images (attached, or in the resumed conversation) needs a
/// model with the `vision` capability.
///
/// Errors: [`Error::Usage`] naming the model's capabilities.
fn check_vision(job: &Job, info: &ModelInfo, settings: &Settings) -> Result<()> {
    let resumed_images = (job.resume.iter())
        .flat_map(|s| &s.messages)
        .any(|m| !m.images.is_empty());
    if (job.images.is_empty() && !resumed_images) || info.has("vision") {
        return Ok(());
    }
    let culprit = if job.images.is_empty() {
        "the session goes on from messages with images"
    } else {
        "`--image` needs `vision`"
    };
    Err(Error::Usage(format!(
        "model `{}` cannot see images (its capabilities: {}; {culprit}); pick a vision model (`oc models` lists capabilities), or drop `--image` (a session with images goes on only with a vision model)",
        settings.model,
        info.capabilities.join(", ")
    )))
}
