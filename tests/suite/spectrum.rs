//! Spectrum-based fault localisation before the first request: the failing
//! tests run again under a tracer, and the function they executed that the
//! passing tests did not is named.

use super::repositories::stderr_of;
use crate::common::{FakeOllama, Reply, TestEnv};

/// A library whose `gross` returns a wrong value, and tests of it: one
/// fails in its own `assert`, so its traceback names only the test file;
/// its message shows a `Basket`, so the failing test alone runs
/// `Basket.__repr__`.
fn shop() -> TestEnv {
    let env = TestEnv::new();
    env.write(".gitignore", "__pycache__/\n");
    env.write("shop/__init__.py", "");
    env.write(
        "shop/prices.py",
        "def net(price):\n    return price\n\n\ndef gross(price, rate):\n    return price * (1 + rate) + 1\n\n\ndef label(price):\n    return f\"{price:.2f} EUR\"\n\n\nclass Basket:\n    def __init__(self, prices):\n        self.prices = list(prices)\n\n    def __contains__(self, price):\n        return price in self.prices\n\n    def __repr__(self):\n        return f\"Basket({self.prices})\"\n",
    );
    env.write("tests/__init__.py", "");
    env.write(
        "tests/test_prices.py",
        "import unittest\n\nfrom shop.prices import Basket, gross, label, net\n\n\nclass PricesTest(unittest.TestCase):\n    def test_net(self):\n        self.assertEqual(net(10), 10)\n\n    def test_label(self):\n        self.assertEqual(label(net(2)), \"2.00 EUR\")\n\n    def test_basket(self):\n        self.assertIn(net(2), Basket([2]))\n\n    def test_gross(self):\n        print(\"noise the tracer drops\")\n        self.assertIn(gross(net(10), 0.5), Basket([15]))\n",
    );
    env.commit_all();
    env
}

/// The failing test ran `gross`, `Basket`'s methods and `net`; the passing
/// ones all but `gross`. The `repr` in the failure's message is no suspect.
#[test]
fn a_failing_assert_points_at_the_function_that_returned_the_wrong_value() {
    let env = shop();
    let server = FakeOllama::start(vec![Reply::answer("I cannot see the bug.")]);
    let out = env
        .oc(&server)
        .args(["run", "--yes", "--check-attempts", "1"])
        .args(["--check", "python3 -m unittest -q"])
        .arg("test_gross fails. Fix the code, not the tests.")
        .assert()
        .code(6);
    let stderr = stderr_of(&out);
    assert!(
        stderr.contains("spectrum: 1 failing and 3 passing tests traced in "),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "most suspicious: `gross` (shop/prices.py:5, 1.00), `Basket.__init__` (shop/prices.py:14, 0.71), `Basket.__contains__` (shop/prices.py:17, 0.71)\n"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("noise the tracer drops"), "{stderr}");
    // The tracer left nothing behind: no file, and no bytecode but the
    // check's own.
    assert_eq!(env.git(&["status", "--porcelain"]), "");
    let ignored = env.git(&["status", "--porcelain", "--ignored"]);
    assert!(
        ignored
            .lines()
            .all(|l| ["!! shop/__pycache__/", "!! tests/__pycache__/"].contains(&l)),
        "{ignored}"
    );
}

#[test]
fn spectrum_is_a_heuristic_that_can_be_switched_off() {
    let env = shop();
    let server = FakeOllama::start(vec![Reply::answer("I cannot see the bug.")]);
    let out = env
        .oc(&server)
        .env("OC_DISABLE", "spectrum")
        .args(["run", "--yes", "--check-attempts", "1"])
        .args(["--check", "python3 -m unittest -q"])
        .arg("test_gross fails.")
        .assert()
        .code(6);
    assert!(!stderr_of(&out).contains("spectrum:"));
}
