//! One `oc run --runtime opencode`: the server (given, or started), a
//! session there, the prompt, the events followed to `session.idle` with
//! every permission request decided by oc, then the transcript as oc's
//! session and fine-tuning record, and the exit status.

use std::time::Instant;

use super::client::{EventStream, OpencodeClient, server_url};
use super::follow::{Follower, Step};
use super::permission;
use super::server;
use super::transcript::to_messages;
use crate::config::Settings;
use crate::error::{Error, ExitStatus, Result};
use crate::job::calls_in_text::is_call_written_as_text;
use crate::job::interrupt::{Interruption, Interruptions};
use crate::job::{Finish, Job, RunVerdict, open_workspace};
use crate::permissions::Approver;
use crate::protocol::{Context, Denial, RunSummary, SCHEMA_VERSION};
use crate::session::{Journal, Session, Status, Store};
use crate::signals::Signals;
use crate::tools::Workspace;
use crate::ui::Output;
use crate::vocab::Confinement;
use crate::vocab::ExitReason;

/// How the followed session ended.
enum End {
    Idle,
    Stopped(Interruption),
    /// The event stream broke twice.
    Lost(String),
}

/// Runs the job on an opencode server and returns the exit status.
///
/// Errors: before the session exists: a model not given as
/// `provider/model` (exit 2), no server (exit 3).
pub(crate) async fn run(
    settings: &Settings,
    job: Job,
    approver: &mut dyn Approver,
    out: &mut dyn Output,
) -> Result<ExitStatus> {
    let started = Instant::now();
    let mut interruptions = Interruptions::new(Signals::install()?.watch(), job.timeout);
    let workspace = open_workspace(&settings.cwd)?;
    let (provider, model) = split_model(&settings.model)?;
    let opened = tokio::select! {
        opened = open(settings, &workspace, &job.prompt) => opened?,
        stop = interruptions.next() => return Err(Error::Stopped {
            status: stop.exit_status(),
            message: format!("{} before the run started", stop.describe()),
        }),
    };
    let Opened {
        client,
        served: _served,
        remote,
        mut events,
    } = opened;
    let mut opened = Session::new(
        settings.mode,
        &settings.model,
        client.base(),
        workspace.root(),
        &job.prompt,
        0,
    );
    opened.provider = "opencode".to_string();
    opened.runtime = Some("opencode".to_string());
    opened.sandbox = None;
    let store = Store::new(&settings.home);
    let mut session = Journal::open(opened, job.save.then_some(&store))?;
    out.session_started(&session, false);
    client.prompt(&remote, &job.prompt, provider, model).await?;

    let mut follower = Follower::new(&remote, workspace.root());
    let mut denials = Vec::new();
    let mut follow = Follow {
        client: &client,
        settings,
        workspace: &workspace,
        approver,
    };
    let end = tokio::select! {
        end = follow.until_idle(&mut events, &mut follower, session.unsaved(), &mut denials, out) => end,
        stop = interruptions.next() => End::Stopped(stop),
    };
    if let End::Stopped(stop) = &end {
        out.warn(&format!(
            "{}; stopping the opencode session",
            stop.describe()
        ));
        if let Err(e) = client.abort(&remote).await {
            out.warn(&format!("the opencode session could not be stopped: {e}"));
        }
    }
    match client.messages(&remote).await {
        Ok(transcript) => {
            if let Err(e) = session.replace_messages(to_messages(&transcript)) {
                out.warn(&format!("the session could not be saved: {e}"));
            }
        }
        Err(e) => out.warn(&format!("the opencode transcript could not be read: {e}")),
    }
    let final_text = last_answer(&session);
    session.unsaved().unexecuted_call = is_call_written_as_text(&final_text, false);
    session.unsaved().turns = follower.turns;
    session.unsaved().usage = follower.usage;
    let verdict = verdict_of(&session, &end, &follower, &denials);
    if verdict.status == Status::Failed {
        out.error(&verdict.detail);
    }
    let finish = Finish {
        last_message_file: job.last_message_file.as_deref(),
        checkpoint: job.checkpoint.as_ref(),
        revert_on_fail: job.revert_on_fail,
        store: session.store(),
        schemas: &[],
    };
    let wire = |messages: &[crate::client::Message]| messages.to_vec();
    let finished = finish.apply(session.unsaved(), verdict, &final_text, false, &wire, out);
    let (exit, reverted) = (finished.exit, finished.reverted);
    let summary = RunSummary {
        saved: job.save,
        reverted,
        final_text,
        permission_denials: denials,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        ..summary_of(&session, &follower, exit)
    };
    out.session_completed(&summary);
    Ok(exit)
}

/// The `json` result of the run, from the session and what was followed.
fn summary_of(session: &Session, follower: &Follower, exit: ExitStatus) -> RunSummary {
    RunSummary {
        schema_version: SCHEMA_VERSION,
        session_id: session.id.clone(),
        saved: false,
        status: session.status,
        task: session.task,
        task_warning: None,
        exit_reason: session.exit_reason.clone().unwrap_or_default(),
        exit_detail: session.exit_detail.clone().unwrap_or_default(),
        exit_code: exit.code(),
        final_text: String::new(),
        turns: follower.turns,
        usage: follower.usage,
        session_turns: follower.turns,
        session_usage: follower.usage,
        context: Context {
            used: follower.context,
            max: 0,
        },
        tool_calls: follower.tool_calls,
        files_changed: crate::job::files_changed(&follower.files_changed, session),
        permission_denials: Vec::new(),
        cut_replies: Vec::new(),
        truncated_turns: Vec::new(),
        reverted: Vec::new(),
        check: None,
        precheck: None,
        structured_output: None,
        speed: Default::default(),
        sandbox: Confinement::NONE,
        duration_ms: 0,
        attempts: Vec::new(),
    }
}

/// The last assistant message's text.
fn last_answer(session: &Session) -> String {
    session
        .last_assistant()
        .map(|m| m.content.clone())
        .unwrap_or_default()
}

/// A server to talk to, with a new session and its event stream open.
struct Opened {
    client: OpencodeClient,
    /// The server oc started, kept running while this lives.
    served: Option<server::Served>,
    /// The session's id on the server.
    remote: String,
    events: EventStream,
}

/// The server at `--opencode-url`, or one started now; a session titled
/// after `prompt`, and the event stream, opened before the prompt is sent
/// so that nothing is missed.
async fn open(settings: &Settings, workspace: &Workspace, prompt: &str) -> Result<Opened> {
    let (url, served) = match &settings.runtime.opencode_url {
        Some(url) => (server_url(url)?, None),
        None => {
            let served = server::start(workspace.root(), settings.timeouts).await?;
            (served.url.clone(), Some(served))
        }
    };
    let client = OpencodeClient::new(&url, settings.timeouts)?;
    client.health().await?;
    let remote = client.create_session(&title_of(prompt)).await?;
    let events = client.events().await?;
    Ok(Opened {
        client,
        served,
        remote,
        events,
    })
}

/// What following needs beside the session.
struct Follow<'a> {
    client: &'a OpencodeClient,
    settings: &'a Settings,
    workspace: &'a Workspace,
    approver: &'a mut dyn Approver,
}

impl Follow<'_> {
    /// Follows the events to `session.idle`, answering permission
    /// requests; a dropped stream is opened again once.
    async fn until_idle(
        &mut self,
        events: &mut EventStream,
        follower: &mut Follower,
        session: &mut Session,
        denials: &mut Vec<Denial>,
        out: &mut dyn Output,
    ) -> End {
        let mut reconnected = false;
        loop {
            let broke = match events.next().await {
                Ok(Some(event)) => match follower.handle(event, out) {
                    Step::Idle => return End::Idle,
                    Step::Continue => continue,
                    Step::Ask(request) => {
                        let decision = permission::decide(
                            &request,
                            self.settings,
                            self.workspace,
                            self.approver,
                            follower.turns,
                        );
                        out.permission(&decision.record);
                        session.permissions.push(decision.record);
                        denials.extend(decision.denial);
                        if let Err(e) = self.client.reply(&request, decision.reply).await {
                            out.warn(&e.to_string());
                        }
                        continue;
                    }
                },
                Ok(None) => "the opencode server closed the event stream".to_string(),
                Err(e) => e.to_string(),
            };
            if reconnected {
                return End::Lost(broke);
            }
            reconnected = true;
            out.warn(&format!("{broke}; opening it again"));
            match self.client.events().await {
                Ok(again) => *events = again,
                Err(e) => return End::Lost(e.to_string()),
            }
        }
    }
}

/// The session's status and reason, and the exit status: an interruption's
/// own; a lost stream 3; an error of the session 3 for an unknown model,
/// 1 otherwise; denials for want of approval 5.
fn verdict_of(session: &Session, end: &End, follower: &Follower, denials: &[Denial]) -> RunVerdict {
    let failed = |detail: String, exit| (Status::Failed, ExitReason::Failed, detail, exit);
    let answered = |exit| {
        (
            Status::Finished,
            ExitReason::Answered,
            "answered".to_string(),
            exit,
        )
    };
    let (status, reason, detail, exit) = match (end, &follower.error) {
        (End::Stopped(stop), _) => (
            stop.status(),
            stop.reason(),
            stop.describe(),
            stop.exit_status(),
        ),
        (End::Lost(why), _) => failed(why.clone(), ExitStatus::Unavailable),
        (End::Idle, Some((_, message))) if message.contains("Model not found") => {
            failed(format!("opencode: {message}"), ExitStatus::Unavailable)
        }
        (End::Idle, Some((name, message))) => {
            failed(format!("opencode: {name}: {message}"), ExitStatus::Failure)
        }
        (End::Idle, None) if session.unexecuted_call => (
            Status::Failed,
            ExitReason::UnexecutedCall,
            "the last reply is a tool call written as text, which opencode did not run (the model's chat template does not give the server real tool calls)".to_string(),
            ExitStatus::Failure,
        ),
        (End::Idle, None) if !denials.is_empty() => (
            Status::Finished,
            ExitReason::Denied,
            "answered; some actions were denied for want of approval".to_string(),
            ExitStatus::Denied,
        ),
        (End::Idle, None) => answered(ExitStatus::Success),
    };
    RunVerdict {
        status,
        reason,
        detail,
        exit,
    }
}

/// `provider/model` (opencode's names), e.g. `ollama/qwen2.5-coder:1.5b`.
///
/// Errors: no `/` ([`Error::Usage`]).
fn split_model(name: &str) -> Result<(&str, &str)> {
    name.split_once('/')
        .filter(|(provider, model)| !provider.is_empty() && !model.is_empty())
        .ok_or_else(|| {
            Error::Usage(format!(
                "`{name}`: with `--runtime opencode` give the model as PROVIDER/MODEL, as opencode names it (e.g. `--model ollama/qwen2.5-coder:1.5b`; `opencode models` lists them)"
            ))
        })
}

/// The session's title on the server: the prompt's first line, shortened
/// (a title given here spares the server a model call to make one).
fn title_of(prompt: &str) -> String {
    let line = prompt.lines().next().unwrap_or("").trim();
    let title: String = line.chars().take(80).collect();
    if title.is_empty() {
        "oc run".to_string()
    } else {
        title
    }
}
