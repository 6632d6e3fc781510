//! Tests of [`super`]: how command lines are taken apart.

use super::*;
use pretty_assertions::assert_eq;

fn texts(line: &str) -> Vec<String> {
    simple_commands(line)
        .unwrap()
        .iter()
        .map(|w| w.join(" "))
        .collect()
}

#[test]
fn command_text_quotes_words_with_spaces() {
    let words: Vec<String> = ["echo", "a b", "*.o", "it's"].map(String::from).to_vec();
    assert_eq!(command_text(&words), r#"echo 'a b' *.o "it's""#);
}

#[test]
fn compound_commands_are_split() {
    assert_eq!(
        texts("cargo fmt && cargo test --lib"),
        ["cargo fmt", "cargo test --lib"]
    );
    assert_eq!(texts("a; b || c | d\ne &"), ["a", "b", "c", "d", "e"]);
    assert_eq!(
        texts("git commit -m \"fix; rm -rf x\""),
        ["git commit -m fix; rm -rf x"]
    );
    assert_eq!(
        texts("echo \"$(cargo publish)\" `ls -a`"),
        ["cargo publish", "ls -a", "echo $(cargo publish) `ls -a`"]
    );
    assert_eq!(texts("(cd sub && make)"), ["cd sub", "make"]);
    assert_eq!(texts("cargo test 2>&1 > out.log"), ["cargo test"]);
    assert_eq!(texts(">/dev/null rm -rf b"), ["rm -rf b"]);
    assert_eq!(texts("{ rm -rf b; }"), ["rm -rf b"]);
    assert_eq!(texts("if true; then rm -rf b; fi"), ["true", "rm -rf b"]);
    assert_eq!(
        texts("for d in b; do rm -rf \"$d\"; done"),
        ["for d in b", "rm -rf $d"]
    );
    assert_eq!(texts("! rm -rf b"), ["rm -rf b"]);
    assert_eq!(texts("f(){ rm -rf b; }; f"), ["f", "rm -rf b"]);
    assert_eq!(texts("function b { b|b& }; b"), ["b"]);
    assert_eq!(texts("rm \\\n-rf b"), ["rm -rf b"]);
    assert_eq!(texts("rm $'-rf' b"), ["rm -rf b"]);
    assert_eq!(texts("cat .e\"\"nv .\\env"), ["cat .env .env"]);
}

#[test]
fn wrappers_are_unwrapped() {
    assert_eq!(texts("sudo -u root cargo publish"), ["cargo publish"]);
    assert_eq!(texts("env RUST_LOG=1 FOO=bar cargo test"), ["cargo test"]);
    assert_eq!(
        texts("RUST_LOG=debug timeout -s KILL 10 cargo test"),
        ["cargo test"]
    );
    assert_eq!(texts("nice -n 5 nohup make"), ["make"]);
    assert_eq!(
        texts("bash -c \"cargo test && cargo publish\""),
        ["cargo test", "cargo publish"]
    );
    assert_eq!(texts("sh -lc 'rm -r -f .'"), ["rm -r -f ."]);
    assert_eq!(texts("eval 'git push'"), ["git push"]);
    assert_eq!(
        texts("find . -name '*.o' -exec rm -f {} \\;"),
        ["rm -f {}", "find . -name *.o -exec rm -f {} ;"]
    );
    assert_eq!(texts("ls | xargs -n 1 rm"), ["ls", "rm"]);
    assert_eq!(texts("sudo"), ["sudo"]);
    assert_eq!(texts("sudo --user root rm -rf b"), ["rm -rf b"]);
    assert_eq!(texts("sh -c -- 'rm -rf b'"), ["rm -rf b"]);
    assert_eq!(texts("bash -c -e 'rm -rf b'"), ["rm -rf b"]);
    assert_eq!(texts("env -S 'rm -rf b'"), ["rm -rf b"]);
    assert_eq!(texts("command -v mkfs.ext4"), ["command -v mkfs.ext4"]);
    assert_eq!(
        texts("echo 'rm -rf b' | sh"),
        ["echo rm -rf b", "sh", "rm -rf b"]
    );
    assert_eq!(texts("bash <<< 'rm -rf b'"), ["bash", "rm -rf b"]);
}

#[test]
fn redirections_substitutions_braces_and_quoting() {
    let p = parse("git status > src/main.rs 2>&1 >> log.txt < in.txt").unwrap();
    assert_eq!(p.writes, ["src/main.rs", "log.txt"]);
    for (line, inner) in [
        ("git status <(touch p5)", "touch p5"),
        ("echo ${x:-$(touch p6)}", "touch p6"),
        ("echo $((0$(touch p7)))", "touch p7"),
        ("echo $[$(touch p20)]", "touch p20"),
        ("echo \"${x:-`touch p18`}\"", "touch p18"),
    ] {
        assert!(
            texts(line).contains(&inner.to_string()),
            "{line}: {:?}",
            texts(line)
        );
    }
    assert_eq!(texts("{rm,-rf,victim-dir}"), ["rm -rf victim-dir"]);
    assert_eq!(texts("cat {.,}env"), ["cat .env env"]);
    assert_eq!(texts("rm $'\\x2drf' x"), ["rm -rf x"]);
    assert_eq!(texts("$'\\x72\\x6d' -rf x"), ["rm -rf x"]);
    assert_eq!(texts("time -p rm -rf x"), ["rm -rf x"]);
    assert_eq!(texts("command -p rm -rf x"), ["rm -rf x"]);
    assert_eq!(texts("exec -a name rm -rf x"), ["rm -rf x"]);
    assert_eq!(texts("env -S'rm -rf x'"), ["rm -rf x"]);
    assert_eq!(texts("env --split-string='rm -rf x'"), ["rm -rf x"]);
    assert_eq!(texts("taskset 1 rm -rf x"), ["rm -rf x"]);
    assert_eq!(texts("flock lockf rm -rf x"), ["rm -rf x"]);
    assert_eq!(texts("flock -c 'rm -rf x' lockf"), ["rm -rf x"]);
    assert_eq!(texts("script -qc 'rm -rf x' /dev/null"), ["rm -rf x"]);
    assert_eq!(texts("xargs --process-slot-var V rm -rf x"), ["rm -rf x"]);
    let p = parse("GIT_CONFIG_COUNT=1 env A=2 git status").unwrap();
    assert_eq!(p.commands[0].assignments, ["GIT_CONFIG_COUNT=1", "A=2"]);
    assert_eq!(p.commands[0].words, ["git", "status"]);
}

#[test]
fn computed_commands_are_opaque() {
    for line in [
        "R=rm; $R -rf x",
        "$(echo rm) -rf x",
        "printf 'rm%s-rf x' ' ' | sh",
        "shopt -s expand_aliases; alias r=rm; r -rf x",
        "bash < script.sh",
    ] {
        assert!(parse(line).unwrap().opaque.is_some(), "{line}");
    }
    for line in ["cargo test", "echo $HOME", "ls $(pwd)"] {
        assert_eq!(parse(line).unwrap().opaque, None, "{line}");
    }
}

#[test]
fn incomplete_syntax_is_an_error() {
    assert!(simple_commands("echo 'unterminated").is_err());
    assert!(simple_commands("cat <<EOF").is_err());
    assert_eq!(texts(""), Vec::<String>::new());
}

/// A shell that runs a start-up file first (a file the same line may have
/// written) cannot be read; a plain `bash -c`, a login or interactive
/// shell with the user's own `HOME`, and `HOME` given to another program
/// can.
#[test]
fn shells_reading_start_up_files_are_opaque() {
    for line in [
        "printf 'curl x' > rc; bash --rcfile rc -i",
        "bash --init-file rc -i",
        "bash --rcfile=rc -c true",
        "HOME=$PWD bash -l -c true",
        "ZDOTDIR=. zsh -c true",
        "HOME=$PWD zsh -c true",
        "export HOME=$PWD; zsh -c true",
        "HOME=.; export HOME; zsh -c true",
        "env HOME=. dash -c true",
        "BASH_ENV=rc bash -c true",
        "export BASH_ENV=rc",
        "fish --init-command='curl x' -c true",
        "fish -C 'rm -rf x' -c true",
    ] {
        assert!(parse(line).unwrap().opaque.is_some(), "{line}");
    }
    for line in [
        "bash -c 'cargo test' -l",
        "bash -lc 'cargo test'",
        "bash --login -c true",
        "bash -i -c true",
        "sudo -n bash -l -c true",
        "bash -c true",
        "bash script.sh -i",
        "HOME=$PWD cargo build",
        "ls -l",
        "bash -O extglob -c true",
    ] {
        assert_eq!(parse(line).unwrap().opaque, None, "{line}");
    }
}

/// `script` and `su` without `-c` start a shell that reads its commands
/// from the input; with `-c` they run the command given.
#[test]
fn programs_that_start_an_interactive_shell_are_opaque() {
    for line in ["echo 'rm -rf x' | script -q /dev/null", "su", "su - root"] {
        assert!(parse(line).unwrap().opaque.is_some(), "{line}");
    }
    for line in ["script -qc 'cargo test' /dev/null", "su -c true root"] {
        assert_eq!(parse(line).unwrap().opaque, None, "{line}");
    }
}
