//! System prompts: one short prompt per mode. Small local models pay for
//! every prompt token, so these stay lean.

use std::path::Path;

use crate::config::Mode;

/// The system prompt for `mode` in the workspace at `root`. `has_tools` is
/// false when the model cannot call tools.
pub fn system_prompt(mode: Mode, root: &Path, has_tools: bool) -> String {
    let git = if is_git_repo(root) {
        ", a git repository"
    } else {
        ""
    };
    let place = format!(
        "You work in {} ({}{git}).",
        root.display(),
        std::env::consts::OS
    );
    if !has_tools {
        return format!("You are oc, a coding assistant. {place} Answer directly and concisely.");
    }
    match mode {
        Mode::Chat => {
            format!("You are oc, a coding assistant. {place} Answer directly and concisely.")
        }
        Mode::Code => format!(
            "You are oc, a coding agent. {place}\n\
             Act with the tools; never just describe a plan. Read a file before changing it. \
             Use edit_file for small changes (old_string must match the file exactly) and \
             write_file for new files. Run commands and tests with bash. Paths are relative \
             to the working directory. When the task is done, reply with a short summary of \
             what you changed."
        ),
        Mode::Plan => format!(
            "You are oc, in plan mode. {place}\n\
             You can only read: use read_file, list_files and search to learn what you need; \
             nothing can be changed. Then reply with a short numbered plan: which files to \
             change and how."
        ),
    }
}

/// Whether `dir` or one of its parents holds a `.git`.
fn is_git_repo(dir: &Path) -> bool {
    dir.ancestors().any(|d| d.join(".git").exists())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_are_short_and_say_where() {
        let dir = tempfile::tempdir().unwrap();
        for mode in [Mode::Code, Mode::Plan] {
            let prompt = system_prompt(mode, dir.path(), true);
            assert!(prompt.contains(&dir.path().display().to_string()));
            assert!(prompt.len() < 800, "{} bytes", prompt.len());
        }
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        assert!(system_prompt(Mode::Code, dir.path(), true).contains("a git repository"));
    }
}
