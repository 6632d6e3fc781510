//! System prompts: one short prompt per mode. Small local models pay for
//! every prompt token (a 2-core CPU evaluates about 50 a second), so these
//! stay lean: the code-mode system prompt and tool schemas together stay
//! under 1,500 tokens.

use std::path::Path;

use crate::tools::{self, ToolName};
use crate::vocab::Mode;

/// The system prompt for `mode` in the workspace at `root`. `tools` are the
/// offered tools; with `fenced` (a model without native tool calling) they
/// are described here with the one call format to use.
pub(crate) fn system_prompt(mode: Mode, root: &Path, tools: &[ToolName], fenced: bool) -> String {
    let place = place(root);
    let mut prompt = match (mode, tools.is_empty()) {
        (Mode::Chat, _) | (_, true) => {
            format!("You are oc, a coding assistant. {place} Answer directly and concisely.")
        }
        (Mode::Code, false) => format!(
            "You are oc, a coding agent. {place}\n\
             Act with the tools; never just describe a plan. Read a file before changing it. \
             Use edit_file for small changes (old_string must match the file exactly) and \
             write_file for new files. Run commands and tests with bash. Paths are relative \
             to the working directory. When the task is done, reply with a short summary of \
             what you changed."
        ),
        (Mode::Plan, false) => format!(
            "You are oc, in plan mode. {place}\n\
             You can only read: use read_file, list_files and search to learn what you need; \
             nothing can be changed. Then reply with a short numbered plan: which files to \
             change and how."
        ),
    };
    if fenced {
        push_fenced_tools(&mut prompt, tools);
    }
    prompt
}

/// With `fenced` tools (a model without native tool calling): how to call
/// them, and each one's signature and description.
fn push_fenced_tools(prompt: &mut String, tools: &[ToolName]) {
    if tools.is_empty() {
        return;
    }
    prompt.push_str(
        "\n\nTo call a tool, reply with only this block and wait for the result:\n\
         ```tool\n{\"name\": \"TOOL\", \"arguments\": {…}}\n```\nTools:\n",
    );
    for tool in tools {
        let schema = tool.schema();
        let description = schema["function"]["description"].as_str().unwrap_or("");
        prompt.push_str(&format!(
            "- {} {}: {description}\n",
            tool.as_str(),
            tools::signature(*tool)
        ));
    }
}

/// The system prompt of a run whose task is an answer (a commit message,
/// an explanation, a review, a question) in code mode: the model replies
/// with the answer itself. With `tools` (the ones that read; `fenced` as
/// for [`system_prompt`]) it may look around first. In the text edit
/// formats (no tools) it is not told how to ask for more: measured on
/// qwen2.5-coder 0.5B, any mention of a READ request made it ask for the
/// file it was shown instead of answering, in 20 of 20 replies. A request
/// it makes anyway is answered, and the repository map says how to read.
pub(crate) fn answer_prompt(root: &Path, tools: &[ToolName], fenced: bool) -> String {
    let mut prompt = format!(
        "You are oc, a coding assistant. {} The user shows you files and asks \
         for something: reply with exactly that (an answer, an explanation, a review, a commit message) \
         and nothing else. Change no file.",
        place(root)
    );
    if !tools.is_empty() {
        prompt
            .push_str("\nTo look at the repository first, use the tools; nothing can be changed.");
    }
    if fenced {
        push_fenced_tools(&mut prompt, tools);
    }
    prompt
}

/// The system prompt of a run whose answer is held to a JSON Schema
/// (`--output-schema`): the reply is one JSON value, from the files shown;
/// nothing is looked up or changed.
pub(crate) fn structured_prompt(root: &Path) -> String {
    format!(
        "You are oc, a coding assistant. {} The user shows you files and asks \
         for something: reply with one JSON value that answers it, as the user's JSON Schema says, \
         and nothing else. Change no file.",
        place(root)
    )
}

/// The system prompt of the text edit formats (code mode): the model is
/// shown files and answers with file blocks (`diff`: SEARCH/REPLACE blocks;
/// otherwise whole files). It teaches no request lines: with them here,
/// qwen2.5-coder 0.5B sent them back (`READ strings.py`, `SEARCH some
/// text`) instead of the change it was shown the file for, and solved 3
/// of the 18 small benchmark tasks instead of 6. The repository map, shown
/// when the prompt names no file, says how to read one; a request sent
/// anyway is answered.
pub(crate) fn file_blocks_prompt(diff: bool, root: &Path) -> String {
    let how = if diff {
        "To change a file, write its path on a line, then a fenced block of SEARCH/REPLACE edits:\n\
         path/to/file.py\n\
         ```\n\
         <<<<<<< SEARCH\n\
         the lines to replace, copied exactly from the file\n\
         =======\n\
         the new lines\n\
         >>>>>>> REPLACE\n\
         ```\n\
         SEARCH must match the file exactly, indentation included. To create a file, leave SEARCH empty."
    } else {
        "To change a file, write its path on a line, then a fenced code block with the complete new \
         content of the file: every line, unchanged lines too, never `...` for code left out."
    };
    format!(
        "You are oc, a coding agent. {} The user shows you files and a task.\n\
         {how}\n\
         Change only the files the user says you may change, and only as the task needs. \
         Send only what you change, never a file or a function unchanged, and at most one sentence besides. \
         If the task is a question, answer it in words.",
        place(root)
    )
}

/// Where the model works: "You work in ROOT (linux, a git repository)."
fn place(root: &Path) -> String {
    let git = if is_git_repo(root) {
        ", a git repository"
    } else {
        ""
    };
    format!(
        "You work in {} ({}{git}).",
        root.display(),
        std::env::consts::OS
    )
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
        for mode in [Mode::Code, Mode::Plan, Mode::Chat] {
            let prompt = system_prompt(mode, dir.path(), &ToolName::for_mode(mode), false);
            assert!(prompt.contains(&dir.path().display().to_string()));
            assert!(prompt.len() < 800, "{} bytes", prompt.len());
        }
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        assert!(
            system_prompt(Mode::Code, dir.path(), &ToolName::ALL, false)
                .contains("a git repository")
        );
    }

    /// Small models send back the request lines a system prompt teaches
    /// (qwen2.5-coder 0.5B: `READ stats.py` instead of an answer or a
    /// change): the text-format prompts teach none, and the answer prompt
    /// offers no JSON either.
    #[test]
    fn text_format_prompts_teach_no_request_lines() {
        let dir = tempfile::tempdir().unwrap();
        for prompt in [
            file_blocks_prompt(false, dir.path()),
            file_blocks_prompt(true, dir.path()),
            answer_prompt(dir.path(), &[], false),
        ] {
            for line in ["READ", "LIST", "SEARCH some"] {
                assert!(!prompt.contains(line), "{line}: {prompt}");
            }
        }
        assert!(!answer_prompt(dir.path(), &[], false).contains("JSON"));
        let with_tools = answer_prompt(dir.path(), &ToolName::for_mode(Mode::Plan), false);
        assert!(with_tools.contains("use the tools"), "{with_tools}");
    }

    /// System prompt plus tool schemas for code mode: under 1,500 tokens at
    /// about 4 characters a token (6 KB).
    #[test]
    fn code_mode_prompt_and_tools_fit_the_budget() {
        let dir = tempfile::tempdir().unwrap();
        let native = system_prompt(Mode::Code, dir.path(), &ToolName::ALL, false);
        let schemas: Vec<serde_json::Value> = ToolName::ALL.iter().map(|t| t.schema()).collect();
        let native_bytes = native.len() + serde_json::to_string(&schemas).unwrap().len();
        assert!(native_bytes < 6000, "{native_bytes} bytes");
        let fenced = system_prompt(Mode::Code, dir.path(), &ToolName::ALL, true);
        assert!(fenced.contains("```tool"), "{fenced}");
        assert!(fenced.contains("- edit_file {\"path\": string"), "{fenced}");
        assert!(fenced.len() < 6000, "{} bytes", fenced.len());
    }
}
