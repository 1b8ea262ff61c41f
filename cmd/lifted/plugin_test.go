package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/lifted-dev/lifted/engine"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/lift"
)

// enumeration is a trivial inference method written outside the infer
// package: exact answers by enumerating every joint state of the ground
// graph. Registering it below is all it takes for "lifted infer --method
// brute" to run it; the flags, the output writers and the JSON
// statistics reach it as they reach BP.
type enumeration struct{}

func (enumeration) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	g := c.Ground
	if c.NumNodes() != g.NumVars() {
		return nil, errors.New("brute: needs the ground (trivially compressed) graph")
	}
	ev := make(fg.Evidence, g.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	ex := brute.Solve(g, ev)
	ans := &infer.Answer{Graph: c, Task: q.Task, NodeOff: make([]int, c.NumNodes()+1), Converged: true,
		LogZ: ex.LogZ, LogZKind: infer.Exact, Stats: infer.Stats{Converged: true}}
	for v, X := range c.NodeOf {
		ans.NodeOff[X+1] = int(g.Card[v])
	}
	for X := range c.NumNodes() {
		ans.NodeOff[X+1] += ans.NodeOff[X]
	}
	ans.Belief = make([]float64, ans.NodeOff[c.NumNodes()])
	for v, X := range c.NodeOf {
		copy(ans.NodeBelief(int(X)), ex.Marginals[v])
	}
	if q.Task == infer.MAP {
		ans.Assignment = ex.MAP
	}
	return ans, nil
}

func init() {
	infer.Register(infer.Method{
		Name: "brute", Summary: "exact, by enumerating every state (a test method outside infer)",
		Tasks: []infer.Task{infer.Marginals, infer.MAP, infer.PartitionFunction},
		New:   func(infer.Properties) (infer.Algorithm, error) { return enumeration{}, nil },
	})
}

// runCLI runs the command in this process (so test-registered methods
// exist) and returns stdout and the error.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// A loopy model (a 2x2 grid with a ternary variable and a zero entry), small
// enough to enumerate, where BP is not exact.
const loopyUAI = `MARKOV
4
2 3 2 2
5
1 0
2 0 1
2 1 3
2 3 2
2 2 0
2
0.3 0.7
6
 5 1 0
 1 2 4
6
 1 6 3 2 6 1
4
 4 1 1 4
4
 2 1 1 3
`

// TestPluginMethodFromCLI is the proof that a new method plugs in at one
// place: a method registered in this test file, outside the infer package,
// is reached from --method by name and prints the exact marginals in
// every output format.
func TestPluginMethodFromCLI(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "loopy.uai")
	if err := os.WriteFile(model, []byte(loopyUAI), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := engine.Load(model, engine.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ex := brute.Solve(l.Graph, nil)

	out, err := runCLI(t, "infer", "--method", "brute", "--quiet", model)
	if err != nil {
		t.Fatal(err)
	}
	got := parseMAR(t, out)
	for v, m := range ex.Marginals {
		for x, p := range m {
			if math.Abs(got[v][x]-p) > 1e-6 { // MAR prints 6 significant digits
				t.Fatalf("variable %d state %d: --method brute printed %v, enumeration gives %v", v, x, got[v][x], p)
			}
		}
	}
	// BP is not exact here, so the output above did come from the new method.
	bpOut, err := runCLI(t, "infer", "--method", "bp", "--quiet", model)
	if err != nil {
		t.Fatal(err)
	}
	if bpOut == out {
		t.Fatal("BP and enumeration print the same marginals on a loopy model: the method was not dispatched")
	}

	// MAP and JSON (log Z) go through the same writers.
	out, err = runCLI(t, "infer", "--method", "brute", "--max-product", "--quiet", model)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("MPE\n%d", len(ex.MAP))
	for _, x := range ex.MAP {
		want += " " + strconv.Itoa(int(x))
	}
	if strings.TrimSpace(out) != want {
		t.Fatalf("MPE: got %q, want %q", out, want)
	}
	out, err = runCLI(t, "infer", "--method", "brute", "--output-format", "json", "--quiet", model)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"log_z":`+strconv.FormatFloat(ex.LogZ, 'g', -1, 64)) {
		t.Fatalf("JSON lacks the exact log Z %v: %s", ex.LogZ, out)
	}

	// An MLN query resolves to ground atoms and reaches the method too.
	mlnPath := filepath.Join(dir, "tiny.mln")
	if err := os.WriteFile(mlnPath, []byte("person = {A, B}\nP(person)\nQ(person)\n1.5 P(x) => Q(x)\n-0.5 P(x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runCLI(t, "infer", "--method", "brute", "-q", "Q", "--quiet", mlnPath)
	if err != nil {
		t.Fatal(err)
	}
	// Closed form: P(Q) = Σ_p e^{-0.5p} e^{1.5[p⇒q]} q / Σ over p, q.
	w := func(p, q float64) float64 {
		s := -0.5 * p
		if p == 0 || q == 1 {
			s += 1.5
		}
		return math.Exp(s)
	}
	pq := (w(0, 1) + w(1, 1)) / (w(0, 0) + w(0, 1) + w(1, 0) + w(1, 1))
	wantMLN := fmt.Sprintf("Q(A) %s\nQ(B) %s\n", engine.FormatProb(pq), engine.FormatProb(pq))
	if out != wantMLN {
		t.Fatalf("MLN: got %q, want %q", out, wantMLN)
	}

	// Flags that are properties of BP do not apply to it.
	if _, err := runCLI(t, "infer", "--method", "brute", "--damping", "0.5", model); err == nil ||
		err.Error() != "--damping does not apply to --method brute" {
		t.Fatalf("--damping with --method brute: got %v", err)
	}
}

func TestUnknownMethodListsRegistered(t *testing.T) {
	_, err := runCLI(t, "infer", "--method", "nope", "../../examples/fg/smokers10.uai")
	if err == nil || !strings.Contains(err.Error(), `unknown --method "nope" (want lbp, bp`) ||
		!strings.Contains(err.Error(), "brute") {
		t.Fatalf("got %v", err)
	}
}

// parseMAR reads a UAI MAR text.
func parseMAR(t *testing.T, s string) [][]float64 {
	t.Helper()
	f := strings.Fields(s)
	if len(f) < 2 || f[0] != "MAR" {
		t.Fatalf("not a MAR: %q", s)
	}
	n, _ := strconv.Atoi(f[1])
	i := 2
	out := make([][]float64, n)
	for v := range out {
		k, _ := strconv.Atoi(f[i])
		i++
		for range k {
			p, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				t.Fatal(err)
			}
			out[v] = append(out[v], p)
			i++
		}
	}
	return out
}

// --prop sets any property of the chosen method by name; unknown names and
// malformed values are usage errors.
func TestPropFlag(t *testing.T) {
	mlnPath := "../../examples/mln/smokers.mln"
	db := "../../examples/mln/smokers.db"
	_, err := runCLI(t, "infer", "--method", "enumerate", "--prop", "max-states=10", "--quiet", mlnPath, "-e", db, "-q", "Cancer")
	if err == nil || !strings.Contains(err.Error(), "256 joint states, more than the limit of 10") {
		t.Fatalf("max-states=10: %v", err)
	}
	out, err := runCLI(t, "infer", "--method", "enumerate", "--prop", "max-states=1e5", "--quiet", mlnPath, "-e", db, "-q", "Cancer")
	if err != nil || !strings.HasPrefix(out, "Cancer(Anna) 0.817574\n") {
		t.Fatalf("max-states=1e5: %v %q", err, out)
	}
	for _, bad := range []string{"foo=1", "max-states", "=3"} {
		if _, err := runCLI(t, "infer", "--method", "enumerate", "--prop", bad, mlnPath, "-q", "Cancer"); err == nil {
			t.Errorf("--prop %s accepted", bad)
		}
	}
	if _, err := runCLI(t, "infer", "--method", "enumerate", "--prop", "max-states=x", mlnPath, "-q", "Cancer"); err == nil ||
		!strings.Contains(err.Error(), "max-states") {
		t.Errorf("--prop max-states=x: %v", err)
	}
}
