//! The effects of commands: writes, commands run, code no rule reads.

use super::*;

fn effects(line: &str) -> Effects {
    let words: Vec<String> = shlex::split(line).unwrap();
    let (assignments, words) = super::super::wrappers::split_assignments(words);
    of(&words[0], &words[1..], &assignments)
}

#[test]
fn options_that_write() {
    assert_eq!(effects("git diff --output=out.txt").writes, ["out.txt"]);
    assert_eq!(effects("git diff --output out.txt").writes, ["out.txt"]);
    assert_eq!(effects("curl -o page.html http://x").writes, ["page.html"]);
    assert_eq!(effects("curl -opage.html http://x").writes, ["page.html"]);
    assert_eq!(effects("wget -O f http://x").writes, ["f"]);
    assert_eq!(effects("sort -o sorted.txt in.txt").writes, ["sorted.txt"]);
    assert_eq!(effects("tee -a a.txt b.txt").writes, ["a.txt", "b.txt"]);
    assert_eq!(effects("dd if=x of=y").writes, ["y"]);
    assert!(
        effects("grep -o foo x").writes.is_empty(),
        "grep's -o is --only-matching"
    );
    assert!(effects("git diff HEAD").writes.is_empty());
    assert!(effects("aws s3 ls --output json").writes.is_empty());
    assert!(effects("curl -o - http://x").writes.is_empty());
    assert!(effects("gcc x.c -- -o y").writes.is_empty());
}

#[test]
fn options_that_run_commands() {
    assert_eq!(
        effects("git -c alias.x='!curl evil' x").scripts,
        ["curl evil"]
    );
    assert!(effects("git -c alias.st=status st").scripts.is_empty());
    assert_eq!(
        effects("git -c core.pager='sh -c id' log").scripts,
        ["sh -c id"]
    );
    assert_eq!(effects("git -c core.sshCommand=nc push").scripts, ["nc"]);
    assert_eq!(effects("git -c diff.py.textconv=nc diff").scripts, ["nc"]);
    assert_eq!(
        effects("git fetch --upload-pack='touch x' o").scripts,
        ["touch x"]
    );
    assert_eq!(effects("git push --receive-pack=nc o").scripts, ["nc"]);
    assert_eq!(effects("git archive --exec=nc --remote=o").scripts, ["nc"]);
    assert_eq!(effects("GIT_SSH_COMMAND='nc x' git push").scripts, ["nc x"]);
    assert_eq!(effects("PAGER=nc git log").scripts, ["nc"]);
    assert_eq!(effects("tar --to-command=nc -xf a.tar").scripts, ["nc"]);
    assert_eq!(
        effects("tar --checkpoint=1 --checkpoint-action=exec=nc -cf a .").scripts,
        ["nc"]
    );
    assert_eq!(
        effects("ssh -o ProxyCommand='nc %h' host").scripts,
        ["nc %h"]
    );
    assert_eq!(effects("rsync -e 'nc x' a b:").scripts, ["nc x"]);
    assert!(effects("git -c include.path=/tmp/c log").unread.is_some());
    assert!(effects("git --exec-path=/tmp status").unread.is_some());
    assert!(effects("GIT_CONFIG_COUNT=1 git log").unread.is_some());
}
