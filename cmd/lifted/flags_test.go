package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every flag mistake is refused by name, with the subcommand's help and,
// where one is near, the flag meant; no strconv text.
func TestFlagMistakes(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.mln")
	if err := os.WriteFile(empty, []byte("// nothing but a comment\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"infer", smokersMLN, "-q", "Cancer", "--methd", "bp"}, []string{"unknown flag --methd", "did you mean --method?", "Run 'lifted infer --help'"}},
		{[]string{"map", smokersMLN, "-q", "Cancer", "--tris", "3"}, []string{"did you mean --tries?", "Run 'lifted map --help'"}},
		{[]string{"infer", smokersMLN, "-q", "Cancer", "-maxStep", "5"}, []string{"did you mean -maxSteps?", "Run 'lifted infer --help'"}},
		{[]string{"infer", "-i", smokersMLN, "-q", "Cancer", "-maxSteps", "5", "--method", "jtree"}, []string{"-maxSteps 5: --method jtree does not use it"}},
		{[]string{"infer", smokersMLN, "-q", "Cancer", "--method", "jtre"}, []string{`unknown --method "jtre"`, "(did you mean jtree?)"}},
		{[]string{"count", "--method", "exat", smokers}, []string{"(did you mean exact?)"}},
		{[]string{"infer", smokersMLN, "-q", "Cancer", "--samples", "abc"}, []string{`--samples "abc": want a whole number`}},
		{[]string{"infer", smokersMLN, "-q", "Cancer", "--time-limit", "5"}, []string{`--time-limit "5": want a duration`}},
		{[]string{"infer", smokersMLN, "-q", "Cancer", "--tol", "NaN"}, []string{"--tol NaN: want a finite number"}},
		{[]string{"infer", smokersMLN, "-q", "Cancer", "--damping", "-Inf"}, []string{"--damping -Inf: want a finite number"}},
		{[]string{"learn", "-i", smokersMLN, "-t", smokersDB, "--prior-stddev", "NaN"}, []string{"--prior-stddev NaN: want a finite number"}},
		{[]string{"learn", "-i", smokersMLN, "-t", smokersDB, "--prior-mean", "Inf"}, []string{"--prior-mean +Inf: want a finite number"}},
		{[]string{"count", "--alpha", "nan", smokers}, []string{"--alpha NaN: want a finite number"}},
		{[]string{"infer", smokersMLN, "-q", "Cancer", "--plot", "x.png"}, []string{"--plot applies to dynamic MLNs only: add --dynamic"}},
		{[]string{"infer", smokersMLN, "-q", "Cancer", "--horizon", "5"}, []string{"--horizon applies to dynamic MLNs only"}},
		{[]string{"infer", smokersMLN, "-q", "Cancer", "--smooth"}, []string{"--smooth applies to dynamic MLNs only"}},
		{[]string{"infer", smokers, "-q", "Cancer"}, []string{"--query applies to Markov logic networks (.mln) only"}},
		{[]string{"infer", smokers, "--max-ground", "10"}, []string{"--max-ground applies to Markov logic networks"}},
		{[]string{"infer", empty, "-e", smokersDB, "-q", "Cancer"}, []string{"empty.mln: the model is empty"}},
		{[]string{"learn", "-i", empty, "-t", smokersDB}, []string{"the model is empty"}},
	} {
		_, stderr, code := run(t, c.args...)
		if code != 1 {
			t.Errorf("%v: exit %d, want 1; stderr %q", c.args, code, stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, stderr, w)
			}
		}
		if strings.Contains(stderr, "strconv") || strings.Count(stderr, "\n") > 3 {
			t.Errorf("%v: stderr %q: want one clean message", c.args, stderr)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, code := run(t, "--version")
	if code != 0 || !strings.HasPrefix(out, "lifted ") || !strings.Contains(out, "commit ") || !strings.Contains(out, "built with go1.") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}
