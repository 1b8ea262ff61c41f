"""Tests of the lifted Python package: each runs the same model through the
package and through the command's JSON output directly, and compares.

Run from the repository root:

    LIFTED_BIN=/path/to/lifted python3 -m unittest discover -s python/tests

They test the package in python/, or with LIFTED_TEST_INSTALLED=1 the
installed copy that ``import lifted`` finds, and skip, saying why, when there
is no lifted binary ($LIFTED_BIN, else lifted on the PATH). Standard library
only.
"""

import contextlib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
INSTALLED = os.environ.get("LIFTED_TEST_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, os.path.dirname(HERE))

import lifted  # noqa: E402  (the package in python/, put first on the path above)

if INSTALLED and os.path.dirname(os.path.dirname(os.path.abspath(lifted.__file__))) == os.path.dirname(HERE):
    raise ImportError(f"LIFTED_TEST_INSTALLED=1 but lifted comes from the source tree: {lifted.__file__}")

MLN = os.path.join(REPO, "examples", "mln")
FG = os.path.join(REPO, "examples", "fg")
TD = os.path.join(REPO, "cmd", "lifted", "testdata")
SMOKERS = os.path.join(MLN, "smokers.mln")
SMOKERS_DB = os.path.join(MLN, "smokers.db")

BIN = None


class NeedsBinary(unittest.TestCase):
    """Skips, saying why, when there is no lifted binary."""

    @classmethod
    def setUpClass(cls):
        global BIN
        try:
            BIN = lifted.find_binary()
        except lifted.BinaryNotFoundError as e:
            raise unittest.SkipTest(f"no lifted binary: {e}")


def cli(*args, check=True):
    """Runs the binary directly; returns (returncode, stdout, stderr)."""
    p = subprocess.run([BIN] + list(args), capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"lifted {' '.join(args)} failed: {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    return json.loads(cli(*args, "--quiet")[1])


def untimed(v):
    """v without the timings (keys ending in 'seconds', and the stages, a
    list of timings in which a stage appears only where it took time), which
    differ between runs."""
    if isinstance(v, dict):
        return {k: untimed(x) for k, x in v.items() if not k.endswith("seconds") and k != "stages"}
    if isinstance(v, list):
        return [untimed(x) for x in v]
    return v


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class Same(NeedsBinary):
    """The package's answers equal the command's JSON."""

    def same(self, got, want):
        self.assertEqual(untimed(got), untimed(want))

    def test_infer_mln(self):
        got = lifted.infer(SMOKERS, SMOKERS_DB, "Smokes,Cancer")
        want = cli_json("infer", SMOKERS, "-e", SMOKERS_DB, "-q", "Smokes,Cancer",
                        "--output-format", "json")
        self.same(got, want)
        self.assertAlmostEqual(got["marginals"]["Cancer(Anna)"], 0.817574, places=6)
        self.assertIn("log_z", got)
        self.assertTrue(got["stats"]["converged"])

    def test_infer_mln_text(self):
        # Model and evidence as text, evidence as a list of atoms: the same answer.
        atoms = [ln for ln in read(SMOKERS_DB).splitlines() if ln and not ln.startswith("//")]
        got = lifted.infer(read(SMOKERS), atoms, ["Smokes", "Cancer"])
        want = cli_json("infer", SMOKERS, "-e", SMOKERS_DB, "-q", "Smokes,Cancer",
                        "--output-format", "json")
        self.same(got, want)

    def test_infer_mln_options(self):
        got = lifted.infer(SMOKERS, SMOKERS_DB, ["Friends(Anna,y)", "Cancer"], method="bp",
                           schedule="seq", damping=0.3, ow=["Friends"], max_iter=50)
        want = cli_json("infer", SMOKERS, "-e", SMOKERS_DB, "-q", "Friends(Anna,y)",
                        "-q", "Cancer", "--method", "bp", "--schedule", "seq",
                        "--damping", "0.3", "--ow", "Friends", "--max-iter", "50",
                        "--output-format", "json")
        self.same(got, want)
        self.assertIn("Friends(Anna,Dana)", got["marginals"])
        self.assertNotIn("Friends(Anna,Bob)", got["marginals"])  # evidence

    def test_infer_map(self):
        got = lifted.infer(SMOKERS, SMOKERS_DB, "Cancer", max_product=True)
        want = cli_json("infer", SMOKERS, "-e", SMOKERS_DB, "-q", "Cancer",
                        "--max-product", "--output-format", "json")
        self.same(got, want)
        self.assertEqual(got["assignment"]["Cancer(Anna)"], 1)

    def test_infer_factor_graphs(self):
        uai, evid = os.path.join(FG, "smokers10.uai"), os.path.join(FG, "smokers10.uai.evid")
        want = cli_json("infer", uai, "-e", evid, "--output-format", "json")
        self.same(lifted.infer(uai, evid), want)
        # Evidence as a dict and as text, the model as text.
        fields = read(evid).split()
        pairs = dict(zip(map(int, fields[1::2]), map(int, fields[2::2])))
        self.same(lifted.infer(uai, pairs), want)
        self.same(lifted.infer(read(uai), read(evid)), want)
        self.assertEqual(len(want["marginals"]), 120)

        fg = os.path.join(TD, "twofactors.fg")
        want = cli_json("infer", fg, "--method", "bp", "--output-format", "json")
        self.same(lifted.infer(fg, method="bp"), want)
        self.same(lifted.infer(read(fg), method="bp"), want)

    def test_compress(self):
        got = lifted.compress(SMOKERS, SMOKERS_DB, "Smokes")
        want = cli_json("compress", SMOKERS, "-e", SMOKERS_DB, "-q", "Smokes")
        self.same(got, want)
        self.assertLess(got["clusternodes"], got["variables"])

    def test_wfomc(self):
        fs = os.path.join(TD, "wfomc", "friendsmoker.mln")
        got = lifted.wfomc(fs, query=["friends(Guy,Nima)", "smokes(Guy)"])
        want = cli_json("wfomc", fs, "-q", "friends(Guy,Nima)", "-q", "smokes(Guy)",
                        "--output-format", "json")
        self.same(got, want)
        self.assertAlmostEqual(got["log_z"], 68.63908810719217, places=9)
        self.assertAlmostEqual(got["marginals"]["friends(Guy,Nima)"], 0.4580488556024473, places=12)

        got = lifted.wfomc(SMOKERS, query="Smokes(Anna)", domain={"person": 1000})
        want = cli_json("wfomc", SMOKERS, "-q", "Smokes(Anna)", "--domain", "person=1000",
                        "--output-format", "json")
        self.same(got, want)
        self.assertEqual(got["stats"]["expected_counts"][0], 1000)

        ev = os.path.join(TD, "wfomc", "evidence.db")
        got = lifted.wfomc(fs, ev, "smokes(Guy)")
        want = cli_json("wfomc", fs, "-e", ev, "-q", "smokes(Guy)", "--output-format", "json")
        self.same(got, want)
        got = lifted.wfomc(SMOKERS, count={"Smokes": 2}, domain="person=20")
        want = cli_json("wfomc", SMOKERS, "--count", "Smokes=2", "--domain", "person=20",
                        "--output-format", "json")
        self.same(got, want)

    def test_loglik(self):
        d = os.path.join(TD, "wfomc")
        smoking = os.path.join(d, "smoking.mln")
        learned = lifted.learn(smoking, os.path.join(d, "train.db"))["mln"]
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "learned.mln")
            with open(path, "w") as f:
                f.write(learned)
            dbs = [os.path.join(d, "train.db"), os.path.join(d, "test.db")]
            got = lifted.loglik(path, dbs)
            want = cli_json("loglik", path, *dbs, "--output-format", "json")
        self.same(got, want)
        self.assertEqual(len(got["databases"]), 2)
        # The learned text given as a string: the same numbers.
        self.same(lifted.loglik(learned, dbs)["log_likelihood"], want["log_likelihood"])

    def test_loglik_violated(self):
        got = lifted.loglik("p(d)\nq(d)\np(x) => q(x).\n", "p(A)\n")
        self.assertIsNone(got["log_likelihood"])
        self.assertIn("violated", got["databases"][0])

    def test_learn(self):
        d = os.path.join(TD, "wfomc")
        smoking, train = os.path.join(d, "smoking.mln"), os.path.join(d, "train.db")
        for method in ("lwl", "pll"):
            with self.subTest(method=method):
                got = lifted.learn(smoking, train, method=method, prior_stddev=10)
                _, want, _ = cli("learn", "--method", method, "-i", smoking, "-t", train,
                                 "--prior-stddev", "10", "--quiet")
                self.assertEqual(got["mln"], want)
                # The parsed weights are the ones written, formula by formula.
                written = re.findall(r"^(-?[\d.]+(?:e[-+]?\d+)?) (.*)$", want, re.M)
                self.assertEqual(len(written), 6)
                self.assertEqual([(float(w), f) for w, f in written],
                                 [(x["weight"], x["formula"]) for x in got["formulas"]])
                self.assertEqual(got["weights"], [float(w) for w, _ in written])
        # lwl maximises the likelihood: the learned model's log-likelihood of the
        # training data is the one its header reports.
        got = lifted.learn(smoking, train)
        header = float(re.search(r"training log-likelihood (\S+),", got["mln"]).group(1))
        ll = lifted.loglik(got["mln"], train)["log_likelihood"]
        self.assertTrue(math.isclose(ll, header, rel_tol=1e-8), (ll, header))

    def test_learn_online(self):
        got = lifted.learn(SMOKERS, SMOKERS_DB, method="sgd", ne=["Smokes", "Cancer"], seed=3)
        _, want, _ = cli("learn", "--method", "sgd", "-i", SMOKERS, "-t", SMOKERS_DB,
                         "--ne", "Smokes,Cancer", "--seed", "3", "--quiet")
        self.assertEqual(got["mln"], want)
        self.assertEqual(len(got["weights"]), 2)

    def test_count(self):
        tiny = os.path.join(TD, "tiny.cnf")
        got = lifted.count(tiny, "exact")
        want = cli_json("count", tiny, "--method", "exact", "--output-format", "json")
        self.same(got, want)
        self.assertEqual(int(got["stats"]["count"]), 4)
        self.same(lifted.count(read(tiny), "exact"), want)

        copies = os.path.join(TD, "count", "copies.cnf")
        got = lifted.count(copies, trials=3, seed=2, residual_vars=5)
        want = cli_json("count", copies, "--trials", "3", "--seed", "2",
                        "--residual-vars", "5", "--output-format", "json")
        self.same(got, want)


class Errors(NeedsBinary):
    """Errors of the command become exceptions carrying its message and position."""

    def test_syntax_error(self):
        bad = "p(x)\n1.0 p(x) ^^ q\n"
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bad.mln")
            with open(path, "w") as f:
                f.write(bad)
            with self.assertRaises(lifted.LiftedError) as c:
                lifted.infer(path, query="p")
            rc, _, stderr = cli("infer", path, "-q", "p", check=False)
        e = c.exception
        self.assertNotIsInstance(e, lifted.UsageError)
        self.assertEqual(rc, 1)
        self.assertEqual(e.returncode, 1)
        self.assertEqual("lifted: " + e.message, stderr.strip())
        self.assertEqual((e.file, e.line, e.column), (path, 2, 11))
        self.assertEqual(str(e), e.message)
        # Given as text, the file is named model.mln.
        with self.assertRaises(lifted.LiftedError) as c:
            lifted.infer(bad, query="p")
        e = c.exception
        self.assertEqual(e.message, e.message.replace(tempfile.gettempdir(), ""))
        self.assertTrue(e.message.startswith("model.mln:2:11: "), e.message)
        self.assertEqual((e.file, e.line, e.column), ("model.mln", 2, 11))

    def test_shipped_syntax_error(self):
        path = os.path.join(TD, "mln", "syntax.mln")
        with self.assertRaises(lifted.LiftedError) as c:
            lifted.infer(path, query="Smokes")
        _, _, stderr = cli("infer", path, "-q", "Smokes", check=False)
        e = c.exception
        self.assertEqual("lifted: " + e.message, stderr.strip())
        m = re.match(r"lifted: (.*):(\d+):(\d+): ", stderr)
        self.assertEqual((e.file, e.line, e.column), (m.group(1), int(m.group(2)), int(m.group(3))))

    def test_contradictory_evidence(self):
        mln, db = os.path.join(TD, "mln", "hard.mln"), os.path.join(TD, "mln", "contradiction.db")
        with self.assertRaises(lifted.LiftedError) as c:
            lifted.infer(mln, db, "Knows")
        e = c.exception
        self.assertIn("contradictory evidence", e.message)
        self.assertEqual((e.file, e.line, e.column), (mln, 5, 1))

    def test_usage_errors(self):
        with self.assertRaises(lifted.UsageError) as c:
            lifted.infer(SMOKERS, SMOKERS_DB)  # no query
        self.assertIn("no query", c.exception.message)
        self.assertIsNone(c.exception.line)
        with self.assertRaises(lifted.UsageError) as c:
            lifted.infer(SMOKERS, SMOKERS_DB, "Smokes", no_such_flag=1)
        self.assertIn("unknown flag --no-such-flag", c.exception.message)
        with self.assertRaises(lifted.UsageError):
            lifted.infer(SMOKERS, SMOKERS_DB, "Nope")
        with self.assertRaises(TypeError):
            lifted.infer(SMOKERS, SMOKERS_DB, "Smokes", output_format="mar")

    def test_missing_file(self):
        with self.assertRaises(lifted.LiftedError) as c:
            lifted.infer("no/such/model.mln", query="Smokes")
        self.assertIn("no/such/model.mln", c.exception.message)

    def test_no_binary(self):
        old = os.environ.get("LIFTED_BIN")
        os.environ["LIFTED_BIN"] = os.path.join(tempfile.gettempdir(), "no-such-lifted-binary")
        try:
            with self.assertRaises(lifted.BinaryNotFoundError) as c:
                lifted.infer(SMOKERS, SMOKERS_DB, "Smokes", native=False)
            self.assertIn("go build", str(c.exception))
        finally:
            if old is None:
                del os.environ["LIFTED_BIN"]
            else:
                os.environ["LIFTED_BIN"] = old

    def test_quiet_false_passes_stderr(self):
        buf = io.StringIO()
        with contextlib.redirect_stderr(buf):
            lifted.learn(SMOKERS, SMOKERS_DB, quiet=False)
        self.assertIn("lwl:", buf.getvalue())
        buf = io.StringIO()
        with contextlib.redirect_stderr(buf):
            lifted.learn(SMOKERS, SMOKERS_DB)
        self.assertEqual(buf.getvalue(), "")


class Helpers(unittest.TestCase):
    """The parts that need no binary."""

    def test_is_text(self):
        self.assertFalse(lifted._is_text(SMOKERS))
        self.assertFalse(lifted._is_text("missing.mln"))
        self.assertTrue(lifted._is_text("Smokes(Anna)"))
        self.assertTrue(lifted._is_text("p(d)\n"))
        self.assertTrue(lifted._is_text(""))
        self.assertTrue(lifted._is_text("2 0 1 3 0"))

    def test_model_ext(self):
        self.assertEqual(lifted._model_ext("MARKOV\n2\n2 2\n", None), ".uai")
        self.assertEqual(lifted._model_ext("c x\np cnf 2 1\n1 2 0\n", None), ".cnf")
        self.assertEqual(lifted._model_ext("2\n\n2\n0 1\n", None), ".fg")
        self.assertEqual(lifted._model_ext("c = {A, B}\nP(c)\n", None), ".mln")
        self.assertEqual(lifted._model_ext("anything", "fg"), ".fg")

    def test_flags(self):
        self.assertEqual(lifted._flags({"max_iter": 5, "merge_duplicates": True, "quiet_x": None,
                                        "alchemy_cnf": False, "cw": ["A", "B"],
                                        "domain": {"person": 3}, "prior_mean": -1.5}),
                         ["--max-iter=5", "--merge-duplicates", "--alchemy-cnf=false",
                          "--cw=A", "--cw=B", "--domain=person=3", "--prior-mean=-1.5"])

    def test_parse_learned(self):
        text = ("// header\n\nperson = {A}\nP(person)\nQ(person)\n\n"
                "1.5 P(x) => Q(x)\n-2e-05 P(x)\n@0.5 Q(x)\nP(x) v Q(x).\n")
        self.assertEqual(lifted.parse_learned(text), [
            {"formula": "P(x) => Q(x)", "weight": 1.5, "hard": False, "fixed": False},
            {"formula": "P(x)", "weight": -2e-05, "hard": False, "fixed": False},
            {"formula": "Q(x)", "weight": 0.5, "hard": False, "fixed": True},
            {"formula": "P(x) v Q(x)", "weight": None, "hard": True, "fixed": False},
        ])

    def test_position(self):
        self.assertEqual(lifted._position('m.mln:2:11: unexpected "^"'), ("m.mln", 2, 11))
        self.assertEqual(lifted._position('h.mln: contradictory evidence: hard formula 1 "a" '
                                          '(h.mln:5:1) is false'), ("h.mln", 5, 1))
        self.assertEqual(lifted._position("m.uai:7: want 4"), ("m.uai", 7, None))
        self.assertEqual(lifted._position("no query"), (None, None, None))


if __name__ == "__main__":
    unittest.main()
