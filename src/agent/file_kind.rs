//! What kind of file a path names, from its name alone: a test, prose,
//! or a text file worth showing the model.

/// A test file: `test_x.py`, `x_test.go`, `x.test.js`, `x.spec.ts`, or a
/// file under `tests/`, `test/`, `__tests__/` or `spec/`.
pub(crate) fn is_test(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    let stem = name.split('.').next().unwrap_or(&name);
    stem.starts_with("test_")
        || stem.ends_with("_test")
        || stem == "test"
        || stem == "tests"
        || name.contains(".test.")
        || name.contains(".spec.")
        || path
            .split('/')
            .rev()
            .skip(1)
            .any(|d| matches!(d, "tests" | "test" | "__tests__" | "spec"))
}

/// Prose: Markdown, reStructuredText, plain text, licences.
pub(crate) fn is_doc(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".rst", ".txt", ".adoc"]
        .iter()
        .any(|e| lower.ends_with(e))
        || lower
            .rsplit('/')
            .next()
            .is_some_and(|n| n.starts_with("license"))
}

/// Whether a path looks like a text file worth showing: known source,
/// config and doc extensions, and a few extension-less names.
pub(crate) fn is_source_name(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    if matches!(
        name,
        "Makefile" | "Dockerfile" | "Justfile" | "Rakefile" | "Gemfile"
    ) {
        return true;
    }
    let Some((_, ext)) = name.rsplit_once('.') else {
        return false;
    };
    matches!(
        ext.to_ascii_lowercase().as_str(),
        "py" | "pyi"
            | "rs"
            | "go"
            | "js"
            | "mjs"
            | "cjs"
            | "jsx"
            | "ts"
            | "tsx"
            | "java"
            | "kt"
            | "c"
            | "h"
            | "cc"
            | "cpp"
            | "hpp"
            | "cs"
            | "rb"
            | "php"
            | "swift"
            | "scala"
            | "lua"
            | "sh"
            | "bash"
            | "zsh"
            | "sql"
            | "html"
            | "css"
            | "scss"
            | "vue"
            | "svelte"
            | "json"
            | "toml"
            | "yaml"
            | "yml"
            | "ini"
            | "cfg"
            | "conf"
            | "xml"
            | "md"
            | "rst"
            | "txt"
            | "env.example"
            | "gradle"
            | "tf"
            | "proto"
            | "graphql"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_and_docs_are_recognised() {
        for test in [
            "test_a.py",
            "a_test.go",
            "a.test.js",
            "src/a.spec.ts",
            "tests/helpers.py",
        ] {
            assert!(is_test(test), "{test}");
        }
        for not in ["contest.py", "latest.rs", "src/testing_tools.py"] {
            assert!(!is_test(not), "{not}");
        }
        assert!(is_doc("README.md") && is_doc("docs/LICENSE") && !is_doc("main.rs"));
    }
}
