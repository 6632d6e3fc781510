use super::*;
use pretty_assertions::assert_eq;

fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}

fn picked(prompt: &str, dir: &tempfile::TempDir) -> Vec<(String, FileRole)> {
    select(
        prompt,
        dir.path(),
        &Evidence::default(),
        Task::Change,
        Leads::default(),
    )
    .files
    .into_iter()
    .map(|g| (g.path, g.role))
    .collect()
}

#[test]
fn named_files_with_tests_as_context() {
    let dir = repo(&[
        ("utils.py", "def last_n(items, n):\n    return items[-n:]\n"),
        ("test_utils.py", "from utils import last_n\n"),
        ("other.py", "x = 1\n"),
    ]);
    assert_eq!(
        picked(
            "Fix the bug in utils.py so the tests in test_utils.py pass.",
            &dir
        ),
        [
            ("utils.py".to_string(), FileRole::Editable),
            ("test_utils.py".to_string(), FileRole::ReadOnly)
        ]
    );
    // A named file brings the tests that import it, for reference.
    assert_eq!(
        picked("Fix the bug in utils.py", &dir),
        [
            ("utils.py".to_string(), FileRole::Editable),
            ("test_utils.py".to_string(), FileRole::ReadOnly)
        ]
    );
    // A named test brings the module it imports.
    assert_eq!(
        picked("Make test_utils.py pass", &dir),
        [
            ("utils.py".to_string(), FileRole::Editable),
            ("test_utils.py".to_string(), FileRole::ReadOnly)
        ]
    );
}

#[test]
fn tails_code_names_and_new_files() {
    let dir = repo(&[
        (".github/workflows/ci.yml", "python-version: 3.10\n"),
        ("users.py", "def get_usr(i):\n    pass\n"),
        ("api.py", "from users import get_usr\n"),
        ("tests/test_api.py", "get_usr(1)\n"),
        ("README.md", "Call `get_usr`.\n"),
    ]);
    assert_eq!(
        picked("In ci.yml, use Python 3.12.", &dir),
        [(".github/workflows/ci.yml".to_string(), FileRole::Editable)]
    );
    let rename = picked("Rename `get_usr` to get_user everywhere.", &dir);
    assert_eq!(
        rename,
        [
            ("api.py".to_string(), FileRole::Editable),
            ("tests/test_api.py".to_string(), FileRole::Editable),
            ("users.py".to_string(), FileRole::Editable),
            ("README.md".to_string(), FileRole::ReadOnly),
        ]
    );
    assert_eq!(
        picked("Create a file validators.py with is_email(text).", &dir),
        [("validators.py".to_string(), FileRole::New)]
    );
    assert!(
        picked("Write test_users.py with tests for users.py.", &dir)
            .contains(&("test_users.py".to_string(), FileRole::New))
    );
    // A short name counts when called, not as a word.
    assert_eq!(
        code_names("rx() must not add x; see `go` and it"),
        ["go", "rx"]
    );
    // Without a creating verb a missing name is not a file to make.
    assert!(
        !picked("Does Node.js matter here?", &dir)
            .iter()
            .any(|(_, role)| *role == FileRole::New)
    );
}

#[test]
fn a_small_repository_is_shown_when_nothing_is_named() {
    let dir = repo(&[
        ("inventory.py", "class Inventory: pass\n"),
        ("test_inventory.py", "from inventory import Inventory\n"),
        ("logo.png", "\u{89}PNG"),
    ]);
    assert_eq!(
        picked("The tests fail. Fix the code, not the tests.", &dir),
        [
            ("inventory.py".to_string(), FileRole::Editable),
            ("test_inventory.py".to_string(), FileRole::ReadOnly)
        ]
    );
}

#[test]
fn evidence_points_at_the_code_under_test_not_the_test() {
    let dir = repo(&[
        ("shop/__init__.py", ""),
        ("shop/prices.py", "def gross(net):\n    return net * 1.2\n"),
        (
            "shop/carts.py",
            "def total(items):\n    return sum(items)\n",
        ),
        ("tests/__init__.py", ""),
        (
            "tests/test_prices.py",
            "import shop\n\ndef test_gross():\n    assert shop.gross(10) == 12\n",
        ),
    ]);
    let suspects = [crate::agent::spectrum::Suspect {
        path: "shop/prices.py".to_string(),
        name: "gross".to_string(),
        line: 1,
        end_line: Some(2),
        score: 1.0,
    }];
    let failure = [Location {
        path: "tests/test_prices.py".to_string(),
        line: 4,
    }];
    let prompt = "test_gross fails. Fix the code, not the tests.";
    let evidence = Evidence {
        failure: &failure,
        suspects: &suspects,
    };
    let grounding = select(
        prompt,
        dir.path(),
        &evidence,
        Task::Change,
        Leads::default(),
    );
    let prices = grounding.files.iter().find(|g| g.path == "shop/prices.py");
    assert_eq!(
        prices.map(|g| (g.role, g.lines.clone())),
        Some((FileRole::Editable, vec![1]))
    );
    assert!(prices.is_some_and(|g| g.why.contains("`gross`")));
    // Without the spectrum the test is still only evidence.
    let evidence = Evidence {
        failure: &failure,
        suspects: &[],
    };
    let grounding = select(
        prompt,
        dir.path(),
        &evidence,
        Task::Change,
        Leads::default(),
    );
    let test = grounding
        .files
        .iter()
        .find(|g| g.path == "tests/test_prices.py");
    assert_eq!(test.map(|g| g.role), Some(FileRole::ReadOnly));
}

#[test]
fn words_of_a_symptom_find_the_definition() {
    let mut files = vec![
        ("app/__init__.py", String::new()),
        (
            "app/tokens.py",
            "def issue(user):\n    \"\"\"Signs a new session token with the signing key.\"\"\"\n    return sign(user)\n".to_string(),
        ),
    ];
    for n in 0..10 {
        files.push((
            [
                "app/a.py", "app/b.py", "app/c.py", "app/d.py", "app/e.py", "app/f.py", "app/g.py",
                "app/h.py", "app/i.py", "app/j.py",
            ][n],
            format!("def helper_{n}(x):\n    return x + {n}\n"),
        ));
    }
    let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
    let dir = repo(&files);
    let grounding = select(
        "New session tokens are signed with the wrong key.",
        dir.path(),
        &Evidence::default(),
        Task::Change,
        Leads::default(),
    );
    let tokens = grounding.files.iter().find(|g| g.path == "app/tokens.py");
    assert_eq!(
        tokens.map(|g| (g.role, g.lines.clone())),
        Some((FileRole::Editable, vec![1]))
    );
    assert!(
        tokens.is_some_and(|g| g.why.contains("`issue`")),
        "{:?}",
        grounding.files
    );
}

#[test]
fn a_task_about_tests_may_change_the_tests_it_names() {
    let dir = repo(&[
        ("calc.py", "def add(a, b):\n    return a + b\n"),
        (
            "tests/test_calc.py",
            "from calc import add\n\ndef test_add():\n    assert add(1, 2) == 4\n",
        ),
    ]);
    for prompt in [
        "Fix the test in tests/test_calc.py: 1 + 2 is 3.",
        "Update the test test_add, the expected value is wrong.",
        "Add a test in tests/test_calc.py for negative numbers.",
        "Fix tests/test_calc.py, not the code.",
    ] {
        let files = picked(prompt, &dir);
        assert!(
            files.contains(&("tests/test_calc.py".to_string(), FileRole::Editable)),
            "{prompt}: {files:?}"
        );
    }
    // Not when the prompt keeps them.
    let files = picked("test_add fails. Fix the code, not the tests.", &dir);
    assert!(
        !files.contains(&("tests/test_calc.py".to_string(), FileRole::Editable)),
        "{files:?}"
    );
}

#[test]
fn a_test_task_found_by_words_changes_the_tests_of_that_code() {
    let mut files: Vec<(String, String)> = (0..10)
        .map(|n| {
            (
                format!("pkg/m{n}.py"),
                format!("def helper_{n}(x):\n    return x\n"),
            )
        })
        .collect();
    files.push((
        "pkg/iters.py".into(),
        "def chunked(seq, n):\n    \"\"\"Split seq into chunks of n.\"\"\"\n    return [seq[i:i + n] for i in range(0, len(seq), n)]\n".into(),
    ));
    files.push((
        "tests/test_iters.py".into(),
        "from pkg.iters import chunked\n\ndef test_chunked():\n    assert chunked([1, 2, 3], 2) == [[1, 2], [3]]\n".into(),
    ));
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let dir = repo(&files);
    let picked = picked("Fix the test for chunked: it splits wrongly.", &dir);
    assert!(
        picked.contains(&("tests/test_iters.py".to_string(), FileRole::Editable)),
        "{picked:?}"
    );
}

#[test]
fn a_name_only_in_comments_or_a_binary_file_is_mentioned_nowhere() {
    let dir = repo(&[
        ("a.py", "# onlyInComment is set elsewhere\nx = 1\n"),
        ("b.py", "onlyInComment = 1\n\0\0binary"),
        ("c.py", "def f(onlyInComment):\n    return onlyInComment\n"),
    ]);
    let files: Vec<String> = ["a.py", "b.py", "c.py"].map(String::from).to_vec();
    assert_eq!(
        super::links::files_mentioning("onlyInComment", dir.path(), &files),
        ["c.py"]
    );
}
