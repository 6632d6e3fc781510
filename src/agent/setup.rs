//! Before the first turn: the workspace, what the model can do (from
//! `/api/show`), and the session to go on with.

use crate::job::open_workspace;
use std::path::Path;

use serde_json::Value;

use super::edits::Protocol;
use super::edits::file_blocks::FileBlocks;
use super::prompt;
use crate::client::host::display_host;
use crate::client::{ChatOptions, Message, ModelInfo, Role};
use crate::config::{DEFAULT_MAX_OUTPUT_TOKENS, Settings};
use crate::error::Result;
use crate::heuristics::Heuristics;
use crate::sandbox::prepare::prepare;
use crate::sandbox::reaper;
use crate::sandbox::support::Support;
use crate::session::{Session, Status};
use crate::tools::{ToolName, Workspace};
use crate::ui::Output;
use crate::vocab::{EditFormat, Mode, Provider, Task, TextTools, Think};

/// How this run talks to this model, settled once from its capabilities.
#[derive(Debug, Clone)]
pub(crate) struct ModelSetup {
    /// The `think` field to send; `None` for a model without `thinking`.
    pub think: Option<Think>,
    /// The context window sent with every request (tokens), clamped to the
    /// model's context length.
    pub num_ctx: u32,
    /// The tools offered in this mode.
    pub offered: Vec<ToolName>,
    /// The model has no native tool calling: the tools are described in the
    /// system prompt and called as ```tool fences.
    pub fenced: bool,
    /// The offered tools' schemas (also recorded in the fine-tuning record).
    pub schemas: Vec<Value>,
    /// How the model changes files: `Tools`, `Whole` or `Diff` (`Auto`
    /// settled).
    pub edit_format: EditFormat,
    /// What the run is for (`Auto` settled, [`super::route`]): an answer
    /// offers only the tools that read, and shows files for reference.
    pub task: Task,
    /// `--output-schema`: the JSON Schema every reply is held to (sent as
    /// Ollama `format`, OpenAI `response_format`).
    pub output_schema: Option<Value>,
}

impl ModelSetup {
    /// Reads the capabilities in `info` for a run whose task is `task`;
    /// warns and notes on `out` where the settings cannot be honoured (no
    /// thinking, a smaller context, no tools).
    pub(crate) fn from_capabilities(
        info: &ModelInfo,
        settings: &Settings,
        task: Task,
        out: &mut dyn Output,
    ) -> Self {
        let think = if info.has("thinking") {
            Some(settings.think)
        } else {
            if settings.think_explicit && settings.think.is_on() {
                out.warn(&format!(
                    "model `{}` cannot think (no `thinking` capability); the think setting (`--think`, config `think`) is ignored",
                    settings.model
                ));
            }
            None
        };
        let num_ctx = if info.context_set_by_server {
            server_context(info, settings, out)
        } else {
            match info.context_length {
                Some(max) if u64::from(settings.num_ctx) > max => {
                    let clamped = u32::try_from(max).unwrap_or(u32::MAX);
                    out.note(&format!(
                        "num_ctx {} is more than `{}` supports; using {clamped}",
                        settings.num_ctx, settings.model
                    ));
                    clamped
                }
                _ => settings.num_ctx,
            }
        };
        let native_tools = info.has("tools");
        let edit_format = choose_edit_format(settings, info);
        let offered = if matches!(edit_format, EditFormat::Whole | EditFormat::Diff) {
            // The files are in the conversation and changes come as blocks.
            Vec::new()
        } else if native_tools || settings.text_tools == TextTools::Auto {
            tools_for(settings.mode, task)
        } else {
            if settings.mode != Mode::Chat {
                out.warn(&format!(
                    "model `{}` has no `tools` capability and `--text-tools off` is set; it can only answer",
                    settings.model
                ));
            }
            Vec::new()
        };
        let fenced = !native_tools && !offered.is_empty();
        let schemas = offered.iter().map(|t| t.schema()).collect();
        ModelSetup {
            think,
            num_ctx,
            offered,
            fenced,
            schemas,
            edit_format,
            task,
            output_schema: None,
        }
    }

    /// The setup for an answer held to `schema`: a reply that must be one
    /// JSON value can be neither a tool call nor a request to look around,
    /// so no tool is offered and the model answers from what it is shown.
    pub(crate) fn held_to(mut self, schema: Value) -> Self {
        // The files are shown in the message (as whole-file runs show
        // them), since no tool can read them; in every mode.
        if self.edit_format != EditFormat::Diff {
            self.edit_format = EditFormat::Whole;
        }
        self.offered.clear();
        self.schemas.clear();
        self.fenced = false;
        self.task = Task::Answer;
        self.output_schema = Some(schema);
        self
    }

    /// Whether a reply's text may hold tool calls: not when it must be
    /// JSON for `--output-schema` (a JSON answer may look like a call).
    pub(crate) fn calls_in_text(&self) -> bool {
        self.output_schema.is_none()
    }

    /// The edit protocol of the run, with the heuristics on.
    pub(crate) fn protocol(&self, root: &Path, heuristics: Heuristics) -> Protocol {
        let blocks = |diff: bool| {
            let blocks = FileBlocks::new(diff, root).with_heuristics(heuristics);
            Protocol::FileBlocks(Box::new(match self.task {
                Task::Answer if self.output_schema.is_some() => blocks.answering_in_json(),
                Task::Answer => blocks.answering(),
                Task::Change | Task::Auto => blocks,
            }))
        };
        match self.edit_format {
            EditFormat::Whole => blocks(false),
            EditFormat::Diff => blocks(true),
            EditFormat::Tools | EditFormat::Auto => Protocol::ToolCalls {
                offered: self.offered.clone(),
                fenced: self.fenced,
            },
        }
    }

    /// The schemas sent as `tools`: none for the fenced-tool protocol.
    pub(crate) fn wire_schemas(&self) -> &[Value] {
        if self.fenced { &[] } else { &self.schemas }
    }

    /// `options` of every request of the run: the context, the reply cap
    /// (`--max-output-tokens`, else 4096 or a quarter of the context) and
    /// the sampling options set.
    pub(crate) fn options(&self, settings: &Settings) -> ChatOptions {
        let cap = settings
            .max_output_tokens
            .unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS.min(self.num_ctx / 4));
        ChatOptions {
            num_predict: Some(cap),
            ..ChatOptions::new(self.num_ctx, &settings.sampling)
        }
    }
}

/// The context an OpenAI-compatible server runs with: no request can set
/// it, so say so once, and count against the size it reports (llama.cpp,
/// vLLM), else against `num_ctx`.
fn server_context(info: &ModelInfo, settings: &Settings, out: &mut dyn Output) -> u32 {
    match info.context_length {
        Some(size) => {
            let size = u32::try_from(size).unwrap_or(u32::MAX);
            out.note(&format!(
                "the server decides the context size, not `num_ctx`: it runs `{}` with {size} tokens, and oc counts against that",
                settings.model
            ));
            size
        }
        None => {
            out.warn(&format!(
                "the server decides the context size, not `num_ctx`, and does not report it; oc counts against num_ctx {} (set it to the server's size)",
                settings.num_ctx
            ));
            settings.num_ctx
        }
    }
}

/// The tools offered in `mode` for `task`: an answer in code mode gets
/// the tools that read, as plan mode does; none that writes, and no
/// `bash` (a command can write whatever its sandbox allows).
fn tools_for(mode: Mode, task: Task) -> Vec<ToolName> {
    match (mode, task) {
        (Mode::Code, Task::Answer) => ToolName::for_mode(Mode::Plan),
        _ => ToolName::for_mode(mode),
    }
}

/// Models up to this size (billions of parameters, `/api/show`) get whole
/// files with `--edit-format auto`: measured on `bench/tasks` (docs/small-models.md), tool calls fail them where whole files do not.
pub(crate) const SMALL_MODEL_BILLIONS: f64 = 4.0;

/// The edit format for this model: the one asked for, in code mode. `auto`
/// gives whole files to a small model or one without native tool calling,
/// and tool calls to the others. Plan and chat mode always use tool calls
/// (read-only tools, or none).
fn choose_edit_format(settings: &Settings, info: &ModelInfo) -> EditFormat {
    match (settings.mode, settings.edit_format) {
        (Mode::Plan | Mode::Chat, _) => EditFormat::Tools,
        (Mode::Code, EditFormat::Auto) => {
            let small = info
                .parameter_billions
                .is_some_and(|b| b <= SMALL_MODEL_BILLIONS);
            if small || !info.has("tools") {
                EditFormat::Whole
            } else {
                EditFormat::Tools
            }
        }
        (Mode::Code, chosen) => chosen,
    }
}

/// The workspace of a run: [`open_workspace`], its commands confined by
/// the sandbox (warnings for what the kernel cannot enforce on `out`),
/// `oc` the subreaper of what they start, and the commands never get the
/// model server's API key (they do not need it).
///
/// Errors: as [`open_workspace`] and [`prepare`] (`--sandbox required` on
/// a kernel that cannot confine).
pub(crate) fn run_workspace(settings: &Settings, out: &mut dyn Output) -> Result<Workspace> {
    let workspace = open_workspace(&settings.cwd)?;
    let (sandbox, warnings) = prepare(
        &settings.sandbox,
        workspace.root(),
        &settings.home,
        Support::probe(),
    )?;
    for warning in &warnings {
        out.warn(warning);
    }
    reaper::become_subreaper();
    let workspace = workspace.confined(sandbox);
    Ok(match settings.provider {
        Provider::OpenAi => workspace.hiding_env(&settings.api_key_env),
        Provider::Ollama => workspace,
    })
}

/// The session this run adds to: `resume` (its system prompt kept byte for
/// byte, so the server can reuse its cache of the conversation), or a new
/// one with this mode's system prompt. The prompt is added by the turns
/// (with the files it needs).
pub(crate) fn open_session(
    settings: &Settings,
    resume: Option<Session>,
    prompt: &str,
    model: &ModelSetup,
    workspace: &Workspace,
    out: &mut dyn Output,
) -> Session {
    match resume {
        Some(mut session) => {
            let host = display_host(&settings.host);
            if session.host != host {
                out.warn(&format!(
                    "the session ran on {} ({}); it goes on with {host} ({})",
                    session.host,
                    session.provider,
                    settings.provider.as_str()
                ));
            }
            session.host = host;
            session.provider = settings.provider.as_str().to_string();
            session.sandbox = Some(workspace.sandbox().confinement());
            session.mode = settings.mode;
            session.model = settings.model.clone();
            session.num_ctx = model.num_ctx;
            session.status = Status::Running;
            session.exit_reason = None;
            session.exit_detail = None;
            session.aborted_reply = None;
            session.rules_from = rules_from(settings);
            session
        }
        None => {
            let system = system_prompt(settings, model, workspace.root());
            let mut session = Session::new(
                settings.mode,
                &settings.model,
                &display_host(&settings.host),
                workspace.root(),
                prompt,
                model.num_ctx,
            );
            session.provider = settings.provider.as_str().to_string();
            session.sandbox = Some(workspace.sandbox().confinement());
            session.rules_from = rules_from(settings);
            session.push_unsaved(Message::text(Role::System, system));
            session
        }
    }
}

/// The project config whose rules bind this run, if there is one.
fn rules_from(settings: &Settings) -> Option<String> {
    let path = &settings.project_config;
    path.is_file().then(|| path.display().to_string())
}

/// The system prompt of a new session: `--system-prompt FILE`'s text, or
/// oc's own for the mode and edit format; then the project's `AGENTS.md`
/// instructions and `--append-system-prompt`.
pub(crate) fn system_prompt(settings: &Settings, model: &ModelSetup, root: &Path) -> String {
    let answer = model.task == Task::Answer && settings.mode == Mode::Code;
    let base = match (&settings.system_prompt, model.edit_format) {
        (Some(text), _) => text.trim_end().to_string(),
        (None, _) if model.output_schema.is_some() => prompt::structured_prompt(root),
        (None, EditFormat::Whole | EditFormat::Diff) if answer => {
            prompt::answer_prompt(root, &[], false)
        }
        (None, EditFormat::Tools | EditFormat::Auto) if answer => {
            prompt::answer_prompt(root, &model.offered, model.fenced)
        }
        (None, EditFormat::Whole) => prompt::file_blocks_prompt(false, root),
        (None, EditFormat::Diff) => prompt::file_blocks_prompt(true, root),
        (None, EditFormat::Tools | EditFormat::Auto) => {
            prompt::system_prompt(settings.mode, root, &model.offered, model.fenced)
        }
    };
    match &settings.instructions {
        Some(more) => format!("{base}\n\n{more}"),
        None => base,
    }
}
