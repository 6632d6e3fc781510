//! The GitHub Action (`action.yml`, docs/ci.md): its run script drives the
//! real `oc` against the fake server as a job would (inputs as `INPUT_*`,
//! `RUNNER_TEMP`, `GITHUB_OUTPUT`, `GITHUB_STEP_SUMMARY`), and its files
//! agree with each other and with README's exit codes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::json;

use crate::common::{FakeOllama, LOOP_DEFAULTS, MODEL, Reply, TestEnv, openai_mode};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// One job step: the runner's files and what the script printed.
struct Step {
    output: Output,
    outputs: String,
    summary: String,
}

impl Step {
    /// The value of a one-line output `name=value`.
    fn output(&self, name: &str) -> String {
        let prefix = format!("{name}=");
        let line = self.outputs.lines().find(|l| l.starts_with(&prefix));
        line.unwrap_or_else(|| panic!("no output {name}: {}", self.outputs))[prefix.len()..]
            .to_string()
    }

    /// The lines of a many-line output `name<<DELIMITER`.
    fn output_lines(&self, name: &str) -> Vec<String> {
        let head = format!("{name}<<");
        let mut lines = self.outputs.lines();
        let delimiter = lines
            .find_map(|l| l.strip_prefix(&head))
            .unwrap_or_else(|| panic!("no output {name}: {}", self.outputs));
        lines
            .take_while(|l| *l != delimiter)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).to_string()
    }
}

/// The runner's files of one step: its temp folder, outputs and summary.
struct Runner {
    temp: tempfile::TempDir,
}

impl Runner {
    fn outputs(&self) -> PathBuf {
        self.temp.path().join("outputs")
    }

    fn summary(&self) -> PathBuf {
        self.temp.path().join("summary.md")
    }

    /// What the step left, once it ended with `output`.
    fn finish(self, output: Output) -> Step {
        let step = Step {
            output,
            outputs: std::fs::read_to_string(self.outputs()).unwrap_or_default(),
            summary: std::fs::read_to_string(self.summary()).unwrap_or_default(),
        };
        assert!(
            step.output.status.success(),
            "the step itself must succeed whatever oc's exit code: {}",
            step.stderr()
        );
        // The OC_HOME it used lives under RUNNER_TEMP, which ends with this test.
        let home = PathBuf::from(step.output("home"));
        assert!(home.starts_with(self.temp.path()), "{}", home.display());
        std::mem::forget(self.temp);
        step
    }
}

/// Runs `action/run-oc.sh` in the workspace with the given inputs (the
/// action's names), as the action's "Run oc" step does.
fn run_step(env: &TestEnv, server: &FakeOllama, inputs: &[(&str, &str)]) -> Step {
    let (runner, mut cmd) = step_command(env, server, inputs);
    let output = cmd.output().unwrap();
    runner.finish(output)
}

/// The step's command, not yet started.
fn step_command(
    env: &TestEnv,
    server: &FakeOllama,
    inputs: &[(&str, &str)],
) -> (Runner, std::process::Command) {
    let runner = Runner {
        temp: tempfile::tempdir().unwrap(),
    };
    let mut cmd = std::process::Command::new("bash");
    cmd.arg(format!("{ROOT}/action/run-oc.sh"))
        .current_dir(env.work())
        .env_remove("OC_MODEL")
        .env_remove("OLLAMA_HOST")
        .env("HOME", env.home.path())
        .env("NO_COLOR", "1")
        .envs(LOOP_DEFAULTS)
        .env("OC_BIN", assert_cmd::cargo::cargo_bin("oc"))
        .env("OC_ACTION_PATH", ROOT)
        .env("RUNNER_TEMP", runner.temp.path())
        .env("GITHUB_OUTPUT", runner.outputs())
        .env("GITHUB_STEP_SUMMARY", runner.summary())
        .env("INPUT_MODEL", MODEL)
        .env("INPUT_TIMEOUT", "1m")
        .env("INPUT_OUTPUT_FORMAT", "text");
    if openai_mode() {
        cmd.env("INPUT_BASE_URL", format!("{}/v1", server.url));
    } else {
        cmd.env("INPUT_HOST", &server.url);
    }
    for (name, value) in inputs {
        cmd.env(
            format!("INPUT_{}", name.to_uppercase().replace('-', "_")),
            value,
        );
    }
    (runner, cmd)
}

fn workspace() -> TestEnv {
    let env = TestEnv::new();
    env.write("app.py", "BAD\n");
    env.commit_all();
    env
}

fn writes_good() -> Vec<Reply> {
    vec![
        Reply::tool_calls(&[("read_file", json!({"path": "app.py"}))]),
        Reply::tool_calls(&[("write_file", json!({"path": "app.py", "content": "GOOD\n"}))]),
        Reply::answer("Done: app.py says GOOD."),
    ]
}

fn sessions_in(home: &Path) -> usize {
    std::fs::read_dir(home.join("sessions")).map_or(0, |dir| dir.count())
}

#[test]
fn a_run_whose_check_passes_gives_exit_0_its_files_a_summary_and_its_records() {
    let env = workspace();
    let server = FakeOllama::start(writes_good());
    let step = run_step(
        &env,
        &server,
        &[
            ("prompt", "make app.py good"),
            ("check", "grep -q GOOD app.py"),
            ("args", "--no-precheck\n\n  -v  \n"),
        ],
    );
    assert_eq!(step.output("exit-code"), "0", "{}", step.stderr());
    assert_eq!(step.output_lines("files-changed"), ["app.py"]);
    assert_eq!(
        std::fs::read_to_string(env.work().join("app.py")).unwrap(),
        "GOOD\n"
    );
    let summary = &step.summary;
    assert!(summary.contains("oc run: exit 0, done"), "{summary}");
    assert!(
        summary.contains("`grep -q GOOD app.py` passed"),
        "{summary}"
    );
    assert!(
        summary.contains("| files changed | `app.py` |"),
        "{summary}"
    );
    assert!(summary.contains("Done: app.py says GOOD."), "{summary}");
    // What the artifact holds: the session, the record, oc's own output.
    let home = PathBuf::from(step.output("home"));
    assert_eq!(sessions_in(&home), 1);
    assert!(home.join("finetune.jsonl").is_file());
    let stdout = std::fs::read_to_string(step.output("stdout-file")).unwrap();
    assert!(stdout.contains("Done: app.py says GOOD."), "{stdout}");
    // The log shows the run as it went (stderr passed through).
    assert!(
        step.stderr().contains("write_file app.py"),
        "{}",
        step.stderr()
    );
}

#[test]
fn a_check_that_still_fails_after_two_tries_is_exit_6_with_each_try_in_the_summary() {
    let env = workspace();
    let try_once = || {
        vec![
            Reply::tool_calls(&[("read_file", json!({"path": "app.py"}))]),
            Reply::tool_calls(&[(
                "write_file",
                json!({"path": "app.py", "content": "WORSE\n"}),
            )]),
            Reply::answer("Done."),
        ]
    };
    let server = FakeOllama::start([try_once(), try_once()].concat());
    let step = run_step(
        &env,
        &server,
        &[
            ("prompt", "make app.py good"),
            ("check", "grep -q GOOD app.py"),
            ("attempts", "2"),
            ("args", "--no-precheck\n--check-rounds\n1"),
        ],
    );
    assert_eq!(step.output("exit-code"), "6", "{}", step.stderr());
    let summary = &step.summary;
    assert!(
        summary.contains("oc run: exit 6, the check still fails"),
        "{summary}"
    );
    assert!(
        summary.contains("`grep -q GOOD app.py` failed (exit 1)"),
        "{summary}"
    );
    assert!(summary.contains("| try | model | check |"), "{summary}");
    assert!(summary.contains("| 1 | `"), "{summary}");
    assert!(summary.contains("| 2 | `"), "{summary}");
    assert_eq!(sessions_in(&PathBuf::from(step.output("home"))), 2);
}

#[test]
fn allow_rules_replace_yes_so_a_change_no_rule_approves_is_denied() {
    let env = workspace();
    let server = FakeOllama::start(writes_good());
    let step = run_step(
        &env,
        &server,
        &[
            ("prompt", "make app.py good"),
            ("allow", "bash(true)\nread\n"),
        ],
    );
    assert_eq!(step.output("exit-code"), "5", "{}", step.stderr());
    assert_eq!(
        std::fs::read_to_string(env.work().join("app.py")).unwrap(),
        "BAD\n"
    );
    assert!(
        step.summary.contains("changes were denied"),
        "{}",
        step.summary
    );
    assert!(step.output_lines("files-changed").is_empty());
}

#[test]
fn a_run_that_cannot_start_says_why_in_the_summary() {
    let env = workspace();
    let server = FakeOllama::start(Vec::new());
    let step = run_step(
        &env,
        &server,
        &[
            ("prompt", "make app.py good"),
            ("model", "no-such-model:1b"),
        ],
    );
    assert_eq!(step.output("exit-code"), "3", "{}", step.stderr());
    let summary = &step.summary;
    assert!(summary.contains("oc run: exit 3"), "{summary}");
    assert!(
        summary.contains("oc ended before a run started"),
        "{summary}"
    );
    assert!(summary.contains("no-such-model:1b"), "{summary}");
    assert_eq!(step.output("session-id"), "");
}

/// An option set by an input and again in `args` is refused by name,
/// input included, before `oc` runs (exit 2, in the summary too).
#[test]
fn an_option_given_by_an_input_and_in_args_names_the_input() {
    let env = workspace();
    let server = FakeOllama::start(writes_good());
    for args in ["--max-turns\n3", "--max-turns=3"] {
        let step = run_step(
            &env,
            &server,
            &[
                ("prompt", "make app.py good"),
                ("max-turns", "5"),
                ("args", args),
            ],
        );
        assert_eq!(step.output("exit-code"), "2", "{}", step.stderr());
        let said = "`--max-turns` is set by the input `max-turns` and again in `args`";
        assert!(step.stderr().contains(said), "{}", step.stderr());
        assert!(step.summary.contains(said), "{}", step.summary);
    }
    assert!(server.chat_requests().is_empty());
}

#[test]
fn a_prompt_that_starts_with_a_dash_is_the_prompt_not_an_option() {
    let env = workspace();
    let server = FakeOllama::start(writes_good());
    let step = run_step(&env, &server, &[("prompt", "--help me make app.py good")]);
    assert_eq!(step.output("exit-code"), "0", "{}", step.stderr());
    let request = &server.chat_requests()[0];
    assert!(
        request.to_string().contains("--help me make app.py good"),
        "{request}"
    );
}

/// `name:` keys of the top-level section `section` of action.yml (two
/// spaces in).
fn keys_of(action: &str, section: &str) -> BTreeSet<String> {
    action
        .lines()
        .skip_while(|l| *l != format!("{section}:"))
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(':'))
        .filter(|k| !k.starts_with(' '))
        .map(str::to_string)
        .collect()
}

#[test]
fn every_input_of_the_action_reaches_its_scripts_and_every_script_input_is_given() {
    let action = std::fs::read_to_string(format!("{ROOT}/action.yml")).unwrap();
    let runs = action.split("\nruns:").nth(1).unwrap();
    let inputs = keys_of(&action, "inputs");
    assert!(inputs.contains("prompt") && inputs.len() > 10, "{inputs:?}");
    for input in &inputs {
        assert!(
            runs.contains(&format!("inputs.{input} ")),
            "input {input} is never used"
        );
    }
    let script = std::fs::read_to_string(format!("{ROOT}/action/run-oc.sh")).unwrap();
    let read: BTreeSet<&str> = script
        .split("INPUT_")
        .skip(1)
        .map(|rest| {
            rest.split(|c: char| !c.is_ascii_uppercase() && c != '_')
                .next()
                .unwrap()
        })
        .filter(|name| !name.is_empty())
        .collect();
    for name in read {
        assert!(
            action.contains(&format!("INPUT_{name}: ${{{{ inputs.")),
            "run-oc.sh reads INPUT_{name}, which action.yml never sets"
        );
    }
    for output in keys_of(&action, "outputs") {
        assert!(
            script.contains(&format!("{output}=")) || {
                let summary = std::fs::read_to_string(format!("{ROOT}/action/summary.py")).unwrap();
                summary.contains(&format!("{output}=")) || summary.contains(&format!("{output}<<"))
            },
            "output {output} is never written"
        );
    }
}

#[test]
fn the_summary_knows_every_exit_code_of_readme() {
    let readme = std::fs::read_to_string(format!("{ROOT}/README.md")).unwrap();
    let table = readme.split("## Exit codes").nth(1).unwrap();
    let codes: BTreeSet<String> = table
        .lines()
        .take_while(|l| !l.starts_with("## "))
        .filter_map(|l| l.strip_prefix("| ")?.split(' ').next())
        .filter(|c| c.chars().all(|ch| ch.is_ascii_digit()) && !c.is_empty())
        .map(str::to_string)
        .collect();
    let summary = std::fs::read_to_string(format!("{ROOT}/action/summary.py")).unwrap();
    let known: BTreeSet<String> = summary
        .split("EXIT_CODES = {")
        .nth(1)
        .unwrap()
        .split('}')
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().split(':').next())
        .filter(|c| !c.is_empty() && c.chars().all(|ch| ch.is_ascii_digit()))
        .map(str::to_string)
        .collect();
    assert!(codes.len() >= 10, "{codes:?}");
    assert_eq!(codes, known);
}

#[test]
fn docs_ci_lists_every_input_of_the_action() {
    let action = std::fs::read_to_string(format!("{ROOT}/action.yml")).unwrap();
    let docs = std::fs::read_to_string(format!("{ROOT}/docs/ci.md")).unwrap();
    let documented: BTreeSet<String> = docs
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .map(str::to_string)
        .collect();
    assert_eq!(keys_of(&action, "inputs"), documented);
    for output in keys_of(&action, "outputs") {
        assert!(
            docs.contains(&format!("`{output}`")),
            "docs/ci.md never names output {output}"
        );
    }
}

#[test]
fn what_the_model_writes_cannot_act_as_a_workflow_command_or_break_the_summary() {
    let env = workspace();
    let answer = "Done.\n```\n</details>\n# not a heading\n::error::not a command\n```";
    let server = FakeOllama::start(vec![Reply::answer(answer)]);
    let step = run_step(&env, &server, &[("prompt", "explain app.py")]);
    let log = String::from_utf8_lossy(&step.output.stdout).to_string();
    let token = log
        .lines()
        .find_map(|l| l.strip_prefix("::stop-commands::"))
        .unwrap_or_else(|| panic!("workflow commands never stopped: {log}"));
    let (before, after) = log.split_once("::error::not a command").unwrap();
    assert!(
        before.contains(&format!("::stop-commands::{token}")),
        "{log}"
    );
    assert!(after.contains(&format!("::{token}::")), "{log}");
    // The answer sits in a fence longer than any it holds.
    assert!(
        step.summary.contains("````text\nDone.\n```\n"),
        "{}",
        step.summary
    );
    assert!(step.summary.contains("```\n````\n"), "{}", step.summary);
}

#[test]
fn a_run_put_back_by_on_fail_revert_changed_no_file() {
    let env = workspace();
    let server = FakeOllama::start(writes_good());
    let step = run_step(
        &env,
        &server,
        &[
            ("prompt", "make app.py good"),
            ("check", "false"),
            ("on-fail", "revert"),
            ("args", "--no-precheck\n--check-rounds\n1"),
        ],
    );
    assert_eq!(step.output("exit-code"), "6", "{}", step.stderr());
    assert_eq!(
        std::fs::read_to_string(env.work().join("app.py")).unwrap(),
        "BAD\n"
    );
    assert!(
        step.output_lines("files-changed").is_empty(),
        "{}",
        step.outputs
    );
    assert!(
        step.summary.contains("(all put back: --on-fail revert)"),
        "{}",
        step.summary
    );
}

#[test]
fn a_cancelled_job_still_gets_its_exit_code_summary_and_artifact() {
    use std::os::unix::process::CommandExt;
    let env = workspace();
    let stalled = Reply::Stream {
        lines: vec![crate::common::fake_ollama::content_chunk("Thinking ")],
        split: None,
        end: crate::common::fake_ollama::End::Stall,
    };
    let server = FakeOllama::start(vec![stalled]);
    let (runner, mut cmd) = step_command(&env, &server, &[("prompt", "explain app.py")]);
    cmd.process_group(0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    // The request is in: the session exists.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while server.chat_requests().is_empty() {
        assert!(std::time::Instant::now() < deadline, "no request came");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // As a runner cancels a step: SIGTERM to its whole process group.
    let group = format!("-{}", child.id());
    let status = std::process::Command::new("kill")
        .args(["-TERM", "--", &group])
        .status()
        .unwrap();
    assert!(status.success());
    let step = runner.finish(child.wait_with_output().unwrap());
    assert_eq!(step.output("exit-code"), "143", "{}", step.stderr());
    assert!(
        step.summary.contains("exit 143, terminated (SIGTERM)"),
        "{}",
        step.summary
    );
    assert_eq!(sessions_in(&PathBuf::from(step.output("home"))), 1);
}
