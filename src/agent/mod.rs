//! The agent (ARCHITECTURE.md): one run from the prompt to its end. [`run`] tells
//! the story; the parts live beside it: [`setup`] (workspace, model
//! capabilities, session), [`turns`] (the loop), [`calls`] (one call under
//! policy), [`guards`] (repeats, empty replies, cut-offs), [`normalize`]
//! (call repair), [`check`] (`--check`), [`ending`] (status and exit code).

pub(crate) mod answer;
pub(crate) mod attempts;
pub(crate) mod calls;
pub(crate) mod cannot_run;
pub(crate) mod check;
pub(crate) mod check_command;
pub(crate) mod close;
pub(crate) mod compaction;
pub(crate) mod context;
pub(crate) mod docstrings;
pub(crate) mod dry_run;
pub(crate) mod edits;
pub(crate) mod ending;
pub(crate) mod excerpts;
pub(crate) mod failing_tests;
pub(crate) mod file_kind;
pub(crate) mod grounding;
pub(crate) mod guards;
pub(crate) mod lexical;
pub(crate) mod normalize;
pub(crate) mod opening;
pub(crate) mod prompt;
pub(crate) mod relevance;
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

use std::time::Instant;

use crate::client::{ModelClient, ModelInfo};
use crate::config::Settings;
use crate::error::{Error, ExitStatus, Result};
use crate::job::Job;
use crate::job::interrupt::Interruptions;
use crate::permissions::Approver;
use crate::session::{Attempt, Journal, Store};
use crate::signals::Signals;
use crate::tools::Workspace;
use crate::ui::Output;
use crate::vocab::Task;
use calls::CallRunner;
use close::{Close, Closed};
use ending::Ending;
use setup::ModelSetup;
use turns::Turns;

pub(crate) use dry_run::dry_run;

/// Runs the job to its end and returns the exit status: one try, or with
/// `--attempts` fresh tries until one passes the check ([`attempts`]).
///
/// Errors: only those before the session exists: an unusable workspace
/// (exit 2), server unreachable or model missing (exit 3). A failure later
/// is reported through `out`, saved with the session, and returned as
/// [`ExitStatus::Failure`].
pub(crate) async fn run(
    settings: &Settings,
    mut job: Job,
    approver: &mut dyn Approver,
    out: &mut dyn Output,
) -> Result<ExitStatus> {
    let started = Instant::now();
    let mut interruptions = Interruptions::new(Signals::install()?.watch(), job.timeout);
    let client = settings.model_client()?;
    let workspace = setup::run_workspace(settings, out)?;
    let tries = attempts::Tries::new(settings, job.attempts);
    // Every model of the run is asked for before the first try: a missing
    // fallback model is found before any work is paid for.
    let infos = tokio::select! {
        infos = tries.model_infos(&client) => infos?,
        stop = interruptions.next() => return Err(Error::Stopped {
            status: stop.exit_status(),
            message: format!("{} before the run started", stop.describe()),
        }),
    };
    for info in &infos {
        check_vision(&job, info, settings)?;
    }
    let task = match job.output_schema {
        Some(_) => crate::vocab::Task::Answer,
        None => route::decide(
            settings.task,
            settings.mode,
            &job.prompt,
            settings.enabled(crate::heuristics::Heuristic::Route),
        ),
    };
    let task_warning =
        if settings.mode == crate::vocab::Mode::Code && task == crate::vocab::Task::Answer {
            route::say_answer(settings.task, &job.prompt, out)
        } else {
            None
        };
    let mut tried = attempts::Tried::default();
    for number in 1..=tries.count {
        let try_settings = tries.settings(number, tried.turns());
        let one = OneTry {
            settings: &try_settings,
            info: &infos[tries.model_index(number)],
            client: &client,
            workspace: &workspace,
            task,
            task_warning: task_warning.clone(),
            attempt: tries.mark(number, tried.run_id()),
            retry: number < tries.count,
        };
        let closed = one
            .attempt(&mut job, &mut interruptions, approver, out)
            .await?;
        let set_aside = closed.set_aside;
        tried.push(closed, try_settings.model, number, tries.count, out);
        // `--max-turns` counts the requests of every try.
        if !set_aside || tried.turns() >= settings.max_turns {
            break;
        }
    }
    let store = Store::new(&settings.home);
    Ok(tried.finish(&job, job.save.then_some(&store), started, out))
}

/// One try at the job: its session, its turns, its check, its end.
struct OneTry<'a> {
    /// The run's settings with this try's model, seed and turns left.
    settings: &'a Settings,
    info: &'a ModelInfo,
    client: &'a ModelClient,
    workspace: &'a Workspace,
    task: Task,
    /// Why the task may not be what the prompt meant (a guessed answer).
    task_warning: Option<String>,
    /// Which try this is, when the run has several.
    attempt: Option<Attempt>,
    /// Another try follows if this one fails its check.
    retry: bool,
}

impl OneTry<'_> {
    /// Runs the try to its end: its session saved, its checkpoint settled
    /// (or its changes set aside for the next try).
    ///
    /// Errors: the session file cannot be written at its start.
    async fn attempt(
        &self,
        job: &mut Job,
        interruptions: &mut Interruptions,
        approver: &mut dyn Approver,
        out: &mut dyn Output,
    ) -> Result<Closed> {
        let (settings, workspace) = (self.settings, self.workspace);
        let started = Instant::now();
        let schema = job.output_schema.as_ref();
        let mut model = ModelSetup::from_capabilities(self.info, settings, self.task, out);
        if let Some(schema) = schema {
            model = model.held_to(schema.schema.clone());
        }
        let store = Store::new(&settings.home);
        let resume = job.resume.take();
        let mut session = self.session(resume, job, &model, &store, out)?;
        let (first_turn, usage_before) = (session.turns, session.usage);

        let protocol = model.protocol(workspace.root(), settings.heuristics);
        let calls = CallRunner::new(settings, workspace, protocol.runnable(), approver);
        let mut turns = Turns::new(settings, self.client, &model, first_turn, protocol, calls);
        turns.check = job.check.as_ref();
        let (prompt, images) = (job.prompt.clone(), job.images.clone());
        // The opening runs the check before the first request: a signal or
        // `--timeout` stops it as it stops the turns.
        let opened_and_ran = async {
            if let Err(why) = turns.open(&mut session, prompt, images, out).await {
                return Ok((Ending::CheckUnrunnable(why), None));
            }
            if let Some(schema) = schema {
                structured::instruct(session.unsaved(), schema);
            }
            structured::run_to_answer(&mut turns, &mut session, schema, out).await
        };
        let (mut ending, structured_output) = tokio::select! {
            result = opened_and_ran => result.unwrap_or_else(|e| (Ending::Failed(e), None)),
            stop = interruptions.next() => (Ending::Interrupted(stop), None),
        };
        if let Ending::Interrupted(stop) = &ending {
            out.warn(&format!("{}; saving the session", stop.describe()));
            turns.keep_partial_reply(session.unsaved());
            session
                .unsaved()
                .answer_unanswered_calls("interrupted: result unknown");
        }
        let attempts = turns.check_runs() + 1;
        let context = turns.context(&session);
        let speed = turns.speed();
        let schemas = turns.model.wire_schemas().to_vec();
        let protocol = turns.protocol;
        let calls = turns.calls;
        if let Some(plan) = job.check.as_ref().filter(|_| ending.runs_final_check()) {
            let (rules, ws) = (calls.rules(), workspace);
            let check = check::run_final(
                plan,
                attempts,
                rules,
                ws,
                interruptions,
                session.unsaved(),
                out,
            );
            if let Some(stop) = check.await {
                ending = Ending::Interrupted(stop);
            }
        }
        if job.output_schema.is_none() {
            self.say_withheld(&protocol, session.unsaved(), out);
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
            retry: self.retry,
        };
        // Close saves the session as the run ends.
        Ok(close.write(session.unsaved(), &ending, calls, out))
    }
}

impl OneTry<'_> {
    /// The try's session, resumed or new, with the try's mark and task;
    /// saved from here on (unless `--no-save`).
    ///
    /// Errors: the session file cannot be written.
    fn session<'s>(
        &self,
        resume: Option<crate::session::Session>,
        job: &Job,
        model: &ModelSetup,
        store: &'s Store,
        out: &mut dyn Output,
    ) -> Result<Journal<'s>> {
        let resumed = resume.is_some();
        let mut opened = setup::open_session(
            self.settings,
            resume,
            &job.prompt,
            model,
            self.workspace,
            out,
        );
        // A session goes on with the mark of the run that made it.
        if let Some(mut attempt) = self.attempt.clone() {
            if attempt.run_id.is_empty() {
                attempt.run_id.clone_from(&opened.id);
            }
            opened.attempt = Some(attempt);
        }
        opened.task = Some(self.task);
        opened.task_warning.clone_from(&self.task_warning);
        let session = Journal::open(opened, job.save.then_some(store))?;
        out.session_started(&session, resumed);
        Ok(session)
    }

    /// A run routed to an answer whose replies hold changes says so, on
    /// stderr and as `task_warning`: a change request must not end as an
    /// answer unsaid.
    fn say_withheld(
        &self,
        protocol: &edits::Protocol,
        session: &mut crate::session::Session,
        out: &mut dyn Output,
    ) {
        let routed = self.settings.task == Task::Auto;
        if !routed || self.task != Task::Answer || self.settings.mode != crate::vocab::Mode::Code {
            return;
        }
        let withheld = protocol.withheld_changes(session.messages());
        if let Some(warning) = route::say_withheld(&withheld, out) {
            session.task_warning = Some(match session.task_warning.take() {
                Some(guess) => format!("{guess}; {warning}"),
                None => warning,
            });
        }
    }
}

/// A run with images (attached, or in the resumed conversation) needs a
/// model with the `vision` capability.
///
/// Errors: [`Error::Usage`] naming the model's capabilities.
fn check_vision(job: &Job, info: &ModelInfo, settings: &Settings) -> Result<()> {
    let resumed_images = (job.resume.iter())
        .flat_map(|s| s.messages())
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
