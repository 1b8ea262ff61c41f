package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// --workers changes nothing in the output but the timings: compress
// statistics and infer marginals on models with and without evidence, and
// online learning's weights; the default (all cores) and 0 included.
func TestWorkersSameResult(t *testing.T) {
	strip := func(out string) string {
		var st map[string]any
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("%v: %q", err, out)
		}
		delete(st, "color_seconds")
		delete(st, "seconds")
		b, _ := json.Marshal(st)
		return string(b)
	}
	dir := t.TempDir()
	mln := writeFile(t, dir, "s.mln", "person = {A, B, C, D, E}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n1 Smokes(x) => Cancer(x)\n0.5 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	db := writeFile(t, dir, "train.db", "Smokes(A)\nCancer(A)\nSmokes(B)\nFriends(A, B)\nFriends(B, C)\n")
	cases := [][]string{
		{"compress", smokers},
		{"compress", smokers, "-e", smokers + ".evid"},
		{"compress", "testdata/tiny.cnf"},
		{"infer", smokers, "-e", smokers + ".evid"},
		{"infer", "--schedule", "seq", "testdata/twofactors.fg"},
		{"learn", "--method", "sgd", "-i", mln, "-t", db, "--ne", "Smokes,Cancer", "--passes", "2"},
	}
	for _, args := range cases {
		var outs []string
		for _, w := range []string{"1", "", "0", "2", "5"} {
			a := append([]string{}, args...)
			if w != "" {
				a = append(a, "--workers", w)
			}
			out, stderr, code := run(t, append(a, "--quiet")...)
			if code != 0 {
				t.Fatalf("%v --workers %s: exit %d: %s", args, w, code, stderr)
			}
			if args[0] == "compress" {
				out = strip(out)
			}
			outs = append(outs, out)
		}
		for i, o := range outs[1:] {
			if o != outs[0] {
				t.Fatalf("%v: output with --workers %q differs from one worker:\n%.300s\n%.300s", args, []string{"(default)", "0", "2", "5"}[i], o, outs[0])
			}
		}
	}
	if _, stderr, code := run(t, "compress", smokers, "--workers", "-1"); code == 0 || !strings.Contains(stderr, "--workers") {
		t.Fatalf("--workers -1: exit %d, %s", code, stderr)
	}
}
