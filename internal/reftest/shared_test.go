package reftest

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/libdai"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/lift"
)

// Settings of every reference run: libDAI's tol=1e-9, maxiter=10000, no
// damping.
const (
	refTol     = 1e-9
	refMaxIter = 10000
)

// dataPath returns the path of a shared data file, skipping the test with a
// clear message when it is absent.
func dataPath(t testing.TB, rel string) string {
	t.Helper()
	return shareddata.Need(t, filepath.FromSlash(rel))
}

// readUAI reads NAME.uai and, when present, its NAME.uai.evid evidence.
func readUAI(t testing.TB, name string) (*fg.Graph, fg.Evidence) {
	t.Helper()
	p := dataPath(t, "uai/"+name+".uai")
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := uai.Read(f, p)
	if err != nil {
		t.Fatal(err)
	}
	ev := fg.NoEvidence(m.Graph.NumVars())
	ep := p + ".evid"
	ef, err := os.Open(ep)
	if os.IsNotExist(err) {
		return m.Graph, ev
	}
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	ev, err = uai.ReadEvidence(ef, ep, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	return m.Graph, ev
}

// readFG reads a libDAI .fg file from the shared fg directory.
func readFG(t testing.TB, name string) *libdai.Model {
	t.Helper()
	p := dataPath(t, "fg/"+name)
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := libdai.Read(f, p)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ground returns g as a counted graph with every count 1.
func ground(t testing.TB, g *fg.Graph, ev fg.Evidence) *lift.Compressed {
	t.Helper()
	c, err := lift.Ground(g, ev)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// compress runs colour passing with default options.
func compress(t testing.TB, g *fg.Graph, ev fg.Evidence) *lift.Compressed {
	t.Helper()
	c, _, err := lift.Compress(context.Background(), g, ev, lift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// runBP runs sum-product BP with the reference settings.
func runBP(t testing.TB, c *lift.Compressed, s bp.Schedule) *bp.Result {
	t.Helper()
	opt := bp.DefaultOptions()
	opt.Schedule = s
	opt.Tol = refTol
	opt.MaxIter = refMaxIter
	r, err := bp.Run(context.Background(), c, opt)
	if err != nil {
		t.Fatalf("bp.Run (%v): %v", s, err)
	}
	return r
}

// worst is the largest absolute difference between two sets of marginals and
// where it occurs.
type worst struct {
	diff      float64
	v, x      int
	got, want float64
}

// maxDiff compares got[v] with want(v) over every variable and state. want
// returns nil for a variable that has no reference value; that is reported
// as an infinite difference at that variable.
func maxDiff(got *bp.Result, n int, want func(v int) []float64) worst {
	var w worst
	w.v, w.x = -1, -1
	for v := 0; v < n; v++ {
		g := got.Marginal(v)
		r := want(v)
		if len(r) != len(g) {
			return worst{diff: math.Inf(1), v: v, x: -1}
		}
		for x := range g {
			d := math.Abs(g[x] - r[x])
			if !(d <= w.diff) { // also catches NaN
				w = worst{diff: d, v: v, x: x, got: g[x], want: r[x]}
			}
		}
	}
	return w
}

// relDiff is |a-b| relative to max(1, |b|).
func relDiff(a, b float64) float64 {
	return math.Abs(a-b) / math.Max(1, math.Abs(b))
}
