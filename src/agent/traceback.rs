//! Places a failing check's output points at: the files and lines of its
//! tracebacks, as Python (and pytest), `cargo test` (panics, rustc errors),
//! Node (and Jest) and Go print them. They are the best map of a failing
//! task: the first request shows those files around those lines.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// A file and line an output names, as written there (absolute, relative
/// to where the command ran, or a `file://` URL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Location {
    pub path: String,
    /// 1-based; 0 when the output names the file without a line (pytest's
    /// `FAILED tests/test_x.py::test_y`, Jest's `FAIL src/a.test.js`).
    pub line: usize,
}

/// The patterns, each with the path in group 1 and the line in group 2
/// (absent for file-only mentions).
static PATTERNS: LazyLock<Vec<Regex>> = LazyLock::new(|| {
    [
        // Python: `  File "/w/pkg/mod.py", line 12, in f`
        r#"File "([^"]+)", line (\d+)"#,
        // pytest's long form and many compilers: `tests/test_x.py:12: in f`,
        // `src/a.ts:3:7 - error`, Go's `    a_test.go:12: want 3`
        r"(?m)^\s*([\w./\\@+-]+\.[A-Za-z]{1,5}):(\d+):",
        // pytest's summary: `FAILED tests/test_x.py::test_y - …`
        r"(?m)^(?:FAILED|ERROR) ([\w./\\@+-]+\.py)::",
        // Rust: `panicked at src/lib.rs:10:5:`, old `panicked at 'm', src/lib.rs:10:5`,
        // rustc's ` --> src/lib.rs:10:5`
        r"(?:panicked at (?:'[^']*', )?|-->\s+)([^\s:]+\.rs):(\d+):\d+",
        // Node and Jest stacks: `at f (/w/src/a.js:10:5)`, `at file:///w/a.mjs:3:9`
        r"\bat (?:[^\n(]*\()?(?:file://)?([^\s():]+\.(?:js|mjs|cjs|jsx|ts|tsx|mts|cts)):(\d+):\d+",
        // Jest's file lines: `FAIL src/sum.test.js`
        r"(?m)^\s*FAIL\s+([\w./\\@+-]+\.(?:js|mjs|cjs|jsx|ts|tsx))\s*$",
        // Go panics: `	/w/pkg/a.go:12 +0x1d`
        r"(?m)^\s*(/[^\s:]+\.go):(\d+)(?:\s|$)",
    ]
    .iter()
    .filter_map(|p| Regex::new(p).ok())
    .collect()
});

/// Every place `output` names, in the order they appear, each once; places
/// in installed code (`site-packages`, `node_modules`, the Rust and Go
/// toolchains, Node's own `node:` modules) are left out.
pub(crate) fn locations(output: &str) -> Vec<Location> {
    let mut found: Vec<(usize, Location)> = Vec::new();
    for pattern in PATTERNS.iter() {
        for caps in pattern.captures_iter(output) {
            let (Some(whole), Some(path)) = (caps.get(0), caps.get(1)) else {
                continue;
            };
            let line = caps
                .get(2)
                .and_then(|m| m.as_str().parse().ok())
                .unwrap_or(0);
            let path = path.as_str().trim_start_matches("file://").to_string();
            if is_installed(&path) {
                continue;
            }
            found.push((whole.start(), Location { path, line }));
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut seen = BTreeSet::new();
    found
        .into_iter()
        .map(|(_, l)| l)
        .filter(|l| seen.insert((l.path.clone(), l.line)))
        .collect()
}

/// Code that is not the project's: installed packages and toolchains.
fn is_installed(path: &str) -> bool {
    [
        "site-packages/",
        "dist-packages/",
        "node_modules/",
        "/rustc/",
        ".cargo/registry/",
        "/go/src/",
        "/usr/lib/",
        "/usr/local/lib/",
        "<frozen",
        "node:",
    ]
    .iter()
    .any(|m| path.contains(m))
        || path.starts_with('<')
}

/// The workspace file (relative, `/`-separated, one of `files`) that
/// `path` as an output wrote it means: the path itself, the part under
/// `root` of an absolute path, or else the one file whose path is the
/// longest tail of it (a check that ran in a copy of the workspace, or in
/// a container with another root). `None` for code outside the project.
pub(crate) fn resolve(path: &str, root: &Path, files: &[String]) -> Option<String> {
    let path = path.replace('\\', "/");
    let path = path.trim_start_matches("./");
    let root_text = format!("{}/", root.display());
    let relative = path.strip_prefix(&root_text).unwrap_or(path);
    if files.iter().any(|f| f == relative) {
        return Some(relative.to_string());
    }
    let parts: Vec<&str> = relative.split('/').filter(|p| !p.is_empty()).collect();
    // The longest tail that names exactly one file.
    (0..parts.len()).find_map(|skip| {
        let tail = parts[skip..].join("/");
        let suffix = format!("/{tail}");
        let mut matches = files.iter().filter(|f| **f == tail || f.ends_with(&suffix));
        match (matches.next(), matches.next()) {
            (Some(one), None) => Some(one.clone()),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn places(output: &str) -> Vec<(String, usize)> {
        locations(output)
            .into_iter()
            .map(|l| (l.path, l.line))
            .collect()
    }

    fn place(path: &str, line: usize) -> (String, usize) {
        (path.to_string(), line)
    }

    #[test]
    fn python_and_unittest_tracebacks() {
        let output = "F\n======================================================================\nFAIL: test_last (tests.test_utils.T.test_last)\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/tmp/tmp.x1/tests/test_utils.py\", line 9, in test_last\n    self.assertEqual(last_n([1, 2, 3], 2), [2, 3])\n  File \"/tmp/tmp.x1/pkg/utils.py\", line 4, in last_n\n    return check(items[-n - 1:])\n  File \"/usr/lib/python3.11/unittest/case.py\", line 873, in assertEqual\nAssertionError: Lists differ\n";
        assert_eq!(
            places(output),
            [
                place("/tmp/tmp.x1/tests/test_utils.py", 9),
                place("/tmp/tmp.x1/pkg/utils.py", 4)
            ]
        );
    }

    #[test]
    fn pytest_long_and_short_forms() {
        let output = "    def test_sign():\n>       assert sign(b'x') == b'y'\nE       AssertionError\n\ntests/test_signer.py:12: AssertionError\n___ test_b ___\nsrc/pkg/signer.py:40: in sign\n    return hmac(key)\n=== short test summary info ===\nFAILED tests/test_signer.py::test_sign - AssertionError\nFAILED tests/test_other.py::test_b - KeyError\n";
        assert_eq!(
            places(output),
            [
                place("tests/test_signer.py", 12),
                place("src/pkg/signer.py", 40),
                place("tests/test_signer.py", 0),
                place("tests/test_other.py", 0)
            ]
        );
    }

    #[test]
    fn cargo_panics_and_compile_errors() {
        let output = "running 2 tests\nthread 'tests::adds' panicked at src/lib.rs:10:5:\nassertion `left == right` failed\nthread 'old' panicked at 'boom', src/parse.rs:77:9\nerror[E0308]: mismatched types\n --> src/main.rs:3:18\n  |\nthread 'x' panicked at /rustc/abc/library/core/src/ops.rs:5:1:\n";
        assert_eq!(
            places(output),
            [
                place("src/lib.rs", 10),
                place("src/parse.rs", 77),
                place("src/main.rs", 3)
            ]
        );
    }

    #[test]
    fn node_jest_and_go() {
        let node = "AssertionError [ERR_ASSERTION]: 3 == 4\n    at Object.<anonymous> (/w/test/sum.test.js:5:10)\n    at sum (/w/src/sum.js:2:9)\n    at node:internal/modules/cjs/loader:1254:14\n    at file:///w/lib/esm.mjs:7:3\n    at /w/node_modules/jest/x.js:1:1\n";
        assert_eq!(
            places(node),
            [
                place("/w/test/sum.test.js", 5),
                place("/w/src/sum.js", 2),
                place("/w/lib/esm.mjs", 7)
            ]
        );
        let jest = " FAIL  src/sum.test.js\n  ● sums › adds\n";
        assert_eq!(places(jest), [place("src/sum.test.js", 0)]);
        let go = "--- FAIL: TestAdd (0.00s)\n    add_test.go:12: want 3, got 4\npanic: boom\n\ngoroutine 1 [running]:\nexample.com/m.Add(...)\n\t/w/m/add.go:7 +0x1d\n\t/usr/local/go/src/testing/testing.go:1595 +0xff\nFAIL\n";
        assert_eq!(
            places(go),
            [place("add_test.go", 12), place("/w/m/add.go", 7)]
        );
    }

    #[test]
    fn paths_resolve_to_workspace_files() {
        let files: Vec<String> = [
            "pkg/utils.py",
            "tests/test_utils.py",
            "a/b/utils.py",
            "x.py",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let root = Path::new("/home/me/proj");
        let got = |p: &str| resolve(p, root, &files);
        assert_eq!(
            got("/home/me/proj/pkg/utils.py").as_deref(),
            Some("pkg/utils.py")
        );
        assert_eq!(got("./x.py").as_deref(), Some("x.py"));
        // A scratch copy of the workspace: the longest tail that is unique.
        assert_eq!(
            got("/tmp/tmp.x1/tests/test_utils.py").as_deref(),
            Some("tests/test_utils.py")
        );
        assert_eq!(
            got("/tmp/tmp.x1/pkg/utils.py").as_deref(),
            Some("pkg/utils.py")
        );
        // `utils.py` alone is two files: no guess.
        assert_eq!(got("/elsewhere/utils.py"), None);
        assert_eq!(got("/usr/lib/python3/json/decoder.py"), None);
    }
}
