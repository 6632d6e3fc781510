//! The agent (SPEC §5): one run from the prompt to its end. [`run`] tells
//! the story; the parts live beside it: [`setup`] (workspace, model
//! capabilities, session), [`turns`] (the loop), [`calls`] (one call under
//! policy), [`guards`] (repeats, empty replies, cut-offs), [`normalize`]
//! (call repair), [`check`] (`--check`), [`ending`] (status and exit code).

pub mod calls;
pub mod check;
pub mod check_command;
pub mod compaction;
pub mod context;
pub mod docstrings;
pub mod dry_run;
pub mod edits;
pub mod ending;
pub mod excerpts;
pub mod file_kind;
pub mod grounding;
pub mod guards;
pub mod interrupt;
pub mod normalize;
pub mod opening;
pub mod prompt;
pub mod relevance;
pub mod repetition;
pub mod reply;
pub mod repo_map;
pub mod room;
pub mod route;
pub mod setup;
pub mod steps;
pub mod structured;
pub mod text_calls;
pub mod traceback;
pub mod turns;
pub mod usage;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::checkpoint::Checkpoint;
use crate::client::{Message, ModelInfo};
use crate::config::Settings;
use crate::error::{Error, ExitStatus, Result};
use crate::permissions::Approver;
use crate::protocol::{RunSummary, SCHEMA_VERSION};
use crate::session::{FinetuneRecord, Session, Status, Store, Trajectory, Usage};
use crate::signals::Signals;
use crate::ui::Output;
use crate::vocab::Confinement;
use calls::CallRunner;
use check::CheckPlan;
use edits::Protocol;
use ending::Ending;
use interrupt::Interruptions;
use setup::ModelSetup;
use turns::Turns;

pub use dry_run::dry_run;

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
    /// `--check`: run when the model says it is done; its failures go back
    /// to the model, and the run succeeds only when it passes.
    pub check: Option<CheckPlan>,
    /// Images for the prompt (`--image`): Ollama `images` entries (base64).
    pub images: Vec<String>,
    /// `--output-schema`: the answer must be one JSON value it accepts.
    pub output_schema: Option<structured::OutputSchema>,
    /// The workspace as the run found it, for `oc undo`; `None` for a run
    /// that changes nothing or is not saved.
    pub checkpoint: Option<Checkpoint>,
    /// `--on-fail revert`: a failed run puts the checkpoint back.
    pub revert_on_fail: bool,
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
        out.note("the prompt asks for an answer: files are shown for reference and none changes (`--task change` to edit)");
    }
    let mut model = ModelSetup::from_capabilities(&info, settings, task, out);
    if let Some(schema) = schema {
        model = model.held_to(schema.schema.clone());
    }
    let store = Store::new(&settings.home);
    let resumed = job.resume.is_some();
    let mut session =
        setup::open_session(settings, job.resume, &job.prompt, &model, &workspace, out);
    if job.save {
        store.save(&mut session)?;
    }
    out.session_started(&session, resumed);
    let (first_turn, usage_before) = (session.turns, session.usage);

    let protocol = model.protocol(workspace.root());
    let calls = CallRunner::new(settings, &workspace, protocol.runnable(), approver);
    let saves = job.save.then_some(&store);
    let mut turns = Turns::new(
        settings, &client, &model, saves, first_turn, protocol, calls,
    );
    turns.check = job.check.as_ref();
    // The opening runs the check before the first request: a signal or
    // `--timeout` stops it as it stops the turns.
    let opened_and_ran = async {
        turns.open(&mut session, job.prompt, job.images, out).await;
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
        store: saves,
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

/// Saves the session and appends its fine-tuning record (`trajectory`:
/// the conversation as the model saw it); a failure is a warning, as the
/// run itself is over.
pub fn save_with_record(
    store: &Store,
    session: &mut Session,
    schemas: &[Value],
    trajectory: Trajectory,
    out: &mut dyn Output,
) {
    let record = FinetuneRecord::from_session(session, schemas, trajectory);
    let saved = store
        .save(session)
        .and_then(|()| store.append_finetune(&record));
    if let Err(e) = saved {
        out.warn(&format!("{e:#}"));
    }
}

/// Records in the session what the run changed (for `oc undo`); with
/// `--on-fail revert` and a failed run, puts it back at once. Returns the
/// files put back. A checkpoint that cannot be finished or put back is a
/// warning: the run is over.
pub fn settle_checkpoint(
    checkpoint: Option<&Checkpoint>,
    revert_on_fail: bool,
    session: &mut Session,
    exit: ExitStatus,
    out: &mut dyn Output,
) -> Vec<String> {
    // The record describes this run; a run without one cannot be undone,
    // and an earlier run's record must not stand for it.
    session.checkpoint = None;
    let Some(checkpoint) = checkpoint else {
        return Vec::new();
    };
    let mut record = match checkpoint.finish() {
        Ok(record) => record,
        Err(why) => {
            out.warn(&format!(
                "the run's changes cannot be recorded for `oc undo`: {why}"
            ));
            return Vec::new();
        }
    };
    let mut reverted = Vec::new();
    if revert_on_fail && exit != ExitStatus::Success && !record.changes.is_empty() {
        let root = Path::new(&session.cwd);
        let undone = crate::checkpoint::plan(&record, root, false)
            .and_then(|plan| crate::checkpoint::undo(&record, root, &plan).map(|()| plan));
        match undone {
            Ok(plan) => {
                let left: Vec<&str> = plan.refused().into_iter().chain(plan.blocked()).collect();
                if !left.is_empty() {
                    out.warn(&format!(
                        "--on-fail revert left alone (changed meanwhile, or a folder on their path is now a link or a file): {}",
                        left.join(", ")
                    ));
                }
                reverted = (plan.steps.iter())
                    .filter_map(|step| match step {
                        crate::checkpoint::Step::Restore(p)
                        | crate::checkpoint::Step::Remove(p) => Some(p.clone()),
                        _ => None,
                    })
                    .collect();
                record.undone_at = Some(crate::session::now_rfc3339());
                out.warn(&format!(
                    "--on-fail revert: the run failed (exit {}); put back {} as the run found {}",
                    exit.code(),
                    reverted.join(", "),
                    if reverted.len() == 1 { "it" } else { "them" }
                ));
            }
            Err(why) => out.warn(&format!(
                "--on-fail revert could not put the files back: {why}"
            )),
        }
    }
    session.checkpoint = Some(record);
    reverted
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

/// Writes the final answer to `-o FILE` (nothing when there is none).
/// Returns the exit status: a run that would succeed fails when the file
/// cannot be written, as a script waiting for it must not see success.
pub fn write_last_message(
    path: &Path,
    text: &str,
    exit: ExitStatus,
    out: &mut dyn Output,
) -> ExitStatus {
    if text.is_empty() {
        return exit;
    }
    let mut text = text.to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    match crate::fsutil::write_atomic(path, text.as_bytes(), 0o666) {
        Ok(()) => exit,
        Err(e) => {
            out.error(&format!(
                "cannot write the last message to `{}`: {e}",
                path.display()
            ));
            match exit {
                ExitStatus::Success | ExitStatus::Denied => ExitStatus::Failure,
                other => other,
            }
        }
    }
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
