package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes a test file and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Without --ne, the online learners predict every predicate when the data
// observe every atom (Alchemy's -g); data with unknown atoms need --ne and
// the error says why.
func TestOnlineLearnGenerativeWithoutNE(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "s.mln", "person = {A, B, C}\nSmokes(person)\nCancer(person)\n1 Smokes(x) => Cancer(x)\n")
	train := writeFile(t, dir, "train.db", "Smokes(A)\nCancer(A)\nSmokes(B)\n")
	for _, m := range []string{"smd", "sgd", "scg", "lbfgs-bp"} {
		out, stderr, code := run(t, "learn", "--method", m, "-i", model, "-t", train, "--passes", "2", "--max-iter", "20")
		if code != 0 || !strings.Contains(out, "Smokes(x) => Cancer(x)") {
			t.Fatalf("%s: exit %d, %q, %s", m, code, out, stderr)
		}
		if !strings.Contains(stderr, "no --ne: the data observe every predicate, so all are predicted (generative, as Alchemy's -g): Smokes,Cancer") {
			t.Errorf("%s: stderr %q", m, stderr)
		}
	}
	partial := writeFile(t, dir, "partial.db", "Smokes(A)\n?Cancer(B)\nCancer(A)\n")
	_, stderr, code := run(t, "learn", "--method", "smd", "-i", model, "-t", partial)
	if code != 1 || !strings.Contains(stderr, "needs the non-evidence predicates (--ne P1,P2) because the training data observe only part of Cancer (1 unknown atom, the first ?Cancer(B) at ") ||
		!strings.Contains(stderr, "partial.db:2:1") {
		t.Errorf("partial data: exit %d, %q", code, stderr)
	}
	// With --ne the same data are fine.
	if _, stderr, code := run(t, "learn", "--method", "smd", "-i", model, "-t", partial, "--ne", "Cancer"); code != 0 {
		t.Errorf("partial data with --ne: exit %d, %s", code, stderr)
	}
}

// infer ends with one summary line on stderr, after the output; --quiet
// drops it.
func TestInferSummaryLine(t *testing.T) {
	out, stderr, code := run(t, "infer", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer")
	if code != 0 || !strings.HasPrefix(out, "Smokes(Carl) 0.518465\n") {
		t.Fatalf("exit %d: %q %s", code, out, stderr)
	}
	if !strings.HasPrefix(stderr, "lifted: 13 ground atoms, 12 factors; 12 clusternodes, 11 clusterfactors (compression 1.1x); 5 iterations, converged; ") ||
		strings.Count(stderr, "\n") != 1 {
		t.Errorf("MLN summary %q", stderr)
	}
	_, stderr, _ = run(t, "infer", smokers, "-e", smokers+".evid")
	if !strings.HasPrefix(stderr, "lifted: 120 variables, 110 factors; 16 clusternodes, 13 clusterfactors (compression 7.5x); 17 iterations, converged; ") {
		t.Errorf("factor graph summary %q", stderr)
	}
	for _, args := range [][]string{{smokersMLN, "-e", smokersDB, "-q", "Smokes"}, {smokers}} {
		if _, stderr, code := run(t, append([]string{"infer", "--quiet"}, args...)...); code != 0 || stderr != "" {
			t.Errorf("--quiet %v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
