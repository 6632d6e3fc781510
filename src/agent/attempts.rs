//! `--attempts N` and `--fallback-model` (docs/attempts.md): fresh tries at
//! one job, each judged by `--check`. A try whose check fails is set aside
//! (its changes put back, kept in its session's checkpoint record), and the
//! next starts a new conversation from the tree the run found, with the next
//! seed and model. The first try that passes is the result; when none does,
//! the workspace holds the try that came closest (the most passing tests,
//! then the fewest failing).
//! The tries share the run's `--timeout` and `--max-turns`.

use std::time::Instant;

use super::close::Closed;
use crate::checkpoint;
use crate::client::{ModelClient, ModelInfo};
use crate::config::Settings;
use crate::error::{Error, ExitStatus, Result};
use crate::job::{Job, put_back, write_last_message};
use crate::protocol::AttemptSummary;
use crate::session::{Attempt, Session, Store, Usage, now_rfc3339};
use crate::ui::Output;

/// The tries a run allows, and what each one runs with.
pub(crate) struct Tries<'a> {
    settings: &'a Settings,
    /// How many tries the run allows (1: a run without `--attempts`).
    pub count: u32,
}

impl<'a> Tries<'a> {
    pub(crate) fn new(settings: &'a Settings, count: u32) -> Self {
        Tries {
            settings,
            count: count.max(1),
        }
    }

    /// The run's models in the order the tries use them: `--model`, then
    /// each `--fallback-model` (only in a run of several tries).
    fn models(&self) -> Vec<&'a str> {
        let mut models = vec![self.settings.model.as_str()];
        if self.count > 1 {
            models.extend(self.settings.fallback_models.iter().map(String::as_str));
        }
        models
    }

    /// The models the tries use, in order, once each.
    pub(crate) fn model_names(&self) -> Vec<&'a str> {
        let mut names = self.models();
        names.truncate(self.count as usize);
        names.dedup();
        names
    }

    /// Which of [`Tries::models`] try `number` (from 1) uses: one each in
    /// turn, the last one for the tries left.
    pub(crate) fn model_index(&self, number: u32) -> usize {
        let last = self.models().len() - 1;
        usize::try_from(number.saturating_sub(1)).map_or(last, |n| n.min(last))
    }

    /// Every model's capabilities (Ollama `/api/show`), in the order of
    /// [`Tries::models`].
    ///
    /// Errors: as [`ModelClient::show`]: the server cannot be reached, a
    /// model is not on it (exit 3).
    pub(crate) async fn model_infos(&self, client: &ModelClient) -> Result<Vec<ModelInfo>> {
        let mut infos = Vec::new();
        for (n, model) in self.models().into_iter().enumerate() {
            let info = client.show(model).await.map_err(|e| match e {
                Error::ModelNotFound { model, host, available } if n > 0 => {
                    Error::Unavailable(format!(
                        "fallback model `{model}` is not on the Ollama server at {host}{available}\nPull it with `ollama pull {model}`, or change `--fallback-model` (config `fallback_models`); `oc models` lists what the server has."
                    ))
                }
                Error::Unavailable(why) if n > 0 => Error::Unavailable(format!(
                    "{why}\n`{model}` is a fallback model: change `--fallback-model` (config `fallback_models`)"
                )),
                other => other,
            })?;
            infos.push(info);
        }
        Ok(infos)
    }

    /// The settings of try `number`: its model, its seed (`--seed` plus
    /// the tries before it; without `--seed` the server draws one), and
    /// the turns of `--max-turns` the earlier tries left (`used`).
    pub(crate) fn settings(&self, number: u32, used: u32) -> Settings {
        let mut settings = self.settings.clone();
        settings.model = self.models()[self.model_index(number)].to_string();
        let before = i64::from(number.saturating_sub(1));
        settings.sampling.seed = (settings.sampling.seed).map(|seed| seed.saturating_add(before));
        settings.max_turns = self.settings.max_turns.saturating_sub(used).max(1);
        settings
    }

    /// What the session of try `number` records of it (`None` in a run of
    /// one try); `run_id` is empty for the first try, which gives its own.
    pub(crate) fn mark(&self, number: u32, run_id: Option<&str>) -> Option<Attempt> {
        (self.count > 1).then(|| Attempt {
            run_id: run_id.unwrap_or_default().to_string(),
            number,
            of: self.count,
            set_aside: false,
        })
    }
}

/// The tries made so far, in order.
#[derive(Default)]
pub(crate) struct Tried {
    closed: Vec<(Closed, String)>,
    of: u32,
}

impl Tried {
    /// The model requests the tries made.
    pub(crate) fn turns(&self) -> u32 {
        self.closed.iter().map(|(c, _)| c.summary.turns).sum()
    }

    /// The run's id, once its first try has a session.
    pub(crate) fn run_id(&self) -> Option<&str> {
        self.closed
            .first()
            .map(|(c, _)| c.summary.session_id.as_str())
    }

    /// Adds try `number` of `of`, made by `model`. A try set aside is shown
    /// at once; the last one when the run has chosen what it keeps.
    pub(crate) fn push(
        &mut self,
        closed: Closed,
        model: String,
        number: u32,
        of: u32,
        out: &mut dyn Output,
    ) {
        self.of = of;
        if of > 1 && closed.set_aside {
            out.attempt_completed(&summary_of(&closed, &model, number, false), of);
        }
        self.closed.push((closed, model));
    }

    /// Ends the run: with several tries, the workspace keeps the one that
    /// came closest when none passed; the last try and the summary (the
    /// kept try's, with the whole run's turns, tokens and time, and every
    /// try) are shown. Returns the run's exit status.
    pub(crate) fn finish(
        mut self,
        job: &Job,
        store: Option<&Store>,
        started: Instant,
        out: &mut dyn Output,
    ) -> ExitStatus {
        if self.of <= 1 {
            let Some((closed, _)) = self.closed.pop() else {
                return ExitStatus::Failure;
            };
            out.session_completed(&closed.summary);
            return closed.exit;
        }
        let made = self.closed.len();
        if made < self.of as usize && self.closed[made - 1].0.set_aside {
            out.warn(&format!(
                "`--max-turns` is spent: no try after try {made} of {}",
                self.of
            ));
        }
        // A try set aside was shown as it ended; the last one not yet.
        let last_shown = self.closed[made - 1].0.set_aside;
        let kept = self.keep_closest(job, store, out);
        // With `--on-fail revert` a failed run leaves nothing of any try.
        let in_workspace = |n: usize, closed: &Closed| {
            let reverted = job.revert_on_fail && closed.exit != ExitStatus::Success;
            n == kept && !closed.set_aside && !reverted
        };
        let (last, model) = &self.closed[made - 1];
        if !last_shown {
            let number = u32::try_from(made).unwrap_or(u32::MAX);
            let shown = summary_of(last, model, number, in_workspace(made - 1, last));
            out.attempt_completed(&shown, self.of);
        }
        let (closed, _) = &self.closed[kept];
        let mut exit = closed.exit;
        let mut summary = closed.summary.clone();
        if kept + 1 != made {
            // Its changes were put back for the next try, then brought back.
            summary.reverted = Vec::new();
            exit = ExitStatus::CheckFailed;
            if let Some(path) = &job.last_message_file {
                exit = write_last_message(path, &summary.final_text, exit, out);
            }
            summary.exit_code = exit.code();
        }
        summary.attempts = (self.closed.iter().enumerate())
            .map(|(n, (c, model))| {
                let number = u32::try_from(n + 1).unwrap_or(u32::MAX);
                summary_of(c, model, number, in_workspace(n, c))
            })
            .collect();
        let tries = || self.closed.iter().map(|(c, _)| &c.summary);
        summary.turns = self.turns();
        summary.usage = Usage {
            prompt_tokens: tries().map(|s| s.usage.prompt_tokens).sum(),
            completion_tokens: tries().map(|s| s.usage.completion_tokens).sum(),
        };
        summary.tool_calls = tries().map(|s| s.tool_calls).sum();
        summary.duration_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        out.session_completed(&summary);
        exit
    }

    /// Which try the workspace keeps: the last, unless every try failed its
    /// check and an earlier one came closer ([`closest`]); that one's
    /// changes are then brought back (and the last one's put back). With
    /// `--on-fail revert` the workspace stays as the run found it.
    fn keep_closest(&mut self, job: &Job, store: Option<&Store>, out: &mut dyn Output) -> usize {
        let last = self.closed.len() - 1;
        let (ending_last, _) = &self.closed[last];
        let failed_check = (ending_last.session.check.as_ref())
            .is_some_and(|c| !c.passed && c.exit_code.is_some());
        if job.revert_on_fail || !failed_check {
            return last;
        }
        let closest = closest(self.closed.iter().map(|(c, _)| &c.session));
        if closest == last && !ending_last.set_aside {
            return last;
        }
        let root = std::path::PathBuf::from(&ending_last.session.cwd);
        if !self.closed[last].0.set_aside {
            let (closed, _) = &mut self.closed[last];
            let record = closed.session.checkpoint.clone();
            match record.as_ref().map(|r| put_back(r, &root)) {
                Some(Ok(_)) => {
                    mark(&mut closed.session, true);
                    closed.set_aside = true;
                    save(store, &mut closed.session, out);
                }
                _ => {
                    out.warn(
                        "the last try's changes could not be put back; the workspace keeps them",
                    );
                    return last;
                }
            }
        }
        let made = self.closed.len();
        let (closed, _) = &mut self.closed[closest];
        let redone =
            (closed.session.checkpoint.as_ref()).map(|record| checkpoint::redo(record, &root));
        match redone {
            Some(Ok(())) => {
                mark(&mut closed.session, false);
                closed.set_aside = false;
                save(store, &mut closed.session, out);
                out.warn(&format!(
                    "no try passed the check; the workspace keeps try {} of {}, which came closest{}",
                    closest + 1,
                    made,
                    match closed.session.check.as_ref().and_then(|c| c.failing) {
                        Some(n) => format!(" ({n} failing)"),
                        None => String::new(),
                    }
                ));
            }
            Some(Err(why)) => out.warn(&format!(
                "no try passed the check, and try {}'s changes could not be brought back: {why}",
                closest + 1
            )),
            None => {}
        }
        closest
    }
}

/// The try that came closest: the most passing tests (where the check's
/// output says: a try that broke the tests' import runs fewer), then the
/// fewest failing, the latest among equals; the last when no check's
/// output said.
fn closest<'a>(sessions: impl Iterator<Item = &'a Session>) -> usize {
    let tallies: Vec<Option<(u32, u32)>> = sessions
        .map(|s| {
            s.check
                .as_ref()
                .and_then(|c| Some((c.passed_tests.unwrap_or(0), c.failing?)))
        })
        .collect();
    let last = tallies.len().saturating_sub(1);
    (tallies.iter().enumerate())
        .filter_map(|(n, tally)| tally.map(|(passed, failing)| (passed, failing, n)))
        .min_by_key(|&(passed, failing, n)| {
            (std::cmp::Reverse(passed), failing, std::cmp::Reverse(n))
        })
        .map_or(last, |(_, _, n)| n)
}

/// Marks a try's session as set aside (its changes put back) or kept.
fn mark(session: &mut Session, set_aside: bool) {
    if let Some(attempt) = &mut session.attempt {
        attempt.set_aside = set_aside;
    }
    if let Some(record) = &mut session.checkpoint {
        record.undone_at = set_aside.then(now_rfc3339);
    }
}

/// Saves a try's session again; a failure is a warning.
fn save(store: Option<&Store>, session: &mut Session, out: &mut dyn Output) {
    if let Some(Err(e)) = store.map(|store| store.save(session)) {
        out.warn(&format!("{e:#}"));
    }
}

/// A try as the result's `attempts` and the `attempt.completed` event
/// show it; `kept`: its changes are what the workspace holds.
fn summary_of(closed: &Closed, model: &str, number: u32, kept: bool) -> AttemptSummary {
    let check = closed.session.check.as_ref();
    AttemptSummary {
        number,
        model: model.to_string(),
        session_id: closed.summary.session_id.clone(),
        saved: closed.summary.saved,
        exit_code: closed.exit.code(),
        exit_reason: closed.summary.exit_reason.clone(),
        exit_detail: closed.summary.exit_detail.clone(),
        check_passed: check.is_some_and(|c| c.passed),
        failing: check.and_then(|c| c.failing),
        passed_tests: check.and_then(|c| c.passed_tests),
        turns: closed.summary.turns,
        usage: closed.summary.usage,
        duration_ms: closed.summary.duration_ms,
        kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Check;

    fn with_tally(passed_tests: Option<u32>, failing: Option<u32>) -> Session {
        let mut session = Session::new(
            crate::vocab::Mode::Code,
            "m",
            "h",
            std::path::Path::new("/w"),
            "fix",
            2048,
        );
        session.check = Some(Check {
            command: "pytest".into(),
            exit_code: Some(1),
            passed: false,
            attempts: 1,
            failing,
            passed_tests,
        });
        session
    }

    #[test]
    fn the_closest_try_passes_the_most_tests_then_fails_the_fewest_and_is_the_latest_among_equals()
    {
        type Tally = (Option<u32>, Option<u32>);
        let sessions = |tallies: &[Tally]| -> Vec<Session> {
            tallies.iter().map(|&(p, f)| with_tally(p, f)).collect()
        };
        let cases: &[(&[Tally], usize)] = &[
            (&[(None, Some(3)), (None, Some(1)), (None, Some(2))], 1),
            (&[(None, Some(1)), (None, Some(1)), (None, Some(2))], 1),
            (&[(None, None), (None, None)], 1),
            (&[(None, Some(2)), (None, None)], 0),
            (&[(None, Some(0))], 0),
            // A try whose tests did not import: one error, nothing passed.
            (
                &[(Some(0), Some(1)), (Some(1), Some(2)), (Some(1), Some(2))],
                2,
            ),
        ];
        for (tallies, expected) in cases {
            assert_eq!(closest(sessions(tallies).iter()), *expected, "{tallies:?}");
        }
    }
}
