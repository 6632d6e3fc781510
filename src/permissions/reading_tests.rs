//! Tests of [`super`]: how command lines are taken apart.

use super::words::command_text;
use super::*;
use pretty_assertions::assert_eq;

fn texts(line: &str) -> Vec<String> {
    read(line)
        .commands
        .iter()
        .map(|c| c.words.join(" "))
        .collect()
}

/// Why `line` cannot be read at all, if so.
fn unreadable(line: &str) -> Option<String> {
    read(line).unread_to(Reach::Whole).map(str::to_string)
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
    assert_eq!(texts("for d in b; do rm -rf \"$d\"; done"), ["rm -rf $d"]);
    assert_eq!(texts("! rm -rf b"), ["rm -rf b"]);
    assert_eq!(texts("f(){ rm -rf b; }; f"), ["rm -rf b", "f"]);
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
    let p = read("git status > src/main.rs 2>&1 >> log.txt < in.txt");
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
    let p = read("GIT_CONFIG_COUNT=1 env A=2 git status");
    assert_eq!(p.commands[0].assignments, ["GIT_CONFIG_COUNT=1", "A=2"]);
    assert_eq!(p.commands[0].words, ["git", "status"]);
}

#[test]
fn computed_commands_cannot_be_read() {
    for line in [
        "R=rm; $R -rf x",
        "$(echo rm) -rf x",
        "printf 'rm%s-rf x' ' ' | sh",
        "shopt -s expand_aliases; alias r=rm; r -rf x",
        "bash < script.sh",
    ] {
        assert!(unreadable(line).is_some(), "{line}");
    }
    for line in ["cargo test", "echo $HOME", "ls $(pwd)"] {
        assert_eq!(unreadable(line), None, "{line}");
    }
}

#[test]
fn incomplete_syntax_is_an_error() {
    for line in ["echo 'unterminated", "cat <<EOF", "a |"] {
        let why = unreadable(line).unwrap_or_default();
        assert!(why.contains("not complete shell syntax"), "{line}: {why}");
    }
    assert_eq!(texts(""), Vec::<String>::new());
}

/// A shell that runs a start-up file first (a file the same line may have
/// written) cannot be read; a plain `bash -c`, a login or interactive
/// shell with the user's own `HOME`, and `HOME` given to another program
/// can.
#[test]
fn shells_reading_start_up_files_cannot_be_read() {
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
        assert!(unreadable(line).is_some(), "{line}");
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
        assert_eq!(unreadable(line), None, "{line}");
    }
}

/// `script` and `su` without `-c` start a shell that reads its commands
/// from the input; with `-c` they run the command given.
#[test]
fn programs_that_start_an_interactive_shell_cannot_be_read() {
    for line in ["echo 'rm -rf x' | script -q /dev/null", "su", "su - root"] {
        assert!(unreadable(line).is_some(), "{line}");
    }
    for line in ["script -qc 'cargo test' /dev/null", "su -c true root"] {
        assert_eq!(unreadable(line), None, "{line}");
    }
}

/// An inert program (`cat`, `grep`) runs nothing from its arguments
/// unless the line may have renamed it: a function, a new `PATH`.
#[test]
fn inert_programs_are_read_only_when_the_line_renames_none() {
    assert!(read("grep -rn 'touch m' src").embedded.is_empty());
    for line in [
        "cat() { env \"$@\"; }; cat touch m",
        "PATH=.:$PATH cat touch m",
        "export PATH=.; cat touch m",
    ] {
        let embedded = read(line).embedded;
        assert!(
            embedded.iter().any(|c| c.words.join(" ") == "touch m"),
            "{line}: {embedded:?}"
        );
    }
}

/// Everyday commands, compound syntax included, are read whole: no doubt
/// reaches past what their programs may run from their arguments
/// ([`Reach::Part`]), so allow rules read them as written.
#[test]
fn everyday_commands_are_read_whole() {
    let failed: Vec<String> = [
        "cargo test --lib 2>&1 | tail -20",
        "for f in *.py; do python3 -m py_compile \"$f\"; done",
        "if [ -f setup.py ]; then pip install -e .; else echo none; fi",
        "[[ $x =~ ^v[0-9]+ ]] && echo tag",
        "(( i += 1 )); echo $((i * 2))",
        "cat <<'EOF' > notes.txt\nsome $text\nEOF",
        "git log --oneline | head -5",
        "find . -name '*.rs' | xargs wc -l",
        "case \"$1\" in a|b) echo ab;; *) :;; esac",
        "x=$(git rev-parse HEAD); echo \"$x\"",
        "arr=(a b); echo \"${arr[@]}\" ${#arr[@]} ${x//a/b}",
        "ls 2>/dev/null || true",
        "cd src && ls -la",
        "while read -r l; do echo \"$l\"; done < input.txt",
        "sed -n '1,5p' f && awk '{print $1}' f | sort | uniq -c",
        "echo 'it'\\''s' $'a\\tb' {1..3} ~/x",
        "set -euo pipefail; make -j2",
        "time cargo build --release",
        "diff <(sort a.txt) <(sort b.txt)",
        "npm test &> test.log; echo $?",
        "f() { echo hi; }; f",
        "until [ -e done ]; do sleep 1; done",
        "for ((i = 0; i < 3; i++)); do echo $i; done",
        "{ echo a; echo b; } > both.txt",
    ]
    .iter()
    .filter_map(|line| {
        let reading = read(line);
        let why = reading.unread_to(Reach::Code);
        why.map(|why| format!("{line:?}: {why}"))
    })
    .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// Lines on which brush-parser's tokenizer would hang, allocate without
/// end, panic or overflow the stack are refused before it sees them
/// (found by fuzzing; reubeno/brush#1270).
#[test]
fn lines_the_parser_cannot_take_are_refused_unread() {
    let deep_substitutions = "$(".repeat(3000);
    let deep_braces = "{ ".repeat(500) + "a; " + &"}; ".repeat(500);
    let failed: Vec<String> = [
        "cat <<$(( )",
        "cat <<\"\" ",
        "<<\"\";#",
        "cat <<$(( )\nx\n",
        "cat <<E$[\t\t",
        "cat <<<<<$fi x",
        "{>|<<\"\"<<<=*;;|a",
        // `<<(` is no delimiter to bash, but brush-parser 0.4 allocated
        // without end on this one (found by fuzzing)
        "'EOF'$({;EOF<< ((&&# ''<< ((\"EOF<<(=<<(<<<",
        deep_substitutions.as_str(),
        deep_braces.as_str(),
    ]
    .iter()
    .filter_map(|line| {
        let why = read(line).unread_to(Reach::Whole).map(str::to_string);
        let refused = why.as_ref().is_some_and(|w| {
            w.contains("here-document's delimiter") || w.contains("nest more than")
        });
        (!refused).then(|| format!("{:.40?}: {why:?}", line))
    })
    .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
    // Here-documents as scripts write them, and here-strings, still read.
    for line in [
        "cat <<EOF\nx\nEOF",
        "cat <<-'END_1'\n\tx\nEND_1",
        "python3 - <<\"PY\"\nprint(1)\nPY",
        "grep x <<< \"$text\"",
        "echo $((1 << 2))",
    ] {
        assert_eq!(read(line).unread_to(Reach::Whole), None, "{line}");
    }
}

/// Random lines over shell's own characters and words never take the
/// reader down (a seeded walk; a longer one found the lines above).
#[test]
fn random_lines_never_take_the_reader_down() {
    let alphabet = [
        "a", "rm", " ", "-rf", "'", "\"", "$", "(", ")", "{", "}", "`", "|", "&", ";", "<", ">",
        "<<", "EOF", "\n", "\\", "=", "*", "[", "]", "!", "#", "$(", "${", "$((", "<(", "bash",
        "-c", "if", "then", "fi", "for", "do", "done", "case", "esac", ";;", "[[", "]]", "((",
        "))", "f()", "x=", "2>&1", "<<<", "$'", "<<E", "<<-", "$[", "\t", "\u{0}",
    ];
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20_000 {
        let len = (next() % 24) as usize;
        let line: String = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        read(&line);
    }
}

/// Lines a helper found to take the reader down: brace expansion that
/// grew without bound, and arguments read as command lines after every
/// `=`. Both are cut now; each line is read at once.
#[test]
fn lines_that_grew_without_bound_are_read() {
    let braces = format!("echo {}", "{,}".repeat(40));
    assert!(read(&braces).commands[0].words.len() <= 65);
    let equals = format!("x '{}'", "a=b ".repeat(2000));
    assert!(read(&equals).embedded.len() < 20_000);
    // Every `=` of one value read as a line grew as its square.
    let values = format!("x='{}'; y 'a{}'", "a=".repeat(20_000), "=a".repeat(20_000));
    assert!(read(&values).embedded.len() < 20_000);
}
