//! One tool call under policy (ARCHITECTURE.md, docs/permissions.md): validate the arguments, resolve
//! the paths, settle permission (rules, then the approver), run, and report
//! the result with secrets scrubbed. Every failure is a result for the
//! model, never a crash.

use std::borrow::Cow;

use serde_json::Value;

use crate::config::Settings;
use crate::permissions::project_config::{self, ProjectConfigGuard};
use crate::permissions::rules::{Action, Rule};
use crate::permissions::{
    self, ApprovalRequest, Approver, PermissionRecord, Settlement, Source, Verdict,
};
use crate::protocol::Denial;
use crate::secrets::Secrets;
use crate::session::Session;
use crate::tools::{self, FileChange, ResolvedPath, ToolInput, ToolName, ToolOutcome, Workspace};
use crate::ui::Output;
use crate::vocab::Mode;

/// Runs the calls of one run and keeps what they add up to.
pub(crate) struct CallRunner<'a> {
    settings: &'a Settings,
    workspace: &'a Workspace,
    offered: Vec<ToolName>,
    approver: &'a mut dyn Approver,
    /// The permission rules, with those added by "always" answers.
    rules: Vec<Rule>,
    /// Files the model has read or written in this run.
    seen: tools::FilesSeen,
    /// Values scrubbed from every tool result.
    secrets: Secrets,
    /// Undoes any change a command makes to `./.ollama-code.json`.
    project_config: ProjectConfigGuard,
    /// Calls that needed approval no one could give.
    pub denials: Vec<Denial>,
    /// The model's calls run (validated and settled, whatever their
    /// outcome), counted where they are answered ([`super::answer`]).
    pub tool_calls: usize,
    /// Files created, changed or moved, relative to the workspace.
    pub files_changed: Vec<String>,
    /// Calls that changed a file (a file changed twice counts twice).
    pub changes: usize,
    /// Commands that ran and succeeded (`bash`, exit 0), those that only
    /// look aside ([`crate::permissions::looks`]): what they changed is
    /// not in the tally above.
    pub commands_run: usize,
}

impl<'a> CallRunner<'a> {
    /// A runner for the tools `offered` in `workspace`.
    pub(crate) fn new(
        settings: &'a Settings,
        workspace: &'a Workspace,
        offered: Vec<ToolName>,
        approver: &'a mut dyn Approver,
    ) -> Self {
        CallRunner {
            settings,
            workspace,
            offered,
            approver,
            rules: settings.rules.clone(),
            seen: tools::FilesSeen::default(),
            secrets: Secrets::gather(workspace.root(), &[&settings.api_key_env]),
            project_config: ProjectConfigGuard::new(&settings.project_config, workspace.root()),
            denials: Vec::new(),
            tool_calls: 0,
            files_changed: Vec::new(),
            changes: 0,
            commands_run: 0,
        }
    }

    /// The workspace the calls are confined to.
    pub(crate) fn workspace(&self) -> &'a Workspace {
        self.workspace
    }

    /// Reads a file for the first turn ([`super::opening`]): allowed only
    /// when the rules allow reading it without asking; noted as seen and
    /// recorded as a permission decision. Returns its text, with secrets
    /// scrubbed, and whether scrubbing changed it; `None` for a file that
    /// may not or cannot be read, or is binary.
    pub(crate) fn read_grounded(
        &mut self,
        session: &mut Session,
        path: &str,
    ) -> Option<(String, bool)> {
        let resolved = self.workspace.resolve(path).ok()?;
        let input = ToolInput::ReadFile(tools::read_file::Args {
            path: path.to_string(),
            offset: None,
            limit: None,
            column: None,
        });
        let request = permissions::Request {
            input: &input,
            paths: std::slice::from_ref(&resolved),
            root: self.workspace.root(),
        };
        let Verdict::Allow { source, rule } =
            permissions::check(self.settings.permission_mode, &self.rules, &request)
        else {
            return None;
        };
        let bytes = crate::fsutil::read(&resolved.real).ok()?;
        if bytes.contains(&0) {
            return None;
        }
        let (text, _) = tools::decode_text(&bytes);
        session.permissions.push(PermissionRecord {
            turn: session.turns,
            tool_call_id: "grounding".to_string(),
            tool: ToolName::ReadFile.as_str().to_string(),
            detail: resolved.display.clone(),
            allowed: true,
            source,
            rule,
            reason: None,
        });
        self.seen.insert(&resolved.real);
        let scrubbed = self.secrets.scrub(&text);
        let changed = matches!(scrubbed, Cow::Owned(_));
        Some((scrubbed.into_owned(), changed))
    }

    /// Puts back what decides the next run's rules if a command changed it
    /// (the check, which may run what the model wrote); says so on `out`.
    pub(crate) fn guard_rules(&self, out: &mut dyn Output) {
        if let Some(undone) = self.project_config.restore() {
            out.warn(&undone);
        }
    }

    /// `text` with the run's secret values scrubbed (a check's output, a
    /// file shown): whether anything was, and the text.
    pub(crate) fn scrub(&self, text: &str) -> (bool, String) {
        match self.secrets.scrub(text) {
            Cow::Borrowed(same) => (false, same.to_string()),
            Cow::Owned(scrubbed) => (true, scrubbed),
        }
    }

    /// The permission rules as they stand (with "always" answers added).
    pub(crate) fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// Validates, settles permission for and runs one call. `arguments` is
    /// the parsed object, or the error for the model when it was not usable
    /// (then `raw`, the arguments as the model sent them, name the call on
    /// screen).
    pub(crate) async fn call(
        &mut self,
        session: &mut Session,
        out: &mut dyn Output,
        (id, name): (&str, &str),
        raw: &Value,
        arguments: Result<Value, String>,
    ) -> ToolOutcome {
        let turn = session.turns;
        let input = match self.input_of(session, out, (id, name), raw, arguments) {
            Ok(input) => input,
            Err(outcome) => return outcome,
        };
        let detail = input.detail();
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
                    let record = PermissionRecord {
                        reason: Some(why.clone()),
                        ..decision
                    };
                    decide(session, out, record);
                    let outcome = ToolOutcome::error(format!("refused: {why}"));
                    return self.report(out, turn, id, name, outcome);
                }
            }
        }
        let request = permissions::Request {
            input: &input,
            paths: &resolved,
            root: self.workspace.root(),
        };
        let (verdict, exact) =
            permissions::decide(self.settings.permission_mode, &self.rules, &request);
        // A write or edit that cannot apply fails before anyone is asked.
        let change = if matches!(verdict, Verdict::Deny { .. }) {
            None
        } else {
            match tools::prepare_change(&input, self.workspace, &self.seen) {
                Ok(change) => change,
                Err(message) => {
                    return self.report(out, turn, id, name, ToolOutcome::error(message));
                }
            }
        };
        let asked = matches!(verdict, Verdict::Ask { .. });
        let settled = self.settle(out, verdict, (name, &detail), change.as_ref(), &exact);
        if let Some(reason) = settled.reason {
            let record = PermissionRecord {
                source: settled.source,
                rule: settled.rule,
                reason: Some(reason.clone()),
                ..decision
            };
            decide(session, out, record);
            let outcome = ToolOutcome::error(format!("not approved: {reason}"));
            return self.report(out, turn, id, name, outcome);
        }
        let record = PermissionRecord {
            allowed: true,
            source: settled.source,
            rule: settled.rule,
            ..decision
        };
        decide(session, out, record);
        let outcome = self
            .execute(out, &input, change, asked, resolved.last())
            .await;
        self.report(out, turn, id, name, outcome)
    }

    /// The call as one of the offered tools with usable arguments, shown on
    /// screen; else the outcome that answers it (arguments that are not
    /// usable, a tool not offered).
    fn input_of(
        &mut self,
        session: &mut Session,
        out: &mut dyn Output,
        (id, name): (&str, &str),
        raw: &Value,
        arguments: Result<Value, String>,
    ) -> Result<ToolInput, ToolOutcome> {
        let turn = session.turns;
        let arguments = match arguments {
            Ok(a) => a,
            Err(message) => {
                let detail = ["path", "pattern", "command"]
                    .iter()
                    .find_map(|key| raw[key].as_str())
                    .unwrap_or_default();
                out.tool_call(turn, id, name, detail, raw);
                return Err(self.report(out, turn, id, name, ToolOutcome::error(message)));
            }
        };
        let Some(tool) = ToolName::from_name(name).filter(|t| self.offered.contains(t)) else {
            return Err(self.refuse_unoffered(session, out, id, name, &arguments));
        };
        match ToolInput::parse(tool, &arguments) {
            Ok(input) => {
                out.tool_call(turn, id, name, &input.detail(), &arguments);
                Ok(input)
            }
            Err(message) => {
                out.tool_call(turn, id, name, "", &arguments);
                Err(self.report(out, turn, id, name, ToolOutcome::error(message)))
            }
        }
    }

    /// Runs an approved call: applies a prepared change, or executes the
    /// tool; then hides denied paths, undoes changes to the project config,
    /// and notes what the model has now seen and what changed.
    async fn execute(
        &mut self,
        out: &mut dyn Output,
        input: &ToolInput,
        change: Option<FileChange>,
        asked: bool,
        last_path: Option<&ResolvedPath>,
    ) -> ToolOutcome {
        let mut outcome = match change {
            Some(change) => {
                let real = &change.path.real;
                // An edit to a file changed on disk since it was read leaves
                // it unread: the rest of it is still unseen.
                let stale = self.seen.changed_since(real);
                self.seen.note_before(real, change.before.as_deref());
                let outcome = change.apply();
                if let (true, ToolInput::EditFile(edit)) = (outcome.ok, input) {
                    self.seen
                        .note_edit(real, &edit.old_string, &edit.new_string);
                }
                if outcome.ok && !stale {
                    self.seen
                        .insert_after_change(real, matches!(input, ToolInput::WriteFile(_)));
                }
                if outcome.ok {
                    // A diff the user just approved is not shown twice.
                    if !outcome.changed.is_empty() && !asked {
                        out.diff(&change.unified_diff());
                    }
                }
                outcome
            }
            None => {
                let outcome = tools::execute(input, self.workspace, &self.seen).await;
                // A command that only looks (`ls`, `git status`) is not
                // the change a change run asks for.
                let works = match input {
                    ToolInput::Bash(bash) => !crate::permissions::looks::only_looks(&bash.command),
                    _ => false,
                };
                self.commands_run += usize::from(works && outcome.ok);
                outcome
            }
        };
        if matches!(input, ToolInput::ListFiles(_) | ToolInput::Search(_)) {
            self.hide_denied_paths(&mut outcome);
        }
        // Any call that can write (a file tool making `.git/HEAD`, too) may
        // change which rules bind the next run.
        if !input.tool().is_read_only()
            && let Some(undone) = self.project_config.restore()
        {
            out.warn(&undone);
            outcome.ok = false;
            outcome.content.push_str(&format!("\n[{undone}]"));
        }
        if outcome.ok {
            // What the model now knows the content of: a file it read, or
            // the new place of a file it moved.
            match (input, last_path) {
                (ToolInput::ReadFile(args), Some(path)) => {
                    match tools::read_file::shown_lines(args, &path.real) {
                        Some((from, to, total)) => {
                            self.seen.insert_lines(&path.real, from, to, total)
                        }
                        None => self.seen.insert(&path.real),
                    }
                }
                (ToolInput::MoveFile(_), Some(path)) => self.seen.insert(&path.real),
                _ => {}
            }
        }
        self.changes += usize::from(!outcome.changed.is_empty());
        for file in &outcome.changed {
            if !self.files_changed.contains(file) {
                self.files_changed.push(file.clone());
            }
        }
        outcome
    }

    /// A call to a tool this mode does not offer, or that does not exist.
    fn refuse_unoffered(
        &mut self,
        session: &mut Session,
        out: &mut dyn Output,
        id: &str,
        name: &str,
        arguments: &Value,
    ) -> ToolOutcome {
        let turn = session.turns;
        let shown = ToolName::from_name(name)
            .and_then(|t| ToolInput::parse(t, arguments).ok())
            .map(|input| input.detail())
            .unwrap_or_default();
        out.tool_call(turn, id, name, &shown, arguments);
        let message = self.unknown_tool(name);
        if ToolName::from_name(name).is_some() {
            // A real tool this mode does not offer: a refusal by mode.
            let record = PermissionRecord {
                turn,
                tool_call_id: id.to_string(),
                tool: name.to_string(),
                detail: shown,
                allowed: false,
                source: Source::Mode,
                rule: None,
                reason: Some(message.clone()),
            };
            decide(session, out, record);
        }
        self.report(out, turn, id, name, ToolOutcome::error(message))
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
    fn report(
        &self,
        out: &mut dyn Output,
        turn: u32,
        id: &str,
        name: &str,
        mut outcome: ToolOutcome,
    ) -> ToolOutcome {
        if let Cow::Owned(clean) = self.secrets.scrub(&outcome.content) {
            outcome.content = clean;
        }
        if let Cow::Owned(clean) = self.secrets.scrub(&outcome.summary) {
            outcome.summary = clean;
        }
        out.tool_result(
            turn,
            id,
            name,
            outcome.ok,
            &outcome.summary,
            &outcome.content,
        );
        outcome
    }

    /// Settles the verdict on a call (docs/permissions.md): the approver
    /// is shown the change's diff and offered the call's exact rules for
    /// "always", which are then allowed in this run and the project config;
    /// a call no one could approve is listed in the run's denials.
    fn settle(
        &mut self,
        out: &mut dyn Output,
        verdict: Verdict,
        (name, detail): (&str, &str),
        change: Option<&FileChange>,
        exact: &[String],
    ) -> Settlement {
        let request = |ask_rule: Option<&str>| ApprovalRequest {
            tool: name.to_string(),
            detail: detail.to_string(),
            diff: change.map(|c| c.unified_diff()),
            always_rules: if ask_rule.is_some() {
                Vec::new()
            } else {
                exact.to_vec()
            },
        };
        let settled = permissions::settle(verdict, self.approver, request, name, exact);
        if settled.always {
            self.allow_always(out, exact);
        }
        if let Some(allow) = &settled.unapproved {
            let denial = Denial {
                tool: name.to_string(),
                detail: detail.to_string(),
                allow: allow.clone(),
            };
            // A call the model repeats is one action to approve, listed once.
            if !self.denials.contains(&denial) {
                self.denials.push(denial);
            }
        }
        settled
    }

    /// An "always" answer: the exact rules are allowed from now on, in this
    /// run and in the project config.
    fn allow_always(&mut self, out: &mut dyn Output, exact: &[String]) {
        for text in exact {
            match Rule::parse(Action::Allow, text) {
                Ok(rule) => self.rules.push(rule),
                Err(e) => out.warn(&e),
            }
            let added = project_config::add_allow_rule(&self.settings.project_config, text);
            self.project_config.accept();
            match added {
                Ok(path) => out.note(&format!("added `allow {text}` to `{}`", path.display())),
                Err(e) => out.warn(&format!("{e:#}")),
            }
        }
    }
}

/// Records a permission decision in the session and the output.
fn decide(session: &mut Session, out: &mut dyn Output, record: PermissionRecord) {
    out.permission(&record);
    session.permissions.push(record);
}
