//! `oc run`, `oc plan`, `oc chat`: the arguments made into a [`Job`]
//! (the session to go on from, the prompt, images, the check, the output
//! schema, the checkpoint), then the runtime the settings pick runs it.
//! `--dry-run` prints the first request instead.

use crate::agent;
use crate::checkpoint;
use crate::cli::{self, OutputFormat, RunArgs};
use crate::config::Settings;
use crate::error::{Error, ExitStatus, Result};
use crate::images;
use crate::input;
use crate::job::{CheckPlan, Job, OutputSchema, open_workspace};
use crate::opencode;
use crate::session;
use crate::ui;
use crate::vocab::{self, Mode};

use super::settings::load_settings;

/// Runs `oc run|plan|chat`; an error is also written as a JSON `error`
/// event when the output format is JSON, for scripts that read only stdout.
///
/// Errors: as the run's setup (usage, exit 2; server, exit 3; ...).
pub(super) async fn run_agent(args: &RunArgs, mode: Mode) -> Result<ExitStatus> {
    let result = start_agent(args, mode).await;
    // Scripts reading JSON get the error there too, not only on stderr.
    if let (Err(error), OutputFormat::Json | OutputFormat::StreamJson) =
        (&result, args.prompt.output_format)
    {
        ui::json::write_error(&format!("{error:#}"), Some(error.exit_status().code()));
    }
    result
}

async fn start_agent(run: &RunArgs, mode: Mode) -> Result<ExitStatus> {
    let (common, args) = (&run.common, &run.prompt);
    let mut settings = load_settings(&common.server, &common.overrides(), mode)?;
    check_runtime(&settings, run)?;
    let attempts = attempts(run, &settings, args.check.is_some())?;
    let resume = resumed(run, &mut settings)?;
    let prompt = input::read_prompt(&args.prompt)?;
    warn_if_think_took_a_level(&args.prompt);
    let max_side = args.image_max_side.unwrap_or(images::DEFAULT_MAX_SIDE);
    let images = (args.images.iter())
        .map(|path| images::load(path, max_side))
        .collect::<Result<Vec<String>>>()?;
    let output_schema = output_schema(args, common)?;
    task_fits_mode(common, settings.mode)?;
    check_fits_task(args, &settings)?;
    if common.dry_run {
        let first = (prompt.as_str(), output_schema.as_ref(), images.as_slice());
        return dry_run(run, &settings, first, attempts).await;
    }
    let mut approver = ui::approver_for_this_process();
    let mut out = output_for(args, output_schema.is_some());
    let check = check_plan(args, &settings, &prompt)?;
    // `oc run --plan` is a plan run: the settings hold the mode it runs in.
    let revert_on_fail = on_fail(args, settings.mode)?;
    let checkpoint =
        take_checkpoint(&settings, !args.no_save, revert_on_fail, attempts)?.map(|c| {
            match &args.output_last_message {
                Some(file) => c.with_own_file(file),
                None => c,
            }
        });
    let job = Job {
        prompt,
        resume,
        save: !args.no_save,
        timeout: args.timeout,
        last_message_file: args.output_last_message.clone(),
        check,
        images,
        output_schema,
        checkpoint,
        revert_on_fail,
        attempts,
    };
    match settings.runtime.runtime {
        vocab::Runtime::Native => agent::run(&settings, job, approver.as_mut(), out.as_mut()).await,
        vocab::Runtime::Opencode => {
            opencode::runtime::run(&settings, job, approver.as_mut(), out.as_mut()).await
        }
    }
}

/// The saved session a run goes on from (`--continue`: the newest
/// started in the workspace; `--resume ID`), its unanswered calls answered
/// as unknown; the settings take its model (unless one was chosen) and its
/// workspace (unless `-C` was given).
///
/// Errors (exit 2): no session to continue, an unknown id, a session of
/// another mode, `--dry-run` with either.
fn resumed(run: &RunArgs, settings: &mut Settings) -> Result<Option<session::Session>> {
    let (common, args) = (&run.common, &run.prompt);
    let store = session::Store::new(&settings.home);
    let resume = if args.continue_last {
        let session = store.newest_in(&settings.cwd)?.ok_or_else(|| {
            Error::Usage(format!(
                "no saved session was started in `{}`; start one with `oc run`, or pick one with `--resume ID` (see `oc sessions list`)",
                settings.cwd.display()
            ))
        })?;
        Some(session)
    } else {
        args.resume
            .as_deref()
            .map(|id| store.load(id))
            .transpose()?
    };
    if let Some(session) = &resume
        && session.mode != settings.mode
    {
        let command = match session.mode {
            Mode::Code => "oc run",
            Mode::Plan => "oc plan",
            Mode::Chat => "oc chat",
        };
        return Err(Error::Usage(format!(
            "session {} is a {} session; go on with `{command} --resume {}`",
            session.id,
            session.mode.as_str(),
            session.id
        )));
    }
    if common.dry_run && resume.is_some() {
        return Err(Error::Usage(
            "`--dry-run` shows the first request of a new run; it cannot be combined with `--continue` or `--resume`".into(),
        ));
    }
    Ok(resume.map(|mut session| {
        // A run killed mid-call left calls without results; the next
        // request must answer each of them.
        session.answer_unanswered_calls("interrupted: result unknown");
        if !settings.model_explicit {
            settings.model = session.model.clone();
        }
        if common.server.cwd.is_none() {
            let saved = std::path::PathBuf::from(&session.cwd);
            if saved.is_dir() {
                settings.cwd = saved;
            }
        }
        session
    }))
}

/// `--dry-run`: prints the first request a run would send (`first`: its
/// prompt, output schema and images), and notes on its size, protocol,
/// check, tries and images; sends nothing.
///
/// Errors: as the run's setup (`--check auto` finding no command, exit 2;
/// a fallback model not on the server, exit 3).
async fn dry_run(
    run: &RunArgs,
    settings: &Settings,
    first: (&str, Option<&OutputSchema>, &[String]),
    attempts: u32,
) -> Result<ExitStatus> {
    let (args, (prompt, output_schema, images)) = (&run.prompt, first);
    // `--check auto` says which command a run would use (exit 2 when
    // none is found, as the run would).
    let check = check_plan(args, settings, prompt)?;
    // The models of later tries are looked up as a run would, first.
    let tries = agent::attempts::Tries::new(settings, attempts);
    if tries.count > 1 {
        tries.model_infos(&settings.model_client()?).await?;
    }
    let mut notes = ui::TextRenderer::new(false, false);
    let request = agent::dry_run(settings, prompt, output_schema, &mut notes).await?;
    ui::out(&format!("{}\n", request.body));
    let tokens = |bytes: usize| bytes.div_ceil(4);
    ui::print_note(&format!(
        "request body: {} bytes (~{} tokens); system prompt {} bytes + tool schemas {} bytes = ~{} tokens; nothing was sent",
        request.body.len(),
        request.tokens,
        request.system_bytes,
        request.tools_bytes,
        tokens(request.system_bytes + request.tools_bytes),
    ));
    ui::print_note(&format!("protocol: {}", request.protocol));
    if request.tokens > u64::from(request.num_ctx) {
        let run = match request.compacts {
            true => "a run would compact what it can and end exit 4 if it still does not fit",
            false => "a run would send it (`--no-compact`) and the server would cut the prompt",
        };
        ui::print_warning(&format!(
            "the request (~{} tokens) does not fit the context of {} tokens (num_ctx): {run}; shorten the input, or raise `--num-ctx` if the model takes more",
            request.tokens, request.num_ctx
        ));
    }
    if check.is_some() && !run.prompt.no_precheck {
        ui::print_note(
            "a run would first run the `--check` command and add its failing output to this message; a dry run runs nothing",
        );
    }
    if tries.count > 1 {
        ui::print_note(&format!(
            "a run would make up to {} tries while the check fails (models: {})",
            tries.count,
            tries.model_names().join(", ")
        ));
    }
    if !images.is_empty() {
        ui::print_note(&format!(
            "{} image{} checked and left out of the body shown (base64, in the prompt's `images`)",
            images.len(),
            if images.len() == 1 { "" } else { "s" }
        ));
    }
    Ok(ExitStatus::Success)
}

/// What shows the run: text on the terminal, or JSON for scripts.
fn output_for(args: &cli::PromptArgs, answers_with_json: bool) -> Box<dyn ui::Output> {
    match args.output_format {
        OutputFormat::Text => Box::new(
            ui::TextRenderer::new(args.quiet, args.verbose).answering_with_json(answers_with_json),
        ),
        OutputFormat::Json => Box::new(ui::JsonOutput::new(false)),
        OutputFormat::StreamJson => Box::new(ui::JsonOutput::new(true)),
    }
}

/// `--task change` is for `oc run`: `oc plan` and `oc chat` answer and
/// change no file (a `task` in a config file is left to `oc run`).
///
/// Errors (exit 2): `--task change` with `oc plan`, `oc chat` or `oc run
/// --plan`.
fn task_fits_mode(common: &cli::CommonArgs, mode: Mode) -> Result<()> {
    match (common.task, mode) {
        (Some(vocab::Task::Change), Mode::Plan | Mode::Chat) => Err(Error::Usage(format!(
            "`--task change` is for `oc run`: a {} run answers and changes no file; drop `--task change`, or run `oc run`",
            mode.as_str()
        ))),
        _ => Ok(()),
    }
}

/// A check judges a change: with `--task answer` (flag or config) it has
/// nothing to judge.
///
/// Errors (exit 2): `--check` with `--task answer`.
fn check_fits_task(args: &cli::PromptArgs, settings: &Settings) -> Result<()> {
    match (&args.check, settings.task) {
        (Some(_), vocab::Task::Answer) => Err(Error::Usage(
            "`--task answer` asks for an answer and changes no file, so `--check` has nothing to judge; drop one of them".into(),
        )),
        _ => Ok(()),
    }
}

/// Whether `--on-fail revert` was asked for; only `oc run` changes files.
///
/// Errors (exit 2): `--on-fail` with `oc plan` or `oc chat`.
fn on_fail(args: &cli::PromptArgs, mode: Mode) -> Result<bool> {
    match (args.on_fail, mode) {
        (None, _) => Ok(false),
        (Some(_), Mode::Plan | Mode::Chat) => Err(Error::Usage(format!(
            "`--on-fail` is for `oc run`: a {} run (`oc {}`, or `oc run --plan`) changes no file",
            mode.as_str(),
            mode.as_str()
        ))),
        (Some(what), Mode::Code) => Ok(what == cli::OnFail::Revert),
    }
}

/// How many fresh tries the run allows (docs/attempts.md): `--attempts`,
/// or with fallback models (flag or config) and a check, one try a model.
///
/// Errors (exit 2): `--attempts` or `--fallback-model` without `--check`
/// (nothing would tell a good try from a bad one), outside `oc run`, or
/// with `--continue`/`--resume` (each try starts a new conversation).
fn attempts(run: &RunArgs, settings: &Settings, checked: bool) -> Result<u32> {
    let (common, args) = (&run.common, &run.prompt);
    let asked = match (args.attempts, common.fallback_models.is_empty()) {
        (None, true) => None,
        (Some(_), _) => Some("--attempts"),
        (None, false) => Some("--fallback-model"),
    };
    let Some(flag) = asked else {
        let from_config = checked && settings.mode == Mode::Code && args.resume.is_none();
        let config_tries = 1 + settings.fallback_models.len() as u32;
        return Ok(if from_config && !args.continue_last {
            config_tries
        } else {
            1
        });
    };
    if common.fallback_models.iter().any(|m| m.trim().is_empty()) {
        return Err(Error::Usage(
            "`--fallback-model` was given an empty name; name a model the server has (`oc models` lists them)".into(),
        ));
    }
    if !checked {
        return Err(Error::Usage(format!(
            "`{flag}` needs `--check`: a try is kept only when the check passes; add `--check 'COMMAND'` (or `--check auto`)"
        )));
    }
    if args.attempts == Some(1) && !common.fallback_models.is_empty() {
        return Err(Error::Usage(
            "`--fallback-model` runs only in a second try, and `--attempts 1` allows one; drop `--attempts 1` (one try a model) or raise it".into(),
        ));
    }
    if settings.mode != Mode::Code {
        return Err(Error::Usage(format!(
            "`{flag}` is for `oc run`: a {} run changes no file for a check to judge",
            settings.mode.as_str()
        )));
    }
    if args.continue_last || args.resume.is_some() {
        return Err(Error::Usage(format!(
            "`{flag}` starts each try as a new conversation; it cannot go on from a session (`--continue`, `--resume`)"
        )));
    }
    let one_a_model = 1 + settings.fallback_models.len() as u32;
    let tries = args.attempts.unwrap_or(one_a_model);
    if tries > 1
        && settings.sampling.temperature == Some(0.0)
        && settings.fallback_models.is_empty()
    {
        ui::print_warning(
            "`--attempts` with `--temperature 0`: one model gives the same reply each try, so the tries after the first repeat it; raise the temperature, or add a `--fallback-model`",
        );
    }
    Ok(tries)
}

/// The workspace as a code run finds it (docs/sessions.md "Undo"): for `oc undo`
/// when the session is saved, for `--on-fail revert`, and for putting a
/// failed try back with `--attempts`. A checkpoint that cannot be taken is
/// a warning, unless the run must be able to revert.
///
/// Errors (exit 2): `--on-fail revert` or `--attempts` and no checkpoint
/// could be taken.
fn take_checkpoint(
    settings: &Settings,
    save: bool,
    revert_on_fail: bool,
    attempts: u32,
) -> Result<Option<checkpoint::Checkpoint>> {
    let must = revert_on_fail || attempts > 1;
    if settings.mode != Mode::Code || !(save || must) {
        return Ok(None);
    }
    let taken = settings
        .cwd
        .canonicalize()
        .map_err(|e| e.to_string())
        .and_then(|root| checkpoint::Checkpoint::take(&root, &settings.home));
    match taken {
        Ok(checkpoint) => Ok(Some(checkpoint)),
        Err(why) if must => Err(Error::Usage(format!(
            "`{}` needs a checkpoint of the workspace, and none could be taken: {why}",
            if revert_on_fail {
                "--on-fail revert"
            } else {
                "--attempts"
            }
        ))),
        Err(why) => {
            ui::print_warning(&format!(
                "no checkpoint of the workspace ({why}); `oc undo` cannot put this run's changes back"
            ));
            Ok(None)
        }
    }
}

/// `--output-schema FILE`, read and compiled. A run held to a schema
/// answers, so it cannot be `--task change`.
///
/// Errors (exit 2): the file cannot be read or is no JSON Schema; `--task
/// change` given with it.
fn output_schema(args: &cli::PromptArgs, common: &cli::CommonArgs) -> Result<Option<OutputSchema>> {
    let Some(path) = &args.output_schema else {
        return Ok(None);
    };
    if args.check.is_some() {
        return Err(Error::Usage(
            "`--output-schema` asks for one JSON answer and changes no file, so `--check` has nothing to judge; drop one of them".into(),
        ));
    }
    if common.task == Some(vocab::Task::Change) {
        return Err(Error::Usage(
            "`--output-schema` asks for one JSON answer and changes no file; drop `--task change`, or make the change in a run of its own".into(),
        ));
    }
    OutputSchema::load(path).map(Some)
}

/// The `--check` of the run: the command given, or with `--check auto`
/// the one the prompt or the project gives (said on stderr).
///
/// Errors (exit 2): the command is empty; `--check auto` finds no test
/// command; the hard or deny rules refuse the check.
fn check_plan(
    args: &cli::PromptArgs,
    settings: &Settings,
    prompt: &str,
) -> Result<Option<CheckPlan>> {
    let Some(given) = &args.check else {
        return Ok(None);
    };
    if given.trim().is_empty() {
        return Err(Error::Usage(
            "`--check` was given an empty command; pass the test command (e.g. `--check 'npm test'`), or `--check auto` to find it".to_string(),
        ));
    }
    let (command, chosen_from) = if given.trim() == "auto" {
        let chosen = agent::check_command::choose(prompt, &settings.cwd).ok_or_else(|| {
            Error::Usage(format!(
                "`--check auto` found no test command: the prompt gives none (\"run them with: …\") and `{}` has no Cargo.toml, go.mod, package.json test script, Python tests or Makefile `test` target; pass the command, e.g. `--check 'python3 -m pytest -q'`",
                settings.cwd.display()
            ))
        })?;
        ui::print_note(&format!(
            "--check auto: using `{}` (from {})",
            chosen.command, chosen.source
        ));
        (chosen.command, Some(chosen.source))
    } else {
        (given.clone(), None)
    };
    // A check the rules refuse would be found out only after the model's
    // work was paid for.
    if let Ok(workspace) = open_workspace(&settings.cwd)
        && let Some(reason) = agent::check::refusal(&command, &settings.rules, workspace.root())
    {
        return Err(Error::Usage(format!(
            "the check `{command}` cannot run: {reason}; change the check, or the rule that refuses it"
        )));
    }
    Ok(Some(CheckPlan {
        command,
        max_attempts: args.check_rounds.unwrap_or(settings.check_attempts),
        precheck: !args.no_precheck,
        chosen_from,
    }))
}

/// With `--runtime opencode` the server runs the loop: what only oc's own
/// loop can do is a usage error, and loop settings given on the command
/// line are said to be ignored.
///
/// Errors: `--check`, `--image`, `--continue`/`--resume` or `--dry-run`
/// with the opencode runtime ([`Error::Usage`]).
fn check_runtime(settings: &Settings, run: &RunArgs) -> Result<()> {
    if settings.runtime.runtime != vocab::Runtime::Opencode {
        return Ok(());
    }
    let (common, args) = (&run.common, &run.prompt);
    let unsupported = [
        ("--check", args.check.is_some()),
        ("--image", !args.images.is_empty()),
        ("--continue", args.continue_last),
        ("--resume", args.resume.is_some()),
        ("--dry-run", common.dry_run),
        ("--output-schema", args.output_schema.is_some()),
        ("--attempts", args.attempts.is_some()),
        ("--fallback-model", !common.fallback_models.is_empty()),
    ];
    if let Some((flag, _)) = unsupported.iter().find(|(_, set)| *set) {
        return Err(Error::Usage(format!(
            "`{flag}` works with oc's own loop only; drop it, or run without `--runtime opencode`"
        )));
    }
    let ignored: Vec<&str> = [
        ("--num-ctx", common.num_ctx.is_some()),
        ("--max-turns", common.max_turns.is_some()),
        ("--max-output-tokens", common.max_output_tokens.is_some()),
        ("--edit-format", common.edit_format.is_some()),
        ("--task", common.task.is_some()),
        ("--think", common.think.is_some()),
        ("--temperature", common.temperature.is_some()),
        ("--seed", common.seed.is_some()),
        ("--sandbox", common.sandbox.is_some()),
        ("--network", common.network.is_some()),
        ("--add-dir", !common.add_dir.is_empty()),
        ("--allow-read", !common.allow_read.is_empty()),
        ("--system-prompt", common.system_prompt.is_some()),
        (
            "--append-system-prompt",
            common.append_system_prompt.is_some(),
        ),
    ]
    .into_iter()
    .filter_map(|(flag, set)| set.then_some(flag))
    .collect();
    if !ignored.is_empty() {
        ui::print_warning(&format!(
            "with `--runtime opencode` the opencode server runs the loop with its own settings: {} ignored",
            ignored.join(", ")
        ));
    }
    Ok(())
}

/// `--think high "fix"` sends the prompt "high fix" (a level needs the
/// `=`): says so when a bare `--think` is followed by a prompt starting
/// with a level.
fn warn_if_think_took_a_level(words: &[String]) {
    let bare_think = std::env::args_os().any(|a| a == "--think");
    let first = words
        .first()
        .map(|w| w.split_whitespace().next().unwrap_or(w));
    if let Some(level) = first.filter(|w| bare_think && w.parse::<vocab::Think>().is_ok()) {
        ui::print_warning(&format!(
            "the prompt starts with `{level}` after a bare `--think`, which does not take a value; to set the level, write `--think={level}`"
        ));
    }
}
