"""Tests of the in-process path (lifted.load, native=True): the lifted
library built as a C shared library and called with ctypes.

Each compares the native answer with the subprocess path's (the binary's
--output-format json) on the same model: the dicts must be equal, timings
aside. They skip, saying why, without the shared library ($LIFTED_LIB, else
liblifted.so next to the package; build it with
``python3 -m lifted.build_native``) or without the binary. Run from the
repository root:

    LIFTED_BIN=/path/to/lifted LIFTED_LIB=/path/to/liblifted.so \\
        python3 -m unittest discover -s python/tests

The whole subprocess suite (test_lifted.py) also runs in-process with
LIFTED_NATIVE=1, as .ci/run does.
"""

import contextlib
import gc
import io
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
if os.environ.get("LIFTED_TEST_INSTALLED") != "1":
    sys.path.insert(0, os.path.dirname(HERE))

import lifted  # noqa: E402
from lifted import _native  # noqa: E402

MLN = os.path.join(REPO, "examples", "mln")
FG = os.path.join(REPO, "examples", "fg")
SMOKERS = os.path.join(MLN, "smokers.mln")
SMOKERS_DB = os.path.join(MLN, "smokers.db")


def untimed(v):
    """v without the timings (keys ending in 'seconds', and the stages, a
    list of timings in which a stage appears only where it took time), which
    differ between runs."""
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if not k.endswith("seconds") and k != "stages"}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


class NeedsLibrary(unittest.TestCase):
    """Skips, saying why, without the shared library or the binary."""

    @classmethod
    def setUpClass(cls):
        try:
            _native.library()
        except lifted.LibraryNotFoundError as e:
            raise unittest.SkipTest(f"no lifted shared library (native path not tested): {e}")
        try:
            lifted.find_binary()
        except lifted.BinaryNotFoundError as e:
            raise unittest.SkipTest(f"no lifted binary to compare with: {e}")

    def same(self, native, sub):
        self.assertEqual(untimed(native), untimed(sub))

    def both(self, fn, *args, **kw):
        """fn's answer natively and through the binary, asserted equal."""
        got = fn(*args, native=True, **kw)
        want = fn(*args, native=False, **kw)
        self.same(got, want)
        return got


class SameAnswers(NeedsLibrary):
    """The native path returns the subprocess path's dicts."""

    def test_smokers_marginals(self):
        for method in (None, "lbp", "bp", "wfomc", "enumerate"):
            with self.subTest(method=method):
                r = self.both(lifted.infer, SMOKERS, SMOKERS_DB, "Smokes,Cancer", method=method)
                self.assertEqual(len(r["marginals"]), 13)
                self.assertAlmostEqual(r["marginals"]["Cancer(Anna)"], 0.8175744761936, places=9)
        # The same keys in stats, not only the same values.
        got = lifted.infer(SMOKERS, SMOKERS_DB, "Smokes,Cancer", method="lbp", native=True)
        want = lifted.infer(SMOKERS, SMOKERS_DB, "Smokes,Cancer", method="lbp", native=False)
        self.assertEqual(list(got), list(want))
        self.assertEqual(list(got["stats"]), list(want["stats"]))
        self.assertTrue(got["stats"]["converged"])

    def test_options_and_samplers(self):
        self.both(lifted.infer, SMOKERS, SMOKERS_DB, ["Smokes", "Cancer(Anna)"], method="bp",
                  schedule="seq", damping=0.5, max_iter=300, tol=1e-10)
        self.both(lifted.infer, SMOKERS, SMOKERS_DB, "Cancer", method="mcsat", samples=200,
                  burn_in=20, chains=2, seed=3, allow_unconverged=True)
        self.both(lifted.infer, SMOKERS, SMOKERS_DB, "Cancer", method="lbp",
                  cw=["Friends"], merge_duplicates=True, construction="ground",
                  prop={"max-iter": 500})
        # log Z of the first-order construction (the command asks for it with JSON output).
        for db in (SMOKERS_DB, None):
            r = self.both(lifted.infer, SMOKERS, db, "Smokes,Cancer", method="lbp",
                          construction="first-order")
            self.assertIsNotNone(r["log_z"])

    def test_tolerance(self):
        # --tolerance reaches the in-process run: its figures are in stats.
        r = self.both(lifted.infer, SMOKERS, SMOKERS_DB, "Smokes,Cancer", method="lbp", tolerance=0.01)
        self.assertEqual(r["stats"]["tolerance"], 0.01)
        self.assertIn("error_estimate", r["stats"])
        self.both(lifted.compress, SMOKERS, SMOKERS_DB, "Smokes,Cancer", tolerance=0.01)

    def test_map(self):
        for method, kw in (("lp", {}), ("ilp", {}), ("maxwalksat", {"seed": 1, "tries": 3}),
                           ("lbp", {}), ("lp", {"relaxation": "local"})):
            with self.subTest(method=method, **kw):
                r = self.both(lifted.map, SMOKERS, SMOKERS_DB, "Smokes,Cancer", method=method, **kw)
                self.assertEqual(r["task"], "map")
                self.assertIn(r["assignment"]["Cancer(Anna)"], (0, 1))
        r = self.both(lifted.infer, SMOKERS, SMOKERS_DB, "Cancer", method="lp", max_product=True)
        self.assertIsNotNone(r["bound"])

    def test_factor_graph_and_text(self):
        uai = os.path.join(FG, "smokers10.uai")
        self.both(lifted.infer, uai, {0: 1, 1: 0})
        self.both(lifted.infer, uai, os.path.join(FG, "smokers10.uai.evid"), method="bp")
        self.both(lifted.map, uai, {0: 1}, method="lp", symmetry="none")
        self.both(lifted.compress, uai)
        mln = "person = {Ann, Bob, Cid}\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n"
        self.both(lifted.infer, mln, ["Smokes(Ann)", "!Smokes(Bob)"], "Cancer", method="bp")
        self.both(lifted.compress, SMOKERS, SMOKERS_DB, "Smokes,Cancer")

    def test_dynamic(self):
        mln, db = os.path.join(MLN, "social-dynamic.mln"), os.path.join(MLN, "social-dynamic.db")
        r = self.both(lifted.infer, mln, db, "Cancer", dynamic=True, horizon=3)
        self.assertEqual([s["kind"] for s in r["steps"]], ["filtered"] * 4 + ["smoothed"])
        with lifted.load(mln, db, dynamic=True) as m:
            self.same(m.infer("Cancer", dynamic=True, horizon=2, filter=True),
                      lifted.infer(mln, db, "Cancer", dynamic=True, horizon=2, filter=True))


def unread(v):
    """A whole run's answer without its "read" stage: a model loaded once
    answers each query without reading it again."""
    st = v.get("stats") if isinstance(v, dict) else None
    if isinstance(st, dict) and isinstance(st.get("stages"), list):
        st = dict(st, stages=[x for x in st["stages"] if x.get("stage") != "read"])
        v = dict(v, stats=st)
    return v


class LoadOnce(NeedsLibrary):
    """A model loaded once answers many queries, each as a fresh run would
    (less the reading, which it does once)."""

    def same(self, native, sub):
        super().same(native, unread(sub))

    def test_many_queries(self):
        with lifted.load(SMOKERS, evidence=SMOKERS_DB) as m:
            self.assertEqual(m.format, "mln")
            for _ in range(2):
                for q, method in (("Smokes,Cancer", None), ("Cancer", "bp"), ("Smokes", "lbp"),
                                  (["Cancer(Anna)", "Smokes(Gary)"], "wfomc")):
                    self.same(m.infer(q, method=method),
                              lifted.infer(SMOKERS, SMOKERS_DB, q, method=method, native=False))
                self.same(m.map("Smokes,Cancer"), lifted.map(SMOKERS, SMOKERS_DB, "Smokes,Cancer",
                                                             native=False))
                self.same(m.compress("Smokes"), lifted.compress(SMOKERS, SMOKERS_DB, "Smokes",
                                                                native=False))
            m.infer("Cancer")
            self.assertTrue(m.messages)  # auto says which method and why
            self.assertIn(m.messages[0]["level"], ("info", "warning", "alert"))

    def test_quiet_false_prints_messages(self):
        with lifted.load(SMOKERS, SMOKERS_DB) as m:
            buf = io.StringIO()
            with contextlib.redirect_stderr(buf):
                m.infer("Cancer")
            self.assertEqual(buf.getvalue(), "")
            with contextlib.redirect_stderr(buf):
                m.infer("Cancer", quiet=False)
            self.assertIn("lifted: method ", buf.getvalue())

    def test_free_and_no_leak(self):
        base = _native.live_models()
        for _ in range(200):
            m = lifted.load(SMOKERS, SMOKERS_DB)
            m.infer("Cancer", method="lbp")
            m.close()
        self.assertEqual(_native.live_models(), base)
        # Garbage collection frees a model nobody closed.
        m = lifted.load(SMOKERS, SMOKERS_DB)
        self.assertEqual(_native.live_models(), base + 1)
        del m
        gc.collect()
        self.assertEqual(_native.live_models(), base)
        # Close is idempotent; a closed model refuses queries; a freed handle is an error.
        m = lifted.load(SMOKERS, SMOKERS_DB)
        h = m._handle
        m.close()
        m.close()
        self.assertTrue(m.closed)
        with self.assertRaises(lifted.LiftedError):
            m.infer("Cancer")
        self.assertFalse(_native.call_free(h))
        with self.assertRaises(lifted.LiftedError) as c:
            _native.call_run(h, {"mode": "infer", "query": ["Cancer"]})
        self.assertIn("no model with handle", c.exception.message)
        # Text inputs live in a temporary directory until the model closes.
        m = lifted.load("person = {A, B}\nP(person)\n1.0 P(x)\n", ["P(A)"])
        tmp = m._inputs.dir
        self.assertTrue(os.path.isdir(tmp))
        m.close()
        self.assertFalse(os.path.exists(tmp))
        self.assertEqual(_native.live_models(), base)

    def test_threads(self):
        want = untimed(unread(lifted.infer(SMOKERS, SMOKERS_DB, "Smokes,Cancer", method="lbp", native=False)))
        with lifted.load(SMOKERS, SMOKERS_DB) as m:
            got, errs = [], []

            def work():
                try:
                    for _ in range(5):
                        got.append(untimed(m.infer("Smokes,Cancer", method="lbp")))
                except Exception as e:  # noqa: BLE001 (reported below)
                    errs.append(e)

            ts = [threading.Thread(target=work) for _ in range(4)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        self.assertEqual(errs, [])
        self.assertEqual(len(got), 20)
        for g in got:
            self.assertEqual(g, want)


class NativeErrors(NeedsLibrary):
    """Errors carry the message and position the command prints."""

    def test_syntax_error_position(self):
        bad = "p(x)\n1.0 p(x) ^^ q\n"
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.mln")
            with open(path, "w") as f:
                f.write(bad)
            errs = []
            for native in (True, False):
                with self.assertRaises(lifted.LiftedError) as c:
                    lifted.infer(path, query="p", native=native)
                errs.append(c.exception)
            with self.assertRaises(lifted.LiftedError) as c:
                lifted.load(path)
            errs.append(c.exception)
        for e in errs:
            self.assertNotIsInstance(e, lifted.UsageError)
            self.assertEqual((e.file, e.line, e.column), (path, 2, 11))
            self.assertEqual(e.message, errs[1].message)
            self.assertEqual(e.returncode, 1)
        # Text is named model.mln on both paths.
        for native in (True, False):
            with self.assertRaises(lifted.LiftedError) as c:
                lifted.infer(bad, query="p", native=native)
            self.assertTrue(c.exception.message.startswith("model.mln:2:11: "), c.exception.message)
            self.assertEqual((c.exception.file, c.exception.line, c.exception.column), ("model.mln", 2, 11))

    def test_deep_formula_is_an_error_not_an_abort(self):
        # A formula nested 300,000 deep (or 1,000,000 "!") overflowed the
        # parser's stack: "fatal error: stack overflow" killed the Python
        # host (exit 134). Now the parser's depth limit gives a LiftedError
        # at the token past the limit, on both paths.
        with tempfile.TemporaryDirectory() as tmp:
            for name, formula in (("parens", "(" * 300000 + "P" + ")" * 300000),
                                  ("nots", "!" * 1000000 + "P")):
                path = os.path.join(tmp, name + ".mln")
                with open(path, "w") as f:
                    f.write("P\n1 " + formula + "\n")
                with self.assertRaises(lifted.LiftedError) as c:
                    lifted.load(path)
                self.assertNotIsInstance(c.exception, lifted.UsageError)
                self.assertIn("nested more than", c.exception.message)
                self.assertEqual((c.exception.line, c.exception.column), (2, 1003))
                with self.assertRaises(lifted.LiftedError) as c:
                    lifted.infer(path, query="P", native=False)
                self.assertIn("nested more than", c.exception.message)

    def test_evidence_error_position(self):
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "bad.db")
            with open(db, "w") as f:
                f.write("Smokes(Anna)\nSmokes(Anna, Bob)\n")
            errs = []
            for native in (True, False):
                with self.assertRaises(lifted.LiftedError) as c:
                    lifted.infer(SMOKERS, db, "Cancer", native=native)
                errs.append(c.exception)
        self.assertEqual(errs[0].message, errs[1].message)
        self.assertEqual((errs[0].file, errs[0].line, errs[0].column),
                         (errs[1].file, errs[1].line, errs[1].column))
        self.assertEqual(errs[0].file, db)
        self.assertEqual(errs[0].line, 2)

    def test_usage_errors_as_the_command(self):
        cases = [
            dict(query="Cancer", max_iterations=5),            # unknown flag
            dict(query="Cancer", method="nope"),               # unknown method
            dict(query="Cancer", method="lp"),                 # lp answers MAP only
            dict(query="Cancer", method="lp", damping=0.5, max_product=True),  # not lp's
            dict(query="Cancer", method="bp", schedule="zigzag"),  # bad value
            dict(query="Nope"),                                # unknown predicate
            dict(),                                            # no query
        ]
        for kw in cases:
            with self.subTest(**kw):
                msgs = []
                for native in (True, False):
                    with self.assertRaises(lifted.UsageError) as c:
                        lifted.infer(SMOKERS, SMOKERS_DB, native=native, **kw)
                    msgs.append(c.exception.message)
                self.assertEqual(msgs[0], msgs[1])

    def test_not_converged(self):
        kw = dict(method="bp", max_iter=1, damping=0.1)
        errs = []
        for native in (True, False):
            with self.assertRaises(lifted.LiftedError) as c:
                lifted.infer(SMOKERS, SMOKERS_DB, "Smokes,Cancer", native=native, **kw)
            errs.append(c.exception)
        self.assertEqual(errs[0].message, errs[1].message)
        self.assertEqual(errs[0].returncode, 3)
        self.assertEqual(errs[1].returncode, 3)
        r = self.both(lifted.infer, SMOKERS, SMOKERS_DB, "Smokes,Cancer", allow_unconverged=True, **kw)
        self.assertFalse(r["converged"])

    def test_max_memory(self):
        # --max-memory in-process: the same refusal, with the size and the
        # flag, as the command's; the budget is the call's only.
        cnf = "p cnf 100000000 1\n1 0\n"
        msgs = []
        for native in (True, False):
            with self.assertRaises(lifted.LiftedError) as c:
                lifted.infer(cnf, format="cnf", max_memory="64MB", native=native)
            msgs.append(c.exception.message)
            with self.assertRaises(lifted.UsageError):
                lifted.infer(cnf, format="cnf", max_memory="1MB", native=native)
        self.assertEqual(msgs[0], msgs[1])
        self.assertIn("a CNF of 100000000 variables", msgs[0])
        self.assertIn("more than the limit of 61.0 MiB (--max-memory", msgs[0])
        people = ", ".join(f"P{i}" for i in range(20))
        mln = (f"person = {{{people}}}\nFriends(person, person)\n"
               "0.5 Friends(x,y) ^ Friends(y,z) => Friends(x,z)\n")
        with lifted.load(mln, max_memory="1GB") as m:
            with self.assertRaises(lifted.LiftedError) as c:
                m.infer("Friends", method="bp", max_memory="2MB")
            self.assertIn("raise --max-memory", c.exception.message)
            r = m.infer("Friends(P1,P2)", method="bp", max_iter=1, allow_unconverged=True)
            self.assertEqual(len(r["marginals"]), 1)

    def test_missing_library(self):
        old = os.environ.get("LIFTED_LIB")
        os.environ["LIFTED_LIB"] = os.path.join(tempfile.gettempdir(), "no-such-liblifted.so")
        try:
            with self.assertRaises(lifted.LibraryNotFoundError) as c:
                lifted.find_library()
            self.assertIn("lifted.build_native", str(c.exception))
        finally:
            if old is None:
                del os.environ["LIFTED_LIB"]
            else:
                os.environ["LIFTED_LIB"] = old


# Run by Interrupt in a fresh interpreter: a native run that would take
# minutes, SIGINT to the process after 1 s (as Ctrl-C sends), then a second
# query on the same model, which must still answer.
_SIGINT_SCRIPT = r"""
import os, signal, sys, threading, time
# Ctrl-C raises KeyboardInterrupt even where this interpreter was started
# with SIGINT ignored (a background job of a shell without job control).
signal.signal(signal.SIGINT, signal.default_int_handler)
import lifted
m = lifted.load(sys.argv[1], sys.argv[2])
sent = []
def fire():
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(1.0, fire).start()
start = time.monotonic()
try:
    m.infer(["Cancer"], "gibbs", samples=10**8, seed=1)
    print("finished", time.monotonic() - start)
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - sent[0])
r = m.infer(["Cancer"], seed=1)
print("again", len(r["marginals"]))
m.close()
print("live", lifted._native.live_models())
"""


_SIGINT_LOAD_SCRIPT = r"""
import os, signal, sys, threading, time
signal.signal(signal.SIGINT, signal.default_int_handler)  # as in _SIGINT_SCRIPT
import lifted
sent = []
def fire():
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGINT)
threading.Timer(0.3, fire).start()
try:
    m = lifted.load(sys.argv[1], sys.argv[2])
    print("finished 0")
except KeyboardInterrupt:
    print("interrupted", time.monotonic() - sent[0])
time.sleep(0.2)
print("live", lifted._native.live_models())
"""


class Interrupt(NeedsLibrary):
    """Ctrl-C during a native call stops the run as it stops the command."""

    def test_sigint_stops_a_native_load(self):
        # An evidence database large enough to take seconds to read.
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        model, db = os.path.join(d, "m.mln"), os.path.join(d, "big.db")
        with open(model, "w") as f:
            f.write("Knows(person, person)\nHappy(person)\n1 Knows(x, y) => Happy(x)\n")
        with open(db, "w") as f:
            f.writelines(f"Knows(P{i}, Q{i % 977})\n" for i in range(1500000))
        p, lines = self.run_script(_SIGINT_LOAD_SCRIPT, model, db)
        if "finished" in lines:
            self.skipTest("the load ended before the signal (a fast machine)")
        self.assertIn("interrupted", lines, p.stdout)
        self.assertLess(float(lines["interrupted"]), 3.0, p.stdout)
        self.assertEqual(lines["live"], "0")  # the stopped load keeps no model

    def run_script(self, script, *args):
        """Runs script in a fresh interpreter with this package and library:
        the process, and its output lines "key value" as a dict."""
        env = dict(os.environ)
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(lifted.__file__)))
        env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
        env["LIFTED_LIB"] = _native.find_library()
        p = subprocess.run([sys.executable, "-c", script, *args], env=env,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p, dict(line.split(" ", 1) for line in p.stdout.splitlines())

    def test_sigint_stops_a_native_run(self):
        p, lines = self.run_script(_SIGINT_SCRIPT, SMOKERS, SMOKERS_DB)
        self.assertIn("interrupted", lines, p.stdout)
        # 0.5 s on a quiet machine (the command's bound); CI's machine is shared.
        self.assertLess(float(lines["interrupted"]), 3.0, p.stdout)
        want = len(lifted.infer(SMOKERS, SMOKERS_DB, ["Cancer"], seed=1, native=False)["marginals"])
        self.assertEqual(int(lines["again"]), want)
        self.assertEqual(lines["live"], "0")


class Switch(NeedsLibrary):
    """lifted.NATIVE makes the module's functions run in-process."""

    def test_module_switch(self):
        old_native, old_bin = lifted.NATIVE, os.environ.get("LIFTED_BIN")
        want = lifted.infer(SMOKERS, SMOKERS_DB, "Cancer", native=False)
        lifted.NATIVE = True
        os.environ["LIFTED_BIN"] = os.path.join(tempfile.gettempdir(), "no-such-lifted-binary")
        try:
            self.same(lifted.infer(SMOKERS, SMOKERS_DB, "Cancer"), want)  # no binary needed
            with self.assertRaises(lifted.BinaryNotFoundError):
                lifted.infer(SMOKERS, SMOKERS_DB, "Cancer", native=False)
        finally:
            lifted.NATIVE = old_native
            if old_bin is None:
                del os.environ["LIFTED_BIN"]
            else:
                os.environ["LIFTED_BIN"] = old_bin


if __name__ == "__main__":
    unittest.main()
