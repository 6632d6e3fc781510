//! What one command line does, as the reader tells it
//! ([`super::reading`]): its simple commands, the files it writes and
//! reads, its texts, and, once, why it cannot be read fully and how far
//! that doubt reaches. Every permission rule reads a line through it.

/// One simple command.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Simple {
    /// `NAME=value` assignments before it (also those given to `env`).
    pub assignments: Vec<String>,
    /// The words, quotes removed, wrappers unwrapped.
    pub words: Vec<String>,
}

/// How far a doubt about a command line reaches, least first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reach {
    /// Part of what it may run cannot be told: a program may run a
    /// computed command from its arguments, or a program's own option
    /// hides its subcommand (`git --frob push`). Deny and ask rules fail
    /// closed; allow rules still read it as written.
    Part,
    /// It runs code no rule reads (`python3 -c '…'`, `git -c
    /// include.path=…`): deny and ask rules fail closed, only a bare
    /// `bash` allow rule allows it.
    Code,
    /// What it runs cannot be told at all (not complete shell syntax, a
    /// program named at run time, aliases, a shell reading its script from
    /// a pipe): as [`Reach::Code`], and the hard rules refuse it.
    Whole,
}

/// Why a command line cannot be read, and how far that reaches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unread {
    pub why: String,
    pub reach: Reach,
}

/// A command line, read.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Reading {
    /// The simple commands it runs as written.
    pub commands: Vec<Simple>,
    /// Commands programs may run from their arguments: deny and ask rules
    /// and the destructive-command rule read them, allow rules do not.
    pub embedded: Vec<Simple>,
    /// Files that its redirections and options write (`> f`, `&> f`,
    /// `tee f`, `--output=f`), from where the line starts.
    pub writes: Vec<String>,
    /// Files the embedded commands write.
    pub embedded_writes: Vec<String>,
    /// Files that input redirections read (`< f`).
    pub reads: Vec<String>,
    /// Every text it holds, quoting removed: words (also with their
    /// expansions left out), assignments, here-documents; what the
    /// secret-file rule searches.
    pub texts: Vec<String>,
    /// The words that hold an expansion, each expansion a `*` glob
    /// (`.e${x}v` is `.e*v`): every name they may come to, for the
    /// secret-file rule.
    pub patterns: Vec<String>,
    /// Whether its globs match dot files too (`shopt -s dotglob`, a
    /// `GLOBIGNORE`).
    pub dotglob: bool,
    /// Whether its globs match without regard to case (`shopt -s
    /// nocaseglob`).
    pub nocaseglob: bool,
    /// Whether it may move to another folder (`cd`): its globs may be read
    /// from there.
    pub moved: bool,
    /// Why a file it writes cannot be named before it runs, if so
    /// ([`super::cwd`]): deny and ask `write` rules fail closed on it.
    pub unnamed_writes: Option<String>,
    /// The function that starts itself twice in a pipe or the background
    /// (`:(){ :|:& };:`), if one does.
    pub fork_bomb: Option<String>,
    /// Why it cannot be read fully, the widest reach first.
    pub unread: Option<Unread>,
}

impl Reading {
    /// Notes a doubt: it replaces one of a smaller reach.
    pub(crate) fn doubt(&mut self, reach: Reach, why: impl Into<String>) {
        if self.unread.as_ref().is_none_or(|u| u.reach < reach) {
            self.unread = Some(Unread {
                why: why.into(),
                reach,
            });
        }
    }

    /// Counts the same command found twice (as written and in a script)
    /// once.
    pub(crate) fn count_commands_once(&mut self) {
        let mut seen = Vec::new();
        self.commands.retain(|c| {
            let fresh = !seen.contains(c);
            if fresh {
                seen.push(c.clone());
            }
            fresh
        });
    }

    /// Takes `inner`, the reading of what a program may run from its
    /// arguments: its commands and writes are embedded ones here.
    pub(crate) fn take_embedded(&mut self, mut inner: Reading) {
        self.embedded.append(&mut inner.commands);
        self.embedded.append(&mut inner.embedded);
        self.embedded_writes.append(&mut inner.writes);
        self.embedded_writes.append(&mut inner.embedded_writes);
        self.unnamed_writes = self.unnamed_writes.take().or(inner.unnamed_writes);
    }

    /// Why it cannot be read, when the doubt reaches at least `reach`.
    pub(crate) fn unread_to(&self, reach: Reach) -> Option<&str> {
        (self.unread.as_ref())
            .filter(|u| u.reach >= reach)
            .map(|u| u.why.as_str())
    }
}
