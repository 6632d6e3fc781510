use std::time::Duration;

use super::*;

fn limits() -> Limits {
    Limits::for_check(Duration::from_secs(1))
}

/// `python3.11 -m unittest -q` on a module with a failure, an error, a
/// failing subtest, a class whose `setUpClass` raised and a test module
/// that does not import (3.12 prints the same headers).
const UNITTEST_311: &str = "\
======================================================================
ERROR: setUpClass (tests.test_a.Broken)
----------------------------------------------------------------------
Traceback (most recent call last):
  File \"/w/tests/test_a.py\", line 14, in setUpClass
    raise RuntimeError('no')
RuntimeError: no

======================================================================
ERROR: test_err (tests.test_a.Case.test_err)
----------------------------------------------------------------------
KeyError: 'k'

======================================================================
ERROR: tests.test_b (unittest.loader._FailedTest.tests.test_b)
----------------------------------------------------------------------
ImportError: Failed to import test module: tests.test_b

======================================================================
FAIL: test_sub (tests.test_a.Case.test_sub) (i=2)
----------------------------------------------------------------------
AssertionError: 2 != 1

======================================================================
FAIL: test_sub (tests.test_a.Case.test_sub) (i=3)
----------------------------------------------------------------------
AssertionError: 3 != 1

======================================================================
FAIL: test_x (tests.test_a.Case.test_x)
----------------------------------------------------------------------
AssertionError: 1 != 2

----------------------------------------------------------------------
Ran 4 tests in 0.001s

FAILED (failures=3, errors=3)
";

#[test]
fn unittest_headers_give_test_ids_each_once() {
    assert_eq!(
        unittest_failures(UNITTEST_311),
        [
            "tests.test_a.Case.test_err",
            "tests.test_a.Case.test_sub",
            "tests.test_a.Case.test_x"
        ]
    );
    // A test made in a function (isodate's `create_datetestcase`).
    let local = "FAIL: test_sub (isodate.tests.test_duration.create_datetestcase.<locals>.TestDateCalc.test_sub)\n";
    assert_eq!(
        unittest_failures(local),
        ["isodate.tests.test_duration.create_datetestcase.<locals>.TestDateCalc.test_sub"]
    );
}

#[test]
fn unittest_headers_before_python_3_11_name_the_class_only() {
    let output = "FAIL: test_x (tests.test_a.Case)\n----\nERROR: test_y (tests.test_a.Case)\nERROR: tests.test_b (unittest.loader._FailedTest)\n";
    assert_eq!(
        unittest_failures(output),
        ["tests.test_a.Case.test_x", "tests.test_a.Case.test_y"]
    );
}

#[test]
fn pytest_summary_lines_give_node_ids() {
    let output = "\
..F.E                                                                    [100%]
=================================== FAILURES ===================================
______________________________ TestCase.test_x _______________________________
E       assert 1 == 2
tests/test_a.py:7: AssertionError
=========================== short test summary info ============================
FAILED tests/test_a.py::TestCase::test_x - assert 1 == 2
FAILED tests/test_a.py::test_param[a b-2] - AssertionError: no
FAILED tests/test_c.py::test_bare
ERROR tests/test_a.py::test_fixture - RuntimeError: boom
ERROR tests/test_broken.py - ModuleNotFoundError: No module named 'x'
==================== 3 failed, 1 passed, 1 error in 0.12s =====================
";
    assert_eq!(
        pytest_failures(output),
        [
            "tests/test_a.py::TestCase::test_x",
            "tests/test_a.py::test_param[a b-2]",
            "tests/test_c.py::test_bare",
            "tests/test_a.py::test_fixture"
        ]
    );
}

#[test]
fn test_commands_are_recognised_with_their_interpreter_and_path() {
    let unittest = |interpreter: &str, path: &[&str]| Invocation {
        env: Vec::new(),
        interpreter: interpreter.to_string(),
        runner: Runner::Unittest,
        path: path.iter().map(|p| p.to_string()).collect(),
    };
    assert_eq!(
        invocation("python3 -m unittest -q"),
        Some(unittest("python3", &[]))
    );
    assert_eq!(
        invocation("python -B -m unittest discover -s tests -v"),
        Some(unittest("python", &["tests"]))
    );
    assert_eq!(
        invocation("python3.12 -m unittest discover src/tests 'test_*.py' src"),
        Some(unittest("python3.12", &["src"]))
    );
    assert_eq!(
        invocation(".venv/bin/python -m unittest tests.test_a"),
        Some(unittest(".venv/bin/python", &[]))
    );
    let pytest = invocation("PYTHONPATH=src pytest -q tests/").unwrap();
    assert_eq!(pytest.runner, Runner::Pytest);
    assert_eq!(pytest.interpreter, "python3");
    assert_eq!(pytest.env, ["PYTHONPATH=src"]);
    assert_eq!(invocation("py.test").unwrap().runner, Runner::Pytest);
    assert_eq!(
        invocation("python3 -m pytest -x").unwrap().runner,
        Runner::Pytest
    );
    for other in [
        "cargo test",
        "python3 setup.py test",
        "python3 -m mypy .",
        "pythonic -m unittest",
        "cd sub && python3 -m unittest",
        "python3 -m unittest 2>&1 | tail",
        "",
    ] {
        assert_eq!(invocation(other), None, "{other}");
    }
}

#[test]
fn the_plan_runs_the_tracer_from_a_here_document() {
    let traced = plan("python3 -m unittest -q", UNITTEST_311, &limits()).unwrap();
    let (line, rest) = traced.command.split_once('\n').unwrap();
    assert!(
        line.starts_with("python3 - unittest '{\"failing\":[\"tests.test_a.Case.test_err\","),
        "{line}"
    );
    assert!(line.ends_with(&format!("<<'{END}'")), "{line}");
    assert!(rest.starts_with("# oc's spectrum tracer"), "{rest}");
    assert!(rest.ends_with(&format!("\n{END}\n")));
    let words = shlex::split(line.trim_end_matches(&format!(" <<'{END}'"))).unwrap();
    let config: serde_json::Value = serde_json::from_str(&words[3]).unwrap();
    assert_eq!(config["passing"], 40);
    assert_eq!(config["seconds"], 5.0);
    assert_eq!(
        plan("python3 -m unittest -q", "Ran 3 tests\nOK\n", &limits()),
        None
    );
    assert_eq!(plan("make test", UNITTEST_311, &limits()), None);
}
