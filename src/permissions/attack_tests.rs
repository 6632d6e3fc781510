//! The ways around the rules that helper attacks found, each refused now
//! (docs/permissions.md). Helpers from [`super::tests`].

use super::tests::{expect_bash, parse_rules, short};
use super::*;

/// What a helper session's attack got past the rules, each now refused
/// under `--deny 'bash(touch*)'` and `--yes`.
#[test]
fn the_attacks_that_got_through_are_refused() {
    let deny_touch: &[(Action, &str)] = &[(Action::Deny, "bash(touch*)")];
    expect_bash(
        PermissionMode::Yolo,
        deny_touch,
        &[
            "T=touch; \"$T\" m",
            "bash <<EOF\ntouch m\nEOF",
            "bash /dev/stdin <<< 'touch m'",
            "bash <(echo touch m)",
            ". /dev/stdin <<< 'touch m'",
            "source <(echo touch m)",
            "trap 'touch m' EXIT",
            "mapfile -C 'touch m' -c 1 x < f",
            "python3 -Ic 'import os'",
            "python3 /dev/stdin <<< 'import os'",
            "perl -le 'system(1)'",
            "awk -v x=1 'BEGIN{system(\"touch m\")}'",
            "sed -n '1e touch m' f",
            "sed 's/x/touch m/e' f",
            "vim -c '!touch m' -c q",
            "gdb -ex 'shell touch m' -batch",
            "tclsh <<< 'exec touch m'",
            "watch -n 1 touch m",
            "chroot / touch m",
            "setarch x86_64 touch m",
            "su -c 'touch m' root",
            "runuser -u root -- touch m",
            "setpriv --reuid 0 touch m",
            "strace -o /dev/null touch m",
            "prlimit --nofile=10 touch m",
            "git config alias.x '!touch m'",
            "git config --global core.pager 'touch m'",
            "git clone 'ext::sh -c touch% m' x",
            "git fetch --upload-pa='touch m' origin",
            "git -c remote.o.uploadpack='touch m' fetch o",
            "git difftool --extcmd='touch m'",
            "git rebase -x 'touch m' HEAD~1",
            "git grep --open-files-in-pager='touch m' x",
            "export GIT_SSH_COMMAND='touch m'",
            "export LESSOPEN='|touch m'",
            "tar --to-comm='touch m' -xf a.tar",
            "tar -cf a.tar --checkpoint=1 --checkpoint-action 'exec=touch m' .",
            // a second attack
            "fakeroot touch m",
            "sg root -c 'touch m'",
            "ssh-agent touch m",
            "/usr/bin/tou? m",
            "hash -p /usr/bin/touch t; t m",
            "BASH_ENV=<(echo touch m) bash -c true",
            "sqlite3 :memory: '.shell touch m'",
            "zip -T -TT 'touch m' x.zip a",
            "git bisect run touch m",
            "GIT_SEQUENCE_EDITOR='touch m' git rebase -i --root",
            "git filter-branch -f --tree-filter 'touch m' HEAD",
            "git config set alias.x '!touch m'",
            // a third attack
            "compgen -C 'touch m' x",
            "sed -n '1etouch m' f",
            "sed -n $'1{e touch m\\n}' f",
            "trap -- 'touch m' DEBUG; true",
            "printf '%s\\n' 'touch m' | xargs -I{} bash -c {}",
            "git grep -O'touch m' x",
            "git -c trailer.s.command='touch m' interpret-trailers --trailer s=1",
            "git -c man.viewer=q -c man.q.cmd='touch m' help -m log",
            "git -c gpg.format=ssh -c gpg.ssh.defaultKeyCommand='touch m' commit -S -m x",
            "git -c 'url.ext::touch% m.insteadOf=x' fetch x",
            // a fifth attack
            "split -n 1 --filter='touch m' f",
            "logsave lg touch m",
            "capsh -- -c 'touch m'",
            "gdb -batch -ex run --args touch m",
            "valgrind -q touch m",
            "make --eval=$'x:\\n\\ttouch m' x",
            "nsenter -- touch m",
            "perf stat -o /dev/null touch m",
            "git -c tar.tgz.command='touch m' archive --format=tgz HEAD",
            "env 'BASH_FUNC_f%%=() { touch m; }' bash -c f",
            // any program that may run its arguments, listed anywhere or not
            "busybox touch m",
            "ltrace -o /dev/null touch m",
            "catchsegv touch m",
            "unbuffer touch m",
            "proxychains4 -q touch m",
            "firejail --quiet touch m",
            "bwrap --bind / / touch m",
            "systemd-run --user --wait touch m",
            "parallel touch ::: m",
            "some-new-runner --flag touch m",
            "git -c tar.zz.command='touch m' archive --format=zz HEAD",
            "split -l 1 --filter=\"$(printf 'to%sch m' u)\" f",
            "nsenter -- $(echo touch) m",
            "nsenter -- /usr/bin/tou? m",
            "runner --cmd='X=1 touch m'",
            // a sixth attack
            "shopt -s extglob\n/usr/bin/@(tou)ch m",
            "nsenter -- /usr/bin/+(t)ouch m",
            "printf -v 'BASH_CMDS[head]' %s /usr/bin/touch; head m",
            "f(){ touch \"$@\"; }; f m",
            "awk -- '-1{system(\"touch m\");exit}' README.md",
            "sed -n 'sxhelloxtouch mxe' README.md",
            "sed -n '0,/x/e touch m' README.md",
            "sed -n '/x/Ie touch m' README.md",
            "sed README.md -ne '1e touch m'",
            "sed --expr='1e touch m' README.md",
            "TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=touch m' tar -cf a.tar f",
            "MAKEFLAGS=\"--eval=$(printf 'x:\\n\\ttouch m')\" make x",
            "PERL5DB='BEGIN{system \"touch m\"}' perl -d /dev/null",
            "BROWSER='touch m' python3 -m webbrowser x",
            // a seventh attack
            "shopt -s expand_alia''ses\nalia''s cat='nsenter --'\ncat touch m",
            "printf -v 'BASH_CM''DS[head]' %s /usr/bin/touch; head m",
            "hash -rp /usr/bin/touch cat; cat m",
            "eval $'cat \\x28\\x29 { touch \"$@\"; }'; cat m",
            "make -f /dev/null --ev=$'x:\\n\\t@touch m' x",
            "gdb -batch -ex 'python import os; os.popen(\"tou\"+\"ch m\")'",
            "vim -es -c 'call job_start(\"tou\".\"ch m\")' -c qa",
            "perl '-Mstrict;system\"tou\".\"ch m\";' /dev/null",
            "node --import 'data:text/javascript,1' /dev/null",
            "python3 '-Ecimport os;os.system(\"tou\"+\"ch m\")' /dev/null",
            "sed 's/.*/touch m;/e' README.md",
            "sed -n --e='1e touch m' README.md",
            "MAKEFLAGS='--eval=x:;touch\\ m' make x",
            // an eighth attack: shells reading their script from the input
            "rbash <<< 'touch m'",
            "bash -s x <<< 'touch m'",
            "bash -O extglob <<< 'touch m'",
            "bash +o history <<< 'touch m'",
            "bash -eo pipefail <<< 'touch m'",
            "sh -o errexit <<EOF\ntouch m\nEOF",
            "bash //dev/stdin <<< 'touch m'",
            "bash /dev/./stdin <<< 'touch m'",
            ". /dev/./stdin <<< 'touch m'",
            "source /proc/self/fd/0 <<< 'touch m'",
            // start-up files named by a variable set earlier on the line
            "BASH_ENV=./rc; export BASH_ENV; bash -c true",
            "set -a; BASH_ENV=./rc; bash -c true",
            "printf -v BASH_ENV %s ./rc; export BASH_ENV; bash -c true",
            "read ENV < f; export ENV; sh -c true",
            // a ninth attack: a shell behind a runner, a script named at run
            // time or from another folder, variables set by other names
            "/usr/bin/time bash <<< 'touch m'",
            "echo 'touch m' | ./run bash",
            "bash /dev/std?n <<< 'touch m'",
            "D=/dev/stdin; bash $D <<< 'touch m'",
            "cd /dev && bash stdin <<< 'touch m'",
            "declare -n r=BASH_ENV; export r=./rc; bash -c true",
            "declare -n r=HOME; r=.; bash -lc true",
            "set -a; for BASH_ENV in ./rc; do bash -c true; done",
            "set -a; ((BASH_ENV=1)); bash -c true",
            "let BASH_ENV=1; export BASH_ENV; bash -c true",
        ],
        "deny",
    );
    expect_bash(
        PermissionMode::Yolo,
        &[],
        &[
            "r=rm; \"$r\" -rf victim",
            ". /dev/stdin <<< 'rm -rf victim'",
            "trap 'rm -rf victim' EXIT",
            "fakeroot rm -rf victim",
            "sg root -c 'rm -rf victim'",
            "ssh-agent rm -rf victim",
            "/usr/bin/r? -rf victim",
            "hash -p /usr/bin/rm r; r -rf victim",
            "BASH_ENV=<(echo rm -rf victim) bash -c true",
            "sqlite3 :memory: '.shell rm -rf victim'",
            "zip -T -TT 'rm -rf victim' x.zip a",
            "git bisect run rm -rf victim",
            "GIT_SEQUENCE_EDITOR='rm -rf victim' git rebase -i --root",
            "rm -r --interactive=none victim",
            "split -n 1 --filter='rm -rf victim' f",
            "logsave lg rm -rf victim",
            "capsh -- -c 'rm -rf victim'",
            "valgrind -q rm -rf victim",
            "nsenter -- rm -rf victim",
            "git -c tar.tgz.command='rm -rf victim' archive --format=tgz HEAD",
            "sed 's/.*/rm -rf victim/e' README.md",
            "sed -n '1erm -rf victim' README.md",
            "x86_64 rm -rf victim",
            "git -c credential.https://x.helper='!rm -rf victim' credential fill",
            "rm -r --interactive=no victim",
            "trap -- 'rm -rf victim' DEBUG; true",
            // a seventh attack
            "shopt -s expand_alia''ses\nalia''s cat=rm\ncat -rf victim",
            "declare \"BASH_CM\"\"DS[cat]=/usr/bin/rm\"; cat -rf victim",
            "hash -rp /usr/bin/rm cat; cat -rf victim",
            "eval $'cat \\x28\\x29 { rm \"$@\"; }'; cat -rf victim",
            "make -f /dev/null --eval=$'x:\\n\\t@rm -rf victim' x",
            "sed 's/.*/rm -rf victim;/e' README.md",
            "sed -n '1s/.*/rm -rf victim/;1e' README.md",
            "MAKEFLAGS='--eval=x:;rm\\ -rf\\ victim' make x",
            // an eighth attack
            "$'rm\\x00' -rf victim",
            "bash -O extglob <<< 'rm -rf victim'",
            "/usr/bin/time bash <<< 'rm -rf victim'",
            "trap exit USR1; cd /dev && bash stdin <<< 'rm -rf \"$OLDPWD/victim\"'",
            "if false; then exit; fi; cd /dev; bash stdin <<< 'rm -rf \"$OLDPWD/victim\"'",
            "cd /dev; logout; bash stdin <<< 'rm -rf \"$OLDPWD/victim\"'",
        ],
        "deny:HardRule",
    );
    let git: &[(Action, &str)] = &[(Action::Allow, "bash(git *)")];
    expect_bash(
        PermissionMode::Normal,
        git,
        &[
            "git archive -o out.tar HEAD",
            "git format-patch -o patches HEAD~1",
            "git bundle create out.bundle HEAD",
            "git format-patch -1 HEAD",
            "git worktree add -q wt",
            "git checkout-index -a --prefix=cp/",
            "git clone -q . cl",
            "git apply p.diff",
            "git init -q nd",
            "git config --file=newf a.b c",
            "git format-patch --output-directory=pd -1",
            // a sixth attack: settings nobody listed
            "git -c man.viewer=man -c man.man.path=/usr/bin/touch help -m log",
            "git -c web.browser=b -c browser.b.path=/usr/bin/touch help -w log",
            "git -c some.future.key=x status",
            "git -c 'alias.x=-c core.pager=touch log' x",
            // a seventh attack
            "git config alias.x '-c man.man.path=/usr/bin/touch help -m log'",
            "git --work-tree=.git/hooks checkout-index -f pre-commit",
            "git checkout-index --pref=.git/hooks/ -a",
            "git -C bare x",
            "GIT_DIR=bare git x",
        ],
        "ask",
    );
    // Settings known to be data pass under `bash(git *)`.
    expect_bash(
        PermissionMode::Normal,
        git,
        &[
            "git -c user.name=Me -c user.email=me@x commit -m x",
            "git -c color.ui=never -c core.quotepath=off log",
            "git config user.name Me",
        ],
        "allow:Rule",
    );
    // Ordinary commands of the same families still pass.
    expect_bash(
        PermissionMode::Yolo,
        deny_touch,
        &[
            "git config user.name Me",
            "git fetch origin",
            "sed -n '1,5p' f",
            "awk '{print $1}' f",
            "python3 -m pytest -q",
            "cat <<EOF > notes.txt\nhello\nEOF",
            "grep -rn 'touch m' src",
            "git commit -m 'touch up the docs'",
            "python3 -m pytest tests/test_*.py -k 'not slow'",
            "cargo test --features=serde -- --nocapture",
            "bash --version",
            "sh --help",
            "which bash",
            "printf '%s\\n' \"$x\"",
            "read -r -n 1 answer",
            "git commit -am \"$(cat <<'EOF'\nfix: the parser\nEOF\n)\"",
            "tar --exclude='*.o' -cf a.tar src",
            "rsync -a --exclude='*.o' src/ dst/",
            "PATH=\"$PATH:$HOME/.cargo/bin\" cargo test",
            "echo $PATH; cargo test",
        ],
        "allow:Yes",
    );
}

/// A security test's writes into a denied folder after a `cd` or to a
/// target computed at run time: deny and ask `write` rules refuse or ask
/// (fail closed where the file cannot be named); allow rules are as before.
#[test]
fn writes_after_cd_and_computed_targets_meet_write_rules() {
    let lines = [
        "cd locked && echo x > n",
        "pushd locked; echo x >> n",
        "D=locked; echo x > $D/n",
        "cd \"$D\" && echo x > n",
        "cd - && echo x > n",
        "cd locked && tee n",
        "cd locked && git diff --output=n",
        // a `cd` that may run not at all, or many times
        "true && cd locked; echo x > n",
        "false || cd locked; echo x > n",
        "cd locked || true; echo x > n",
        "if true; then cd locked; fi; echo x > n",
        "case x in x) cd locked;; esac; echo x > n",
        "for i in 1; do cd locked; done; echo x > n",
        "while true; do echo x > n; cd locked; done",
        "f() { cd locked; }; f; echo x > n",
        "f() { echo x > n; }; cd locked; f",
        // a `cd` in a process of its own does not move the line
        "cd locked; (cd ..); echo x > n",
        "cd locked; echo $(cd ..) > n",
        "cd locked; cd .. & echo x > n",
        "cd locked; cd .. | true; echo x > n",
        "cd locked; nice cd ..; echo x > n",
        "cd locked; bash -c 'cd ..'; echo x > n",
        // a compound's redirection is opened before its body runs
        "cd locked; { cd ..; } > n",
        // `CDPATH` and `cdable_vars` move a `cd` where it does not say
        "printf -v CDPATH %s .; cd x && echo x > n",
        "read CDPATH < f; cd x && echo x > n",
        "for CDPATH in .; do :; done; cd x && echo x > n",
        "echo ${CDPATH:=.}; cd x && echo x > n",
        "shopt -s cdable_vars; cd v && echo x > n",
        // a `cd` that fails stays; one that is not the builtin may do nothing
        "cd nothere; echo x > locked/n",
        "cd() { :; }; cd other; echo x > locked/n",
        "enable -n cd; cd other; echo x > locked/n",
        // `exit` in a part that may not run, `return` and `logout` that
        // only complain
        "cd locked; logout; echo x > n",
        "cd locked; return; echo x > n",
        "cd locked; if false; then exit; fi; echo x > n",
        "cd locked; case a in b) exit;; esac; echo x > n",
        "while false; do exit; done; cd locked && echo x > n",
        "trap exit USR1; cd locked && echo x > n",
        "mapfile -C exit -c 1 a < /dev/null; cd locked && echo x > n",
        // the folder stack is not the reader's copy
        "pushd locked; dirs -c; popd; echo x > n",
        "pushd other; DIRSTACK[1]=$PWD/../locked; popd; echo x > n",
        // parts that run in the line's own shell, at any time
        "shopt -s lastpipe; true | cd locked; echo x > n",
        "trap 'cd locked' DEBUG; echo x > n",
        "trap 'cd locked' ERR; false; echo x > n",
        "mapfile -C 'cd locked;:' -c 1 x < f; echo x > n",
    ];
    let deny: &[(Action, &str)] = &[(Action::Deny, "write(locked/**)")];
    expect_bash(PermissionMode::Yolo, deny, &lines, "deny:Rule");
    let ask: &[(Action, &str)] = &[(Action::Ask, "write(locked/**)")];
    expect_bash(PermissionMode::Yolo, ask, &lines, "ask");
    let fine = [
        "cd other && echo x > n",
        "cd locked && echo x > ../n",
        "cd locked && cat f",
        "echo x > /dev/null",
        "echo x 2>&1",
        "(cd locked) && echo x > n",
        "{ cd locked; } > n",
        "command cd other && echo x > n",
        // everyday chains: `&&` goes on where the `cd` succeeded
        "mkdir -p build && cd build && cmake .. > cmake.log",
        "git pull && cd web && npm install > install.log",
        "[ -d web ] && cd web && npm test > out.txt",
        "cd build || exit 1; make > build.log",
        "cd web && echo done > out.txt || echo failed > err.txt",
        "unset CDPATH; cd web && npm test > o.txt",
        "f() { echo hi > f.txt; }; f",
        "! cd web || echo x > n",
    ];
    expect_bash(PermissionMode::Yolo, deny, &fine, "allow:Yes");
    let allow: &[(Action, &str)] = &[(Action::Allow, "bash"), (Action::Allow, "write")];
    expect_bash(PermissionMode::Normal, allow, &lines, "allow:Rule");
}

/// Everyday lines the hard rules let through when no rule is given.
#[test]
fn everyday_lines_pass_the_hard_rules() {
    expect_bash(
        PermissionMode::Yolo,
        &[],
        &[
            "for f in scripts/*.sh; do bash \"$f\"; done",
            "bash --version",
            "cd scripts && bash build.sh",
            "cat > notes.md <<'EOF'\n# Notes\nEOF",
            "tmp=$(mktemp); cargo test > \"$tmp\" 2>&1; tail \"$tmp\"",
            "export PATH=\"$HOME/.cargo/bin:$PATH\"",
            "VERSION=$(cat VERSION); echo $VERSION",
            "RUST_LOG=$LEVEL cargo test",
            "n=$((n+1))",
            "docker run -v $PWD:/app img",
            "echo \"a,$b\" x=$y",
        ],
        "allow:Yes",
    );
}

/// A variable or shell option named at run time may be `CDPATH`,
/// `BASH_ENV` or `cdable_vars`: the line cannot be checked.
#[test]
fn variables_named_at_run_time_are_refused() {
    expect_bash(
        PermissionMode::Yolo,
        &[(Action::Deny, "write(locked/**)")],
        &[
            "x=CD; declare \"${x}PATH=locked\"; cd src && echo x > n",
            "o=cdable_vars; shopt -s $o; v=locked; cd v && echo x > n",
            "n=BASH_ENV; printf -v \"$n\" %s ./rc; export BASH_ENV; bash -c true",
        ],
        "deny:HardRule",
    );
}

/// A write spelt through `..` from outside the workspace, into it, meets
/// the workspace's rules.
#[test]
fn writes_through_the_parent_meet_write_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ws");
    std::fs::create_dir_all(root.join("locked")).unwrap();
    let ws = crate::tools::Workspace::new(&root).unwrap();
    let rules = parse_rules(&[(Action::Deny, "write(locked/**)")]);
    for (command, want) in [
        ("echo x > ../ws/locked/n", "deny:Rule"),
        ("echo x > ./../ws/./locked/n", "deny:Rule"),
        ("echo x > ../ws/other/n", "allow:Yes"),
    ] {
        let input =
            ToolInput::parse(ToolName::Bash, &serde_json::json!({ "command": command })).unwrap();
        let request = Request {
            input: &input,
            paths: &[],
            root: ws.root(),
        };
        let got = check(PermissionMode::Yolo, &rules, &request);
        assert!(
            short(&got).starts_with(want),
            "{command:?}: want {want}, got {got:?}"
        );
    }
}

/// A line with no simple command still runs what it holds (`(( … ))`,
/// `[[ … ]]`): it is never allowed unasked.
#[test]
fn a_line_without_a_simple_command_is_asked() {
    expect_bash(
        PermissionMode::Normal,
        &[],
        &["(( '$(touch m)' ))", "[[ -v 'a[$(touch m)]' ]]"],
        "ask",
    );
}

/// A glob too long for the glob library to compile is refused, and a panic
/// inside the check is a refusal that says so: neither ends the run.
#[test]
fn what_the_check_cannot_take_is_refused_not_fatal() {
    let long_glob = format!("ls {}*", "x".repeat(150_000));
    expect_bash(PermissionMode::Yolo, &[], &[&long_glob], "deny:HardRule");
    let verdict = guarded(|| panic!("a case no test met"));
    assert!(short(&verdict).starts_with("deny:HardRule"), "{verdict:?}");
}
