//! The sandbox around `bash` (docs/permissions.md, "Sandbox"): the kernel
//! (Landlock) refuses writes outside the workspace and network access,
//! nothing a command starts outlives it, and runs record the confinement
//! they had.
//! Each test is a real `oc run --yes` against the fake server.

use std::path::Path;

use serde_json::{Value, json};

use super::signals::{send, wait};
use crate::common::{
    FakeOllama, Reply, TestEnv, bash_calls, processes_named, tool_results, wait_for_processes,
};

/// The tool results of the first request after the calls.
fn results(server: &FakeOllama) -> Vec<String> {
    tool_results(&server.chat_requests()[1])
}

fn stderr_of(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn writes_outside_the_workspace_are_refused_by_the_kernel() {
    let env = TestEnv::new();
    // The workspace is a folder of the repository, so `..` is still a
    // directory the test owns.
    std::fs::create_dir(env.work().join("inner")).unwrap();
    let fresh = tempfile::tempdir().unwrap();
    let outside = fresh.path().join("x");
    let touch = format!("touch {}", outside.display());
    let server = bash_calls(&[
        "echo x > ../outside.txt",
        &touch,
        "echo x > in.txt && cat in.txt",
        "echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && echo \"$TMPDIR\"",
    ]);
    let out = env
        .oc(&server)
        .current_dir(env.work().join("inner"))
        .args(["run", "--yes", "--output-format", "json", "write files"])
        .assert()
        .success();
    let results = results(&server);
    assert!(
        results[0].contains("Permission denied") && results[0].contains("[exit code 1]"),
        "{}",
        results[0]
    );
    assert!(
        results[0].contains("[sandbox: `") && results[0].contains("outside.txt` is outside"),
        "the refusal is explained: {}",
        results[0]
    );
    assert!(!env.work().join("outside.txt").exists());
    assert!(results[1].contains("Permission denied"), "{}", results[1]);
    assert!(!outside.exists(), "{} was created", outside.display());
    assert_eq!(results[2], "x\n[exit code 0]");
    assert!(env.work().join("inner/in.txt").exists());
    let tmp_lines: Vec<&str> = results[3].lines().collect();
    assert_eq!(tmp_lines[0], "t", "{}", results[3]);
    assert!(
        Path::new(tmp_lines[1])
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("oc-run-")),
        "TMPDIR is the run's own: {}",
        results[3]
    );
    assert!(
        !Path::new(tmp_lines[1]).exists(),
        "the run's temp directory is removed at the end"
    );

    let confined = json!({"mode": "workspace-write", "network": "off"});
    let summary: Value = serde_json::from_slice(&out.get_output().stdout).expect("one JSON object");
    assert_eq!(summary["sandbox"], confined);
    assert_eq!(env.session()["sandbox"], confined);
    assert_eq!(env.finetune()[0]["sandbox"], confined);
}

/// A sandboxed command leads a session of its own: no controlling
/// terminal to write to or push keystrokes into.
#[test]
fn a_sandboxed_command_has_no_terminal() {
    let env = TestEnv::new();
    let server = bash_calls(&[
        "awk '{print ($6 == $1) ? \"own session\" : \"shared session\"}' /proc/$$/stat",
    ]);
    env.oc(&server)
        .args(["run", "--yes", "run a command in the sandbox"])
        .assert()
        .success();
    assert_eq!(results(&server)[0], "own session\n[exit code 0]");
}

#[test]
fn read_only_allows_only_the_temp_directory() {
    let env = TestEnv::new();
    let server = bash_calls(&[
        "echo x > in.txt",
        "echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"",
    ]);
    env.oc(&server)
        .args(["run", "--yes", "--sandbox", "read-only", "write"])
        .assert()
        .success();
    let results = results(&server);
    assert!(
        results[0].contains("Permission denied") && results[0].contains("read-only sandbox"),
        "{}",
        results[0]
    );
    assert!(!env.work().join("in.txt").exists());
    assert_eq!(results[1], "t\n[exit code 0]");
    assert_eq!(
        env.session()["sandbox"],
        json!({"mode": "read-only", "network": "off"})
    );
}

#[test]
fn plan_mode_records_a_read_only_sandbox() {
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![Reply::answer("1. do it")]);
    env.oc(&server)
        .args(["plan", "how to fix it"])
        .assert()
        .success();
    assert_eq!(env.session()["sandbox"]["mode"], "read-only");
}

#[test]
fn add_dir_makes_another_directory_writable() {
    let env = TestEnv::new();
    let extra = tempfile::tempdir().unwrap();
    let command = format!(
        "echo y > {}/y && cat {}/y",
        extra.path().display(),
        extra.path().display()
    );
    let server = bash_calls(&[&command]);
    env.oc(&server)
        .args(["run", "--yes", "--add-dir"])
        .arg(extra.path())
        .arg("write there")
        .assert()
        .success();
    assert_eq!(results(&server)[0], "y\n[exit code 0]");

    let server = FakeOllama::start(vec![Reply::answer("no")]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--add-dir", "no/such/dir", "x"])
        .assert()
        .code(2);
    let stderr = stderr_of(out.get_output());
    assert!(
        stderr.contains("--add-dir no/such/dir") && stderr.contains("No such file or directory"),
        "{stderr}"
    );
}

/// Python's `socket.create_connection` to a listening socket on
/// 127.0.0.1, with the network off (the default) and on.
#[test]
fn the_network_is_off_unless_asked_for() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port})); print(\"connected\")'"
    );
    for (flags, connected) in [(vec![], false), (vec!["--network", "on"], true)] {
        let env = TestEnv::new();
        let server = bash_calls(&[&connect]);
        // A refused connection fails the command: the run did nothing.
        env.oc(&server)
            .args(["run", "--yes"])
            .args(&flags)
            .arg("connect")
            .assert()
            .code(if connected { 0 } else { 4 });
        let result = &results(&server)[0];
        if connected {
            assert_eq!(result, "connected\n[exit code 0]");
            assert_eq!(env.session()["sandbox"]["network"], "on");
        } else {
            assert!(result.contains("PermissionError"), "{result}");
            assert!(
                result.contains("[sandbox: network access is off"),
                "{result}"
            );
            assert_eq!(env.session()["sandbox"]["network"], "off");
        }
    }
}

/// What Landlock does not see is refused too with the network off (a
/// seccomp filter): UDP and MPTCP sockets, TCP Fast Open to a listening
/// socket; and never may a command change `oc`'s resource limits.
#[test]
fn what_landlock_does_not_see_is_refused_too() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let probe = format!(
        "python3 -c '
import os, resource, socket
for name, args in [(\"udp\", (socket.AF_INET, socket.SOCK_DGRAM)), (\"mptcp\", (socket.AF_INET, socket.SOCK_STREAM, 262)), (\"unix\", (socket.AF_UNIX, socket.SOCK_STREAM))]:
    try:
        socket.socket(*args).close(); print(name, \"made\")
    except OSError as e:
        print(name, \"refused\", e.errno)
try:
    socket.socket().sendto(b\"GET /\", 0x20000000, (\"127.0.0.1\", {port})); print(\"fast open sent\")
except OSError as e:
    print(\"fast open refused\", e.errno)
try:
    resource.prlimit(os.getppid(), resource.RLIMIT_NOFILE, (5, 5)); print(\"limit of oc set\")
except OSError as e:
    print(\"limit of oc refused\", e.errno)
'"
    );
    let env = TestEnv::new();
    let server = bash_calls(&[&probe]);
    env.oc(&server)
        .args(["run", "--yes", "probe"])
        .assert()
        .success();
    assert_eq!(
        results(&server)[0],
        "udp refused 13\nmptcp refused 13\nunix made\nfast open refused 13\nlimit of oc refused 1\n[exit code 0]"
    );
}

/// Descriptors `oc` inherited, the binary's path, device nodes, signals:
/// none of them is a way out.
#[test]
fn the_ways_around_the_walls_are_closed() {
    let env = TestEnv::new();
    let inner = env.work().join("inner");
    std::fs::create_dir_all(inner.join("bin")).unwrap();
    let oc = inner.join("bin/oc");
    std::fs::copy(assert_cmd::cargo::cargo_bin("oc"), &oc).unwrap();
    let leak = env.work().join("leak.txt");
    let server = bash_calls(&[
        "echo leaked >&5",
        "mv bin/oc bin/oc.real && printf '#!/bin/sh\necho replaced > ../escaped.txt\n' > bin/oc && chmod +x bin/oc",
        "echo x > ../outside.txt",
        "mknod null-copy c 1 3",
        "kill -0 $PPID",
    ]);
    // `oc` started with descriptor 5 open on a file outside the workspace.
    let script = format!(
        "exec 5>>'{}'; exec '{}' run --yes probe",
        leak.display(),
        oc.display()
    );
    let mut cmd = assert_cmd::Command::new("bash");
    cmd.arg("-c").arg(script);
    for (key, value) in env.oc(&server).get_envs() {
        match value {
            Some(value) => cmd.env(key, value),
            None => cmd.env_remove(key),
        };
    }
    cmd.current_dir(&inner).assert().success();
    let results = results(&server);
    assert!(results[0].contains("Bad file descriptor"), "{}", results[0]);
    assert_eq!(std::fs::read_to_string(&leak).unwrap(), "");
    assert!(results[2].contains("Permission denied"), "{}", results[2]);
    assert!(!env.work().join("outside.txt").exists());
    assert!(
        !env.work().join("escaped.txt").exists(),
        "the replaced binary ran"
    );
    assert!(!inner.join("null-copy").exists(), "{}", results[3]);
    assert!(
        results[4].contains("Operation not permitted")
            && results[4].contains("[sandbox: commands may not send signals"),
        "{}",
        results[4]
    );
}

/// `setsid` takes a process out of the command's group; it is still ended
/// when the command ends, with the sandbox and without.
#[test]
fn no_process_outlives_its_command() {
    for sandbox in ["workspace-write", "off"] {
        let env = TestEnv::new();
        let marker = format!("oc-setsid-{sandbox}-{}", std::process::id());
        let start =
            format!("setsid bash -c 'exec -a {marker} sleep 300' & sleep 0.3; echo started");
        // The second call runs after the first has ended: it counts what
        // is left of it.
        let count = format!(
            "for p in /proc/[0-9]*; do tr '\\0' ' ' 2>/dev/null < $p/cmdline; echo; done | grep -c '^{marker}' || true"
        );
        let server = bash_calls(&[&start, &count]);
        env.oc(&server)
            .args(["run", "--yes", "--sandbox", sandbox, "start a daemon"])
            .assert()
            .success();
        let results = results(&server);
        assert!(results[0].starts_with("started"), "{}", results[0]);
        assert_eq!(
            results[1], "0\n[exit code 0]",
            "with --sandbox {sandbox}, the setsid process outlived its command"
        );
        let left = processes_named(&marker);
        assert!(left.is_empty(), "left behind after the run: {left:?}");
    }
}

/// A process substitution reading oc's stderr (`oc run … 2> >(tee log)`)
/// is a child oc had before it started, not an orphan of a command: it
/// outlives every command and gets the whole log.
#[test]
fn a_reader_of_ocs_own_output_outlives_the_commands() {
    let env = TestEnv::new();
    let server = bash_calls(&["echo one", "echo two"]);
    let oc = assert_cmd::cargo::cargo_bin("oc");
    let log = env.home.path().join("stderr.log");
    let script = format!(
        "'{}' run --yes 'run two commands' 2> >(while IFS= read -r line; do echo \"$line\" >> '{}'; done); sleep 1",
        oc.display(),
        log.display()
    );
    let status = std::process::Command::new("bash")
        .args(["-c", &script])
        .current_dir(env.work())
        .env("OC_HOME", env.home.path())
        .env("OLLAMA_HOST", &server.url)
        .env("OC_MODEL", crate::common::MODEL)
        .env("OC_EDIT_FORMAT", "tools")
        .env("NO_COLOR", "1")
        .status()
        .unwrap();
    assert!(status.success());
    let log = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(log.contains("echo two"), "{log}");
    assert!(log.contains("session "), "the closing line is there: {log}");
}

/// A command stopped by its timeout, by SIGINT or by `--timeout` takes
/// what it moved out of its group with it.
#[test]
fn setsid_processes_end_on_timeouts_and_signals() {
    let marker = format!("oc-setsid-stop-{}", std::process::id());
    let command =
        format!("setsid bash -c 'exec -a {marker} sleep 300' & exec -a {marker}-leader sleep 300");
    let env = TestEnv::new();
    let server = FakeOllama::start(vec![
        Reply::tool_calls(&[("bash", json!({"command": command, "timeout_secs": 1}))]),
        Reply::answer("done"),
    ]);
    env.oc(&server)
        .args(["run", "--yes", "wait"])
        .assert()
        .code(4);
    assert!(results(&server)[0].contains("timed out after 1 s"));
    assert_eq!(
        processes_named(&marker),
        Vec::<String>::new(),
        "after the tool's timeout"
    );

    for (stop, code) in [(Some("INT"), 130), (None, 124)] {
        let env = TestEnv::new();
        let server = FakeOllama::start(vec![Reply::tool_calls(&[(
            "bash",
            json!({ "command": command }),
        )])]);
        let mut args = vec!["run", "--yes", "wait"];
        if stop.is_none() {
            args.extend(["--timeout", "3s"]);
        }
        let mut child = env.spawn_oc(&server, &args, false);
        wait_for_processes(&marker, 2);
        if let Some(signal) = stop {
            send(&child, signal);
        }
        assert_eq!(wait(&mut child).code(), Some(code));
        assert_eq!(
            processes_named(&marker),
            Vec::<String>::new(),
            "after exit {code}"
        );
    }
}

#[test]
fn required_refuses_a_kernel_without_landlock() {
    for (kernel, missing) in [("none", "no Landlock"), ("no-network", "network")] {
        let env = TestEnv::new();
        let server = FakeOllama::start(vec![Reply::answer("never asked")]);
        let out = env
            .oc(&server)
            .env("OC_TEST_LANDLOCK", kernel)
            .args(["run", "--yes", "--sandbox", "required", "x"])
            .assert()
            .code(2);
        let stderr = stderr_of(out.get_output());
        assert!(
            stderr.contains("--sandbox required") && stderr.contains(missing),
            "{stderr}"
        );
        assert!(server.chat_requests().is_empty(), "nothing is sent");
    }
}

/// Without `required`, a kernel without Landlock is said once and the run
/// goes on unconfined, and says so in its records.
#[test]
fn a_kernel_without_landlock_is_said_once() {
    let env = TestEnv::new();
    std::fs::create_dir(env.work().join("inner")).unwrap();
    let server = bash_calls(&["echo x > ../outside.txt", "true"]);
    let out = env
        .oc(&server)
        .current_dir(env.work().join("inner"))
        .env("OC_TEST_LANDLOCK", "none")
        .args(["run", "--yes", "write"])
        .assert()
        .success();
    let stderr = stderr_of(out.get_output());
    assert_eq!(stderr.matches("no Landlock").count(), 1, "{stderr}");
    assert!(env.work().join("outside.txt").exists());
    assert_eq!(
        env.session()["sandbox"],
        json!({"mode": "off", "network": "on"})
    );

    let env = TestEnv::new();
    let server = bash_calls(&["echo x > in.txt"]);
    let out = env
        .oc(&server)
        .env("OC_TEST_LANDLOCK", "no-network")
        .args(["run", "--yes", "write"])
        .assert()
        .success();
    let stderr = stderr_of(out.get_output());
    assert_eq!(
        stderr.matches("cannot refuse network access").count(),
        1,
        "{stderr}"
    );
    assert_eq!(
        env.session()["sandbox"],
        json!({"mode": "workspace-write", "network": "on"})
    );
}

/// A project config came with the repository: it may tighten the sandbox,
/// not switch it off.
#[test]
fn a_project_config_cannot_loosen_the_sandbox() {
    let env = TestEnv::new();
    env.write(
        ".ollama-code.json",
        r#"{"sandbox": "off", "network": "on", "add_dirs": ["/"]}"#,
    );
    let server = bash_calls(&["true"]);
    let out = env.oc(&server).args(["run", "--yes", "x"]).assert().code(4); // `true` changes nothing: `unchanged`
    let stderr = stderr_of(out.get_output());
    assert_eq!(
        stderr.matches("may only tighten the sandbox").count(),
        3,
        "{stderr}"
    );
    assert_eq!(
        env.session()["sandbox"],
        json!({"mode": "workspace-write", "network": "off"})
    );
}

/// The helper refuses to run a command it cannot confine as asked.
#[test]
fn the_helper_fails_closed() {
    for (kernel, flag) in [("none", "--filesystem"), ("no-network", "--no-network")] {
        let out = assert_cmd::Command::cargo_bin("oc")
            .unwrap()
            .env("OC_TEST_LANDLOCK", kernel)
            .args(["sandbox-exec", flag, "--", "bash", "-c", "echo ran"])
            .assert()
            .code(126);
        let output = out.get_output();
        assert!(output.stdout.is_empty(), "the command must not run");
        assert!(
            stderr_of(output).contains("cannot confine the command"),
            "{}",
            stderr_of(output)
        );
    }
}
