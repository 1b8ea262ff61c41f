package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// --workers changes nothing in the output but the timings: compress
// statistics and infer marginals on models with and without evidence, and
// online learning's weights.
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
	cases := [][]string{
		{"compress", smokers},
		{"compress", smokers, "-e", smokers + ".evid"},
		{"compress", "testdata/tiny.cnf"},
		{"infer", smokers, "-e", smokers + ".evid"},
		{"infer", "--schedule", "seq", "testdata/twofactors.fg"},
	}
	for _, args := range cases {
		var outs []string
		for _, w := range []string{"1", "2", "5"} {
			out, stderr, code := run(t, append(append([]string{}, args...), "--workers", w, "--quiet")...)
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
				t.Fatalf("%v: output with %d workers differs from one worker:\n%.300s\n%.300s", args, []int{2, 5}[i], o, outs[0])
			}
		}
	}
	if _, stderr, code := run(t, "compress", smokers, "--workers", "-1"); code == 0 || !strings.Contains(stderr, "--workers") {
		t.Fatalf("--workers -1: exit %d, %s", code, stderr)
	}
}
