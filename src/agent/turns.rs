//! The turn loop (ARCHITECTURE.md): send the conversation, stream the reply, answer
//! each of its calls, until the model answers without calls or the turn cap
//! is reached.

use super::answer::{Answered, Answerer};
use super::calls::CallRunner;
use super::check;
use super::context::{ContextMeter, request_tokens};
use super::edits::{Protocol, ReadCalls};
use super::ending::Ending;
use super::guards::{self, EmptyReply, EmptyReplyGuard, RepeatGuard};
use super::normalize;
use super::opening;
use super::reply::{self, Cut, PartialReply, Reading, Reply};
use super::room::{ContextFull, Room};
use super::setup::{self, ModelSetup};
use super::spectrum;
use super::text_calls::TextCallFilter;
use super::usage::{self, Speed};
use crate::client::{ChatOptions, ChatRequest, Message, ModelClient, Role};
use crate::config::Settings;
use crate::error::{Error, Result};
use crate::heuristics::Heuristic;
use crate::job::CheckPlan;
use crate::protocol::Context;
use crate::session::{AbortedReply, Check, Journal, Session, is_markup_only};
use crate::ui::Output;
use crate::vocab::{Task, TextTools};

/// What a turn leads to.
enum Step {
    /// Another turn.
    Next,
    /// The run ends.
    End(Ending),
}

/// State shared by the turns of one run.
pub(crate) struct Turns<'a> {
    settings: &'a Settings,
    client: &'a ModelClient,
    /// How this run talks to the model (fenced after a server refused the
    /// tool schemas).
    pub model: ModelSetup,
    options: ChatOptions,
    /// The session's turn count when this run began.
    first_turn: u32,
    partial: PartialReply,
    repeats: RepeatGuard,
    empty_replies: EmptyReplyGuard,
    /// How the model changes files.
    pub protocol: Protocol,
    /// Runs the calls under policy and keeps their tally.
    pub calls: CallRunner<'a>,
    /// `--check`, run when the model says it is done.
    pub check: Option<&'a CheckPlan>,
    /// How many times the check ran in this run.
    check_runs: u32,
    /// Replies cut short at the cap in a row; two end the run.
    cuts_in_a_row: u32,
    /// How the last reply was cut short, if it was.
    cut: Option<Cut>,
    /// The conversation's tokens.
    meter: ContextMeter,
    /// How fast the server reads and writes.
    speed: Speed,
    /// The last reply as written (text edit formats): the same reply twice
    /// is not asked for a third time.
    last_reply: Option<String>,
}

impl<'a> Turns<'a> {
    /// The loop for a session that has made `first_turn` turns so far.
    pub(crate) fn new(
        settings: &'a Settings,
        client: &'a ModelClient,
        model: &'a ModelSetup,
        first_turn: u32,
        protocol: Protocol,
        calls: CallRunner<'a>,
    ) -> Self {
        Turns {
            settings,
            client,
            model: model.clone(),
            options: model.options(settings),
            first_turn,
            partial: PartialReply::default(),
            repeats: RepeatGuard::default(),
            empty_replies: EmptyReplyGuard::default(),
            protocol,
            calls,
            check: None,
            check_runs: 0,
            cuts_in_a_row: 0,
            cut: None,
            meter: ContextMeter::default(),
            speed: Speed::default(),
            last_reply: None,
        }
    }

    /// Turns until an answer or the cap.
    pub(crate) async fn until_end(
        &mut self,
        session: &mut Journal<'_>,
        out: &mut dyn Output,
    ) -> Result<Ending> {
        loop {
            // `--max-turns` caps the requests of this run; the session's
            // turn counter goes on across resumed runs.
            if session.turns - self.first_turn >= self.settings.max_turns {
                return Ok(Ending::MaxTurns);
            }
            if let Err(full) = self.make_room(session.unsaved(), out).await? {
                session.close_calls("error: not run: the context is full")?;
                return Ok(Ending::ContextFull(full));
            }
            let Some((message, parsed)) = self.receive(session, out).await? else {
                continue;
            };
            let step = match message.tool_calls.is_empty() {
                true => self.without_calls(session, &message, out).await?,
                false => self.with_calls(session, &message, parsed, out).await?,
            };
            if let Step::End(ending) = step {
                return Ok(self.judged(ending));
            }
        }
    }

    /// A change run that answered without changing anything, with no
    /// `--check` to judge it, has not done its task: it ends
    /// [`Ending::NothingChanged`], not as answered. Commands may have made
    /// the change, so a run that ran one is left to its answer, as is one
    /// whose change was denied for want of approval (exit 5 says so).
    fn judged(&self, ending: Ending) -> Ending {
        // Only `oc run` routes to a change (plan and chat are answers).
        let change_run = self.model.task == Task::Change;
        // A denied change is said as one (exit 5).
        let nothing_done = self.calls.changes == 0
            && self.calls.commands_run == 0
            && self.calls.denials.is_empty();
        match ending {
            Ending::Answered if change_run && nothing_done && self.check.is_none() => {
                Ending::NothingChanged
            }
            other => other,
        }
    }

    /// One turn's request and reply: the reply streamed (fenced from then
    /// on when the server refuses tool schemas), read by the protocol,
    /// counted, kept in the session and saved before any call runs (a run
    /// killed mid-call leaves the calls on record, and a resumed run
    /// answers them as unknown). An empty reply gets one nudge (`None`: the
    /// next turn asks again); two end the run.
    ///
    /// Errors: the server's, and two empty replies in a row.
    async fn receive(
        &mut self,
        session: &mut Journal<'_>,
        out: &mut dyn Output,
    ) -> Result<Option<(Message, ReadCalls)>> {
        session.unsaved().turns += 1;
        let turn = session.turns;
        out.turn_started(turn);
        let sent = self.request_estimate(session);
        let reply = match self.stream_reply(session, out).await {
            Err(Error::ToolsRejected(why)) if self.can_fall_back() => {
                self.fall_back_to_fenced(session.unsaved(), &why, out);
                self.stream_reply(session, out).await?
            }
            other => other?,
        };
        let mut message = reply.message.clone();
        let parsed = self.protocol.read_reply(&mut message, turn);
        reply::show_held(out, turn, &message.content);
        self.count_usage(session.unsaved(), &reply, sent, out);
        self.cut = reply.cut;
        if let Some(cut) = reply.cut {
            guards::note_cut(session.unsaved(), cut, self.options.num_predict, out);
        }
        self.cuts_in_a_row = if reply.cut.is_some() {
            self.cuts_in_a_row + 1
        } else {
            0
        };
        // A reply cut short (all thinking, say) is cut, not empty.
        let empty = is_markup_only(&message.content)
            && reply.cut.is_none()
            && message.tool_calls.is_empty()
            && self.protocol.echoes() == 0
            && self.protocol.unplaced() == 0;
        // The repairs go on record with the reply, in its one save.
        normalize::record_repairs(session.unsaved(), out, &message, &parsed);
        session.push(message.clone())?;
        match self.empty_replies.check(empty) {
            EmptyReply::Nudge => {
                out.warn("the model sent an empty reply; asking it once to go on");
                session.push(Message::text(Role::User, self.protocol.empty_reply_nudge()))?;
                Ok(None)
            }
            EmptyReply::GiveUp => Err(Error::Server(
                "the model sent two empty replies in a row; try another model or a clearer prompt"
                    .into(),
            )),
            EmptyReply::Fine => Ok(Some((message, parsed))),
        }
    }

    /// A reply without calls: an answer, or what keeps the run going (a
    /// cut reply, code blocks that name no file or change nothing, a
    /// description of the change, a failed check).
    async fn without_calls(
        &mut self,
        session: &mut Journal<'_>,
        message: &Message,
        out: &mut dyn Output,
    ) -> Result<Step> {
        if let Some(step) = self.cut_short(session, message, out)? {
            return Ok(step);
        }
        if self.holds_unrun_call(&message.content) {
            session.unsaved().unexecuted_call = true;
            return Ok(Step::End(Ending::UnexecutedCall(
                "`--text-tools off` leaves it as text; drop it to run such calls",
            )));
        }
        if self.protocol.unplaced() > 0 {
            out.warn("the reply's code blocks name no file; asking for their paths");
            let text = format!("{} {}", guards::UNPLACED, self.protocol.how_to_change());
            session.push(Message::text(Role::User, text))?;
            return Ok(Step::Next);
        }
        if self.protocol.echoes() > 0 {
            return Ok(self.echoed(out));
        }
        if self.check_again(session, out).await? {
            return Ok(Step::Next);
        }
        // A check that passed decides: the work is done, whatever the
        // last reply holds.
        let checked = self.check.is_some() && session.check.as_ref().is_some_and(|c| c.passed);
        let unrun = self.protocol.unrun_call(&message.content);
        if let Some(why) = unrun.filter(|_| self.model.calls_in_text() && !checked) {
            session.unsaved().unexecuted_call = true;
            return Ok(Step::End(Ending::UnexecutedCall(why)));
        }
        Ok(Step::End(Ending::Answered))
    }

    /// Whatever the reply holds: two cut replies in a row end the run, the
    /// same reply again ends it, and a cut reply without calls is told to
    /// make smaller changes. `None`: none of these.
    fn cut_short(
        &mut self,
        session: &mut Journal<'_>,
        message: &Message,
        out: &mut dyn Output,
    ) -> Result<Option<Step>> {
        if self.cuts_in_a_row >= 2 {
            session.close_calls("error: not run: the run was stopped")?;
            return Ok(Some(Step::End(Ending::Cut(
                self.cut.unwrap_or(Cut::Length),
            ))));
        }
        if let Some(ending) = self.same_reply_again(session, message, out)? {
            return Ok(Some(Step::End(ending)));
        }
        if let Some(cut) = self.cut.filter(|_| message.tool_calls.is_empty()) {
            let text = format!(
                "{} {}",
                guards::cut_message(cut, self.options.num_predict),
                self.protocol.how_to_change()
            );
            session.push(Message::text(Role::User, text))?;
            return Ok(Some(Step::Next));
        }
        Ok(None)
    }

    /// File blocks that change nothing: after a change, the editing is
    /// done (the check decides); before, the task is not done.
    fn echoed(&self, out: &mut dyn Output) -> Step {
        if self.calls.changes > 0 {
            out.note("the reply changes nothing more; the editing is done");
            return Step::End(Ending::EditingDone);
        }
        if self.model.task == Task::Change {
            return Step::End(Ending::Unchanged);
        }
        Step::End(Ending::Answered)
    }

    /// A reply with calls: each answered; a run stuck on one call ends; in
    /// the text formats, calls that all went in are an answer once the
    /// check passes.
    async fn with_calls(
        &mut self,
        session: &mut Journal<'_>,
        message: &Message,
        parsed: ReadCalls,
        out: &mut dyn Output,
    ) -> Result<Step> {
        if let Some(step) = self.cut_short(session, message, out)? {
            return Ok(step);
        }
        let arguments = parsed.into_iter().map(|(arguments, _)| arguments);
        let mut answerer = Answerer {
            repeats: &mut self.repeats,
            calls: &mut self.calls,
            protocol: &mut self.protocol,
        };
        let calls = &message.tool_calls;
        let answered = (answerer.answer(session, out, calls, arguments, self.cut)).await?;
        session.save()?;
        match answered {
            Answered::Stuck => Ok(Step::End(Ending::Stuck)),
            Answered::All { failed }
                if self.protocol.done_when_calls_succeed()
                    && !self.protocol.looked_around(message)
                    && failed.len() < message.tool_calls.len()
                    && failed.iter().all(|c| self.protocol.refusal_is_final(c)) =>
            {
                if self.check_again(session, out).await? {
                    return Ok(Step::Next);
                }
                Ok(Step::End(Ending::Answered))
            }
            Answered::All { .. } => Ok(Step::Next),
        }
    }

    /// The same reply twice in a row in a text edit format: it is not
    /// asked for a third time. After a change the editing is done (the
    /// check decides); before any, nothing was done. `None`: not a repeat.
    fn same_reply_again(
        &mut self,
        session: &mut Journal<'_>,
        message: &Message,
        out: &mut dyn Output,
    ) -> Result<Option<Ending>> {
        // Requests to look around are answered anew each time; the repeat
        // guard for calls bounds them.
        if !matches!(self.protocol, Protocol::FileBlocks(_)) || self.protocol.looked_around(message)
        {
            return Ok(None);
        }
        let text = message
            .written
            .clone()
            .unwrap_or_else(|| message.content.clone());
        let again = self.last_reply.as_deref() == Some(text.as_str()) && !text.trim().is_empty();
        self.last_reply = Some(text);
        if !again {
            return Ok(None);
        }
        session.close_calls("error: not run: the same reply again")?;
        if self.calls.changes == 0 {
            return Ok(Some(Ending::Unchanged));
        }
        out.note("the model sent the same reply again; the editing is done");
        Ok(Some(Ending::EditingDone))
    }

    /// Whether a reply holds a tool call written as text that was left as
    /// text (`--text-tools off` with tool calls offered).
    fn holds_unrun_call(&self, content: &str) -> bool {
        let offered = self.protocol.text_call_tools();
        if self.settings.text_tools == TextTools::Auto || offered.is_empty() {
            return false;
        }
        let mut probe = TextCallFilter::new(offered, true);
        probe.push(content);
        probe.finish();
        !probe.into_parts().2.is_empty()
    }

    /// Runs the check once (the precheck), then adds the prompt to the
    /// session, with the files it is about (see [`super::opening`]), and
    /// sets the guards that read the prompt.
    ///
    /// Errors: the check cannot run as written (see [`check::precheck`]):
    /// the words that say why; nothing is added.
    pub(crate) async fn open(
        &mut self,
        session: &mut Journal<'_>,
        prompt: String,
        images: Vec<String>,
        out: &mut dyn Output,
    ) -> Result<(), String> {
        let mut precheck = match self.check.filter(|plan| plan.precheck) {
            Some(plan) => {
                // On record before it runs: an interrupted check failed.
                session.unsaved().precheck = Some(Check {
                    command: plan.command.clone(),
                    exit_code: None,
                    passed: false,
                    attempts: 0,
                    failing: None,
                    passed_tests: None,
                });
                session.save().ok();
                let calls = &self.calls;
                let scrub = |text: &str| calls.scrub(text).1;
                let (rules, workspace) = (calls.rules(), calls.workspace());
                let ran = check::precheck(plan, rules, workspace, &scrub, out).await;
                match ran {
                    Ok(precheck) => Some(precheck),
                    Err(unrunnable) => {
                        session.unsaved().precheck = unrunnable.check;
                        return Err(unrunnable.message);
                    }
                }
            }
            None => None,
        };
        if let Some(p) = precheck.as_mut().filter(|p| !p.check.passed)
            && self.settings.enabled(Heuristic::Spectrum)
        {
            let (rules, workspace) = (self.calls.rules(), self.calls.workspace());
            let (command, output) = (&p.check.command, &p.output);
            p.suspects = spectrum::localise(command, output, rules, workspace, p.elapsed, out)
                .await
                .unwrap_or_default();
        }
        if let Some(p) = &precheck {
            session.unsaved().precheck = Some(p.check.clone());
        }
        let start = opening::Start::for_run(self.settings, &self.model, precheck.as_ref());
        let (protocol, calls) = (&mut self.protocol, &mut self.calls);
        let prompt_at = session.messages().len();
        opening::open(session.unsaved(), prompt, protocol, calls, start, out).await;
        // The opening's first message is the user's prompt; the images go with it.
        if let Some(message) = session.unsaved().messages_unsaved().get_mut(prompt_at) {
            message.images = images;
        }
        // The opening is on disk before the first request, which may take
        // minutes; a file that cannot be written fails the next save.
        session.save().ok();
        Ok(())
    }

    /// How many times `--check` ran in this run.
    pub(crate) fn check_runs(&self) -> u32 {
        self.check_runs
    }

    /// The model says it is done: runs `--check`, if any. When it fails and
    /// attempts and turns are left, its output goes back to the model and
    /// this returns true (go on).
    async fn check_again(
        &mut self,
        session: &mut Journal<'_>,
        out: &mut dyn Output,
    ) -> Result<bool> {
        let Some(plan) = self.check else {
            return Ok(false);
        };
        self.check_runs += 1;
        let round = check::Round {
            plan,
            attempt: self.check_runs,
            turns_left: session.turns - self.first_turn < self.settings.max_turns,
            how: self.protocol.how_to_change(),
        };
        match round.run(&self.calls, session.unsaved(), out).await {
            Some(feedback) => {
                session.push(feedback)?;
                Ok(true)
            }
            None => {
                session.save()?;
                Ok(false)
            }
        }
    }

    /// Keeps a reply cut short by a signal or the timeout in the session.
    pub(crate) fn keep_partial_reply(&mut self, session: &mut Session) {
        let partial = std::mem::take(&mut self.partial);
        if !partial.raw.is_empty() || !partial.thinking.is_empty() {
            session.aborted_reply = Some(AbortedReply {
                aborted: true,
                content: partial.raw,
                thinking: partial.thinking,
            });
        }
    }

    /// Whether the run can go on without native tool calls: it sends tool
    /// schemas now.
    fn can_fall_back(&self) -> bool {
        matches!(self.protocol, Protocol::ToolCalls { fenced: false, .. })
    }

    /// After a server refused the tool schemas (an OpenAI-compatible server
    /// without a tool-call template): the tools are described in the system
    /// prompt and called as ```tool fences from now on, as for an Ollama
    /// model without the `tools` capability.
    fn fall_back_to_fenced(&mut self, session: &mut Session, why: &str, out: &mut dyn Output) {
        out.note(&format!(
            "the server refused the tool schemas ({why}); going on with the tools described in the system prompt (```tool fences)"
        ));
        self.model.fenced = true;
        self.protocol = self
            .model
            .protocol(&self.settings.cwd, self.settings.heuristics);
        let own_prompt = self.settings.system_prompt.is_none();
        if let Some(system) = session
            .messages_unsaved()
            .first_mut()
            .filter(|m| own_prompt && m.role == Role::System)
        {
            system.content = setup::system_prompt(self.settings, &self.model, &self.settings.cwd);
        }
    }

    /// Sends the conversation and streams the reply, printing as it comes.
    async fn stream_reply(&mut self, session: &Session, out: &mut dyn Output) -> Result<Reply> {
        let messages = self.protocol.wire(session.messages());
        let tools = self.model.wire_schemas();
        let request = ChatRequest {
            model: &self.settings.model,
            messages: &messages,
            tools,
            stream: true,
            think: self.model.think,
            options: self.options,
            format: self.model.output_schema.as_ref(),
            first_byte: self.speed.first_byte(
                request_tokens(&messages, tools),
                self.settings.timeouts.first_byte,
            ),
        };
        let reading = Reading {
            tools: self.protocol.text_call_tools().to_vec(),
            recover: self.settings.text_tools == TextTools::Auto && self.model.calls_in_text(),
            hold_content: !out.streams_content(),
            block_paths: self.protocol.block_paths(),
        };
        let turn = session.turns;
        reply::stream(
            self.client,
            &request,
            &reading,
            turn,
            &mut self.partial,
            out,
        )
        .await
    }

    /// Compacts the conversation when the next request would pass
    /// `--compact-at` of the context (see [`super::room`]).
    async fn make_room(
        &mut self,
        session: &mut Session,
        out: &mut dyn Output,
    ) -> Result<std::result::Result<(), ContextFull>> {
        let room = Room {
            client: self.client,
            model: &self.settings.model,
            options: self.options,
            schemas: self.model.wire_schemas(),
            compact_at: self.settings.compact_at,
        };
        let protocol = &self.protocol;
        let wire = |messages: &[Message]| protocol.wire(messages).into_owned();
        room.make(session, &wire, &mut self.meter, out).await
    }

    /// The estimated tokens of the next request, as it goes on the wire.
    fn request_estimate(&self, session: &Session) -> u64 {
        request_tokens(
            &self.protocol.wire(session.messages()),
            self.model.wire_schemas(),
        )
    }

    /// The server's speed as measured in this run.
    pub(crate) fn speed(&self) -> crate::protocol::Speed {
        self.speed.report()
    }

    /// The conversation's tokens now, of `num_ctx`.
    pub(crate) fn context(&self, session: &Session) -> Context {
        Context {
            used: self.meter.tokens(self.request_estimate(session)),
            max: self.options.num_ctx,
        }
    }

    /// Adds the reply's tokens to the session and the meters (see
    /// [`usage::count`]).
    fn count_usage(
        &mut self,
        session: &mut Session,
        reply: &Reply,
        sent: u64,
        out: &mut dyn Output,
    ) {
        let configured = self.settings.num_ctx;
        let (meter, speed) = (&mut self.meter, &mut self.speed);
        usage::count(
            session,
            reply,
            sent,
            meter,
            speed,
            self.options,
            configured,
            out,
        );
    }
}
