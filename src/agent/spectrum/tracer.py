# oc's spectrum tracer: runs some tests of a Python project one by one and
# records which of the project's functions each one executed.
#
# Run by `oc` (src/agent/spectrum/python.rs) as
#   python3 - RUNNER CONFIG_JSON <<'EOF' … EOF
# in the workspace, with RUNNER `unittest` or `pytest` and CONFIG_JSON
#   {"failing": [test ids], "passing": N, "seconds": S, "path": [dirs]}
# Prints one line to stdout: `OC-SPECTRUM ` and the JSON
#   {"functions": [[path, qualname, first_line], ...],
#    "tests": [{"id": ID, "failed": BOOL, "hits": [function index, ...]}],
#    "stopped": BOOL}
# paths relative to the workspace; everything the tests print is dropped.
# It writes nothing into the workspace (no bytecode, no pytest cache).

import json
import os
import sys
import time

sys.dont_write_bytecode = True

ROOT = os.path.realpath(os.getcwd())
MARK = "OC-SPECTRUM "
# The line must fit in what oc keeps of a command's output.
MAX_BYTES = 24000
TEST_DIRS = {"test", "tests", "testing"}


def reporters():
    """The files (and folders, ending in a separator) of the code test
    frameworks describe failures with: unittest's `safe_repr`, pprint and
    difflib for its diffs, pytest's assertion messages and `saferepr`."""
    import difflib
    import pprint
    import reprlib
    import unittest.util

    found = {m.__file__ for m in (difflib, pprint, reprlib, unittest.util)}
    try:
        import _pytest

        base = os.path.dirname(_pytest.__file__)
        found |= {os.path.join(base, d) + os.sep for d in ("assertion", "_io")}
    except ImportError:
        pass
    return tuple(sorted(found))


REPORTERS = reporters()


class Recorder:
    """The workspace functions started while a test runs."""

    def __init__(self):
        self.functions = []
        self.index = {}
        self.by_code = {}
        self.places = {}
        self.hits = None

    def place_of(self, filename):
        """Where code of `filename` is: ("code", its workspace path), ("test",
        None) for the workspace's tests and what it installed, ("report",
        None) for what a test framework describes a failure with, else
        (None, None)."""
        place = self.places.get(filename)
        if place is not None:
            return place
        place = (None, None)
        if filename.startswith(REPORTERS):
            place = ("report", None)
        elif not filename.startswith("<"):
            real = os.path.realpath(filename)
            if real.startswith(ROOT + os.sep):
                rel = os.path.relpath(real, ROOT).replace(os.sep, "/")
                test = is_test_file(rel) or is_installed(rel)
                place = ("test", None) if test else ("code", rel)
        self.places[filename] = place
        return place

    def reporting(self, frame):
        """Whether the test framework called this frame's function to
        describe a failure (a `repr` in an assertion's message, and what
        that `repr` calls): what only failing tests run, and no suspect."""
        frame = frame.f_back
        while frame is not None:
            kind = self.place_of(frame.f_code.co_filename)[0]
            if kind == "report":
                return True
            if kind == "test":
                return False
            frame = frame.f_back
        return False

    def key_of(self, code):
        key = self.by_code.get(code, False)
        if key is not False:
            return key
        key = None
        name = getattr(code, "co_qualname", code.co_name)
        if not code.co_name.startswith("<"):
            kind, rel = self.place_of(code.co_filename)
            if kind == "code":
                whole = (rel, name, code.co_firstlineno)
                key = self.index.get(whole)
                if key is None:
                    key = self.index[whole] = len(self.functions)
                    self.functions.append(list(whole))
        self.by_code[code] = key
        return key

    def started(self, code, frame):
        """Records `code` starting in `frame`; False when it was left out
        (it describes a failure) and its next start must be seen too."""
        if self.hits is None:
            return True
        key = self.key_of(code)
        if key is None or key in self.hits:
            return True
        if frame is not None and self.reporting(frame):
            return False
        self.hits.add(key)
        return True

    def begin(self):
        self.hits = set()
        if hasattr(sys, "monitoring"):
            sys.monitoring.restart_events()

    def end(self):
        hits, self.hits = self.hits or set(), None
        return sorted(hits)

    def install(self):
        if hasattr(sys, "monitoring"):
            mon = sys.monitoring
            tool = mon.PROFILER_ID
            mon.use_tool_id(tool, "oc-spectrum")

            def on_start(code, offset):
                frame = sys._getframe(1)
                if frame.f_code is not code:
                    frame = None  # not the frame that starts: no caller to read
                # Once per code object per test: restart_events() in begin().
                if self.started(code, frame):
                    return mon.DISABLE
                return None

            mon.register_callback(tool, mon.events.PY_START, on_start)
            mon.set_events(tool, mon.events.PY_START)
            return

        def on_call(frame, event, arg):
            if event == "call":
                self.started(frame.f_code, frame)
            return None  # no line events inside

        sys.settrace(on_call)
        import threading

        threading.settrace(on_call)


def is_test_file(rel):
    parts = rel.split("/")
    name = parts[-1]
    return (
        name.startswith("test_")
        or name.endswith("_test.py")
        or name == "conftest.py"
        or any(p in TEST_DIRS for p in parts[:-1])
    )


def is_installed(rel):
    parts = rel.split("/")
    return any(
        p in ("site-packages", "dist-packages", "node_modules") or p.startswith(".")
        for p in parts
    )


def pick(candidates, failing_classes, count):
    """Up to `count` passing candidates, those of a failing test's class first."""
    near = [t for t in candidates if t[1] in failing_classes]
    far = [t for t in candidates if t[1] not in failing_classes]
    return (near + far)[:count]


def siblings(modules):
    """The other test modules of the failing tests' packages."""
    import importlib
    import pkgutil

    found = []
    for module in modules:
        package = module.rpartition(".")[0]
        try:
            path = importlib.import_module(package).__path__ if package else [ROOT]
        except Exception:
            continue
        for info in pkgutil.iter_modules(path):
            name = f"{package}.{info.name}" if package else info.name
            if info.name.startswith("test") and name not in modules + found:
                found.append(name)
    return found


def run_unittest(config, recorder, results, deadline):
    import importlib
    import unittest

    def module_of(test_id):
        parts = test_id.split(".")
        for end in range(len(parts) - 1, 0, -1):
            name = ".".join(parts[:end])
            try:
                importlib.import_module(name)
                return name
            except Exception:
                continue
        return None

    def flatten(suite):
        for test in suite:
            if isinstance(test, unittest.TestSuite):
                yield from flatten(test)
            else:
                yield test

    failing = set(config["failing"])
    modules = []
    for test_id in config["failing"]:
        module = module_of(test_id)
        if module and module not in modules:
            modules.append(module)
    loader = unittest.TestLoader()
    loaded = [t for m in modules for t in flatten(loader.loadTestsFromName(m))]
    if len(loaded) - len(failing) < config["passing"]:
        for module in siblings(modules):
            try:
                loaded += flatten(loader.loadTestsFromName(module))
            except Exception:
                continue
            if len(loaded) - len(failing) >= 2 * config["passing"]:
                break
    chosen = [t for t in loaded if t.id() in failing]
    classes = {t.id().rpartition(".")[0] for t in chosen}
    others = [(t, t.id().rpartition(".")[0]) for t in loaded if t.id() not in failing]
    keep = set(map(id, chosen + [t for t, _ in pick(others, classes, config["passing"])]))
    # In the loader's order, so that class and module fixtures run once each.
    suite = unittest.TestSuite([t for t in loaded if id(t) in keep])

    class Result(unittest.TestResult):
        def startTest(self, test):
            self.bad = False
            recorder.begin()
            super().startTest(test)

        def _mark(self, *args):
            self.bad = True

        addFailure = addError = addUnexpectedSuccess = _mark

        def addSubTest(self, test, subtest, outcome):
            if outcome is not None:
                self.bad = True

        def addSkip(self, test, reason):
            self.bad = None

        def stopTest(self, test):
            super().stopTest(test)
            hits = recorder.end()
            if self.bad is not None:
                results["tests"].append({"id": test.id(), "failed": self.bad, "hits": hits})
            if time.monotonic() > deadline:
                results["stopped"] = True
                self.stop()

    suite.run(Result())


def run_pytest(config, recorder, results, deadline):
    import pytest

    failing = set(config["failing"])
    outcome = {}

    class Plugin:
        def pytest_collection_modifyitems(self, session, config, items):
            chosen = [i for i in items if i.nodeid in failing]
            classes = {i.nodeid.rpartition("::")[0] for i in chosen}
            others = [(i, i.nodeid.rpartition("::")[0]) for i in items if i.nodeid not in failing]
            keep = set(map(id, chosen + [i for i, _ in pick(others, classes, passing)]))
            config.hook.pytest_deselected(items=[i for i in items if id(i) not in keep])
            items[:] = [i for i in items if id(i) in keep]

        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_protocol(self, item, nextitem):
            recorder.begin()
            yield
            hits = recorder.end()
            if time.monotonic() > deadline:
                results["stopped"] = True
                item.session.shouldstop = "oc: time limit"
            state = outcome.pop(item.nodeid, None)
            if state is not None:
                results["tests"].append({"id": item.nodeid, "failed": state, "hits": hits})

        def pytest_runtest_logreport(self, report):
            if report.failed:
                outcome[report.nodeid] = True
            elif report.skipped:
                outcome[report.nodeid] = None
            elif report.when == "call" and report.nodeid not in outcome:
                outcome[report.nodeid] = False

    passing = config["passing"]
    files = []
    for node in config["failing"]:
        path = node.split("::")[0]
        if path not in files:
            files.append(path)
    args = ["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "--no-header"]
    pytest.main(args + files, plugins=[Plugin()])


def report(results, recorder):
    tests = results["tests"]
    while True:
        used = sorted({h for t in tests for h in t["hits"]})
        renumber = {old: new for new, old in enumerate(used)}
        body = {
            "functions": [recorder.functions[i] for i in used],
            "tests": [dict(t, hits=[renumber[h] for h in t["hits"]]) for t in tests],
            "stopped": results["stopped"],
        }
        line = MARK + json.dumps(body, separators=(",", ":"))
        if len(line) <= MAX_BYTES or len(tests) <= 1:
            return line
        # Too long for oc to read whole: fewer passing tests, then fewer tests.
        passing = [i for i, t in enumerate(tests) if not t["failed"]]
        drop = passing[-1] if passing else len(tests) - 1
        tests = tests[:drop] + tests[drop + 1 :]


def main():
    runner, config = sys.argv[1], json.loads(sys.argv[2])
    deadline = time.monotonic() + config["seconds"]
    for entry in reversed(config.get("path", [])):
        sys.path.insert(0, os.path.join(ROOT, entry))
    if "" not in sys.path and ROOT not in sys.path:
        sys.path.insert(0, ROOT)
    results = {"tests": [], "stopped": False}
    recorder = Recorder()
    sys.stdout.flush()
    sys.stderr.flush()
    real_stdout = os.dup(1)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    try:
        recorder.install()
        if runner == "pytest":
            run_pytest(config, recorder, results, deadline)
        else:
            run_unittest(config, recorder, results, deadline)
    finally:
        sys.settrace(None)
        if hasattr(sys, "monitoring"):
            sys.monitoring.set_events(sys.monitoring.PROFILER_ID, 0)
        sys.stdout.flush()
        sys.stderr.flush()
        os.write(real_stdout, (report(results, recorder) + "\n").encode())


main()
