package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/format/dimacs"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/internal/shareddata"
)

// copies.cnf: four disjoint copies of a 6-variable formula with 15 models.
const (
	copiesCNF   = "testdata/count/copies.cnf"
	copiesCount = 50625
)

func TestCountExact(t *testing.T) {
	out, stderr, code := run(t, "count", "--method", "exact", copiesCNF)
	if code != 0 || !strings.HasPrefix(out, "count 50625 (log10 4.70)\ntime ") {
		t.Fatalf("exit %d: %q %s", code, out, stderr)
	}
	out, _, code = run(t, "count", "--method", "exact", "--output-format", "json", copiesCNF)
	var res struct {
		LogZ     float64        `json:"log_z"`
		LogZKind string         `json:"log_z_kind"`
		Stats    map[string]any `json:"stats"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("exit %d: %v %q", code, err, out)
	}
	r := res.Stats
	if r["count"] != "50625" || r["method"] != "exact" || r["confidence"] != 1.0 || res.LogZKind != "exact" || math.Abs(res.LogZ-math.Log(50625)) > 1e-9 {
		t.Fatalf("json %s", out)
	}
	out, _, code = run(t, "count", "--method", "exact", "testdata/count/unsat.cnf")
	if code != 0 || !strings.HasPrefix(out, "count 0 (unsatisfiable)") {
		t.Fatalf("exit %d: %q", code, out)
	}
}

type boundJSON struct {
	Method          string     `json:"method"`
	LowerBoundLog10 *float64   `json:"lower_bound_log10"`
	Confidence      float64    `json:"confidence"`
	Trials          int        `json:"trials"`
	Steps           int        `json:"steps"`
	MessagesGround  int64      `json:"messages_ground"`
	MessagesLifted  int64      `json:"messages_lifted"`
	EdgesGround     int64      `json:"edges_ground"`
	EdgesLifted     int64      `json:"edges_lifted"`
	Seconds         *float64   `json:"seconds"`
	Estimates       []*float64 `json:"estimates_log10"`
	FirstStep       struct {
		MessagesGround int64 `json:"messages_ground"`
		MessagesLifted int64 `json:"messages_lifted"`
	} `json:"first_step"`
	PerStep []struct {
		Trial, Step, Var int
		Value            bool
		Prob             float64
	} `json:"per_step"`
}

func countJSON(t *testing.T, args ...string) boundJSON {
	t.Helper()
	out, stderr, code := run(t, append([]string{"count", "--output-format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var res struct {
		LogZ     *float64  `json:"log_z"`
		LogZKind string    `json:"log_z_kind"`
		Stats    boundJSON `json:"stats"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v: %v: %q", args, err, out)
	}
	r := res.Stats
	// log Z is the natural log of the lower bound on the count.
	if lb := r.LowerBoundLog10; res.LogZKind != "lower-bound" || (lb == nil) != (res.LogZ == nil) || (lb != nil && math.Abs(*res.LogZ-*lb*math.Ln10) > 1e-9) {
		t.Fatalf("%v: log_z %v (%s), lower_bound_log10 %v", args, res.LogZ, res.LogZKind, lb)
	}
	return r
}

func TestCountBound(t *testing.T) {
	args := []string{"--residual-vars", "4", "--seed", "6", "--per-step", copiesCNF}
	g := countJSON(t, append([]string{"--method", "bpcount"}, args...)...)
	l := countJSON(t, append([]string{"--method", "lbpcount", "--choice-slack", "0"}, args...)...) // BPCount's choices
	for _, r := range []boundJSON{g, l} {
		if r.LowerBoundLog10 == nil || *r.LowerBoundLog10 > math.Log10(copiesCount) || r.Seconds == nil {
			t.Fatalf("%s: bound %v above log10 %d", r.Method, r.LowerBoundLog10, copiesCount)
		}
		if r.Confidence != 0.96875 || r.Trials != 5 || len(r.Estimates) != 5 || r.Steps == 0 || len(r.PerStep) != r.Steps {
			t.Fatalf("%s: %+v", r.Method, r)
		}
	}
	if g.Method != "bpcount" || l.Method != "lbpcount" {
		t.Fatalf("methods %q %q", g.Method, l.Method)
	}
	// Same seed, same marginals: the same choices (this seed's BP runs stay
	// on the symmetric trajectory, see count.LBPCount), far fewer messages.
	if *g.LowerBoundLog10 != *l.LowerBoundLog10 && math.Abs(*g.LowerBoundLog10-*l.LowerBoundLog10) > 1e-9 {
		t.Errorf("bounds differ: %v %v", *g.LowerBoundLog10, *l.LowerBoundLog10)
	}
	// The same choices; the probabilities agree to rounding (ground BP keeps
	// a clusternode's product of messages in the linear domain, a lifted
	// clusternode with counts above 1 in the log domain).
	for i := range g.PerStep {
		a, b := g.PerStep[i], l.PerStep[i]
		if a.Trial != b.Trial || a.Step != b.Step || a.Var != b.Var || a.Value != b.Value || math.Abs(a.Prob-b.Prob) > 1e-12 {
			t.Fatalf("step %d: %+v vs %+v", i, a, b)
		}
	}
	if g.MessagesLifted != g.MessagesGround || l.MessagesLifted >= l.MessagesGround*4/5 || l.MessagesGround != g.MessagesGround ||
		l.FirstStep.MessagesLifted >= l.FirstStep.MessagesGround/2 || l.EdgesLifted >= l.EdgesGround {
		t.Errorf("messages: bpcount %d/%d, lbpcount %d/%d (first step %d/%d)", g.MessagesLifted, g.MessagesGround,
			l.MessagesLifted, l.MessagesGround, l.FirstStep.MessagesLifted, l.FirstStep.MessagesGround)
	}
}

func TestCountText(t *testing.T) {
	out, stderr, code := run(t, "count", "--residual-vars", "4", "--trials", "3", "--alpha", "2", copiesCNF)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "lower bound ") || !strings.HasSuffix(lines[0], "with confidence ≥ 0.984375") ||
		!strings.HasPrefix(lines[1], "method lbpcount, 3 trials, ") || !strings.HasPrefix(lines[2], "estimates (log10): ") ||
		!strings.HasPrefix(lines[3], "messages ") {
		t.Fatalf("output %q", out)
	}
	// The output file gets the same text.
	path := filepath.Join(t.TempDir(), "bound.txt")
	if _, _, code := run(t, "count", "--residual-vars", "4", "--trials", "3", "--alpha", "2", "-o", path, copiesCNF); code != 0 {
		t.Fatalf("exit %d", code)
	}
	b, err := os.ReadFile(path)
	if err != nil || strings.Split(string(b), "\n")[0] != lines[0] {
		t.Fatalf("file %q, %v", b, err)
	}
	// An unsatisfiable formula has bound 0.
	out, _, code = run(t, "count", "testdata/count/unsat.cnf")
	if code != 0 || !strings.HasPrefix(out, "lower bound 0 ") {
		t.Fatalf("exit %d: %q", code, out)
	}
}

func TestCountErrors(t *testing.T) {
	dir := t.TempDir()
	hard := filepath.Join(dir, "hard.cnf")
	// A random 3-CNF at clause ratio 1.5 with 100 variables: far more than a
	// millisecond of work for either method.
	var b strings.Builder
	b.WriteString("p cnf 100 150\n")
	x := uint32(12345)
	next := func() int {
		x = x*1103515245 + 12345
		return int(x>>16) % 100
	}
	for range 150 {
		for range 3 {
			v := next() + 1
			if next()%2 == 0 {
				v = -v
			}
			fmt.Fprintf(&b, "%d ", v)
		}
		b.WriteString("0\n")
	}
	os.WriteFile(hard, []byte(b.String()), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"count"}, "takes 1 argument"},
		{[]string{"count", "--method", "magic", copiesCNF}, "unknown --method"},
		{[]string{"count", "--damping", "1", copiesCNF}, "--damping"},
		{[]string{"count", "--trials", "0", copiesCNF}, "--trials"},
		{[]string{"count", "--alpha", "-1", copiesCNF}, "--alpha"},
		{[]string{"count", "--min-prob", "0", copiesCNF}, "--min-prob"},
		{[]string{"count", "--frozen-tol", "0.5", copiesCNF}, "--frozen-tol"},
		{[]string{"count", "--residual-vars", "-2", copiesCNF}, "--residual-vars"},
		{[]string{"count", "--output-format", "xml", copiesCNF}, "unknown --output-format"},
		{[]string{"count", "--bp-graph", "tree", copiesCNF}, "unknown --bp-graph"},
		{[]string{"count", "../../examples/fg/smokers.fg"}, "DIMACS CNF"},
		{[]string{"count", "no-such.cnf"}, "no such file"},
		{[]string{"count", "testdata/count/bad.cnf"}, "bad.cnf:3:3:"},
		{[]string{"count", "--method", "exact", "--timeout", "1ms", hard}, "timed out after 1ms"},
		{[]string{"count", "--timeout", "1ms", hard}, "timed out after 1ms"},
	}
	for _, c := range cases {
		out, stderr, code := run(t, c.args...)
		if code != 1 || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q (want %q)", c.args, code, stderr, c.want)
		}
	}
}

func TestCountHelp(t *testing.T) {
	out, _, code := run(t, "count", "--help")
	if code != 0 || !strings.Contains(out, "Usage:") || !strings.Contains(out, "--method") || !strings.Contains(out, "Examples:") {
		t.Fatalf("exit %d: %q", code, out)
	}
	out, _, _ = run(t, "--help")
	if !strings.Contains(out, "count") {
		t.Fatalf("root help does not list count: %q", out)
	}
}

// A UAI model of 0/1 tables is counted like the formula it encodes: the
// shipped copies.cnf written as UAI (one 0/1 table per clause) has the same
// count, and the shared 2bitcomp_5.cnf.uai matches its UAI PR reference.
func TestCountUAI(t *testing.T) {
	fh, err := os.Open(copiesCNF)
	if err != nil {
		t.Fatal(err)
	}
	c, err := dimacs.Read(fh, copiesCNF)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	g, err := cnf.ToGraph(c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "copies.uai")
	var buf bytes.Buffer
	if err := uai.Write(&buf, &uai.Model{Graph: g}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "count", "--method", "exact", path)
	if code != 0 || !strings.HasPrefix(out, "count 50625 (log10 4.70)\n") {
		t.Fatalf("exit %d: %q %s", code, out, stderr)
	}
	_, stderr, code = run(t, "count", "--method", "exact", "../../examples/fg/smokers10.uai")
	if code != 1 || !strings.Contains(stderr, "model counting needs tables of 0 and 1") {
		t.Errorf("weighted UAI model: exit %d, %q", code, stderr)
	}
	shared := shareddata.Need(t, "uai", "2bitcomp_5.cnf.uai")
	out, stderr, code = run(t, "count", "--method", "exact", "--output-format", "json", shared)
	var res struct{ Stats map[string]any }
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 {
		t.Fatalf("exit %d: %v %q %s", code, err, out, stderr)
	}
	r := res.Stats
	// 2bitcomp_5.cnf.uai.PR: log10 Z = 15.9929982198 (no evidence)
	if lg, ok := r["count_log10"].(float64); r["count"] != "9840070722846720" || !ok || math.Abs(lg-15.9929982198) > 1e-9 {
		t.Errorf("2bitcomp_5.cnf.uai: %v", r)
	}
}
