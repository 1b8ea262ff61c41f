package jtree_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/jtree"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/lift"
)

// brute is the truth of the tests: every joint state visited, in log
// space (log-sum-exp for Z and the marginals, max for MAP), written
// independently of the junction tree.
type brute struct {
	logZ   float64
	marg   [][]float64
	logMax float64
}

func enumerate(g *fg.Graph, ev fg.Evidence) brute {
	n := g.NumVars()
	x := make([]int32, n)
	for v := range n {
		if ev != nil && ev[v] >= 0 {
			x[v] = ev[v]
		}
	}
	var logs []float64 // log weight of every visited state
	var states [][]int32
	for {
		lw := 0.0
		for f := range g.NumFactors() {
			t := g.Table(f)
			k := 0
			for p, v := range g.Scope(f) {
				k = k*int(t.Dims[p]) + int(x[v])
			}
			lw += math.Log(t.Values[k])
		}
		logs = append(logs, lw)
		states = append(states, append([]int32(nil), x...))
		i := n - 1
		for ; i >= 0; i-- {
			if ev != nil && ev[i] >= 0 {
				continue
			}
			x[i]++
			if x[i] < g.Card[i] {
				break
			}
			x[i] = 0
		}
		if i < 0 {
			break
		}
	}
	m := math.Inf(-1)
	for _, l := range logs {
		m = max(m, l)
	}
	b := brute{logMax: m, logZ: math.Inf(-1)}
	if math.IsInf(m, -1) {
		return b
	}
	z := 0.0
	b.marg = make([][]float64, n)
	for v := range n {
		b.marg[v] = make([]float64, g.Card[v])
	}
	for k, l := range logs {
		w := math.Exp(l - m)
		z += w
		for v, s := range states[k] {
			b.marg[v][s] += w
		}
	}
	for v := range n {
		for s := range b.marg[v] {
			b.marg[v][s] /= z
		}
	}
	b.logZ = m + math.Log(z)
	return b
}

// randomGraph has 1–9 variables of 2–4 states and random factors of
// arity 1–4 (about a fifth of the entries zero), within 30000 joint
// states; scale widens the entries' range (log-uniform in ±scale).
func randomGraph(r *rand.Rand, scale float64) *fg.Graph {
	for {
		b := fg.NewBuilder()
		n := 1 + r.IntN(9)
		states := 1.0
		for range n {
			c := 2 + r.IntN(3)
			b.AddVar(c)
			states *= float64(c)
		}
		if states > 30000 {
			continue
		}
		nf := r.IntN(2*n + 2)
		for range nf {
			k := 1 + r.IntN(min(4, n))
			scope := make([]int32, 0, k)
			for _, v := range r.Perm(n)[:k] {
				scope = append(scope, int32(v))
			}
			size := 1
			for _, v := range scope {
				size *= int(b.Card(v))
			}
			vals := make([]float64, size)
			for i := range vals {
				if r.Float64() < 0.2 {
					continue
				}
				vals[i] = math.Exp(scale * (2*r.Float64() - 1))
			}
			if _, err := b.AddFactor(scope, vals); err != nil {
				panic(err)
			}
		}
		return b.Build()
	}
}

func randomEvidence(r *rand.Rand, g *fg.Graph) fg.Evidence {
	ev := make(fg.Evidence, g.NumVars())
	for v := range ev {
		ev[v] = -1
		if r.Float64() < 0.25 {
			ev[v] = int32(r.IntN(int(g.Card[v])))
		}
	}
	return ev
}

func run(t *testing.T, g *fg.Graph, ev fg.Evidence, task infer.Task) (*infer.Answer, error) {
	t.Helper()
	c, err := lift.Ground(g, ev)
	if err != nil {
		return nil, err // contradictory evidence: no world either
	}
	return jtree.JTree{}.Run(context.Background(), c, infer.Query{Task: task})
}

// logScore is Σ log of the factor entries of the world x.
func logScore(g *fg.Graph, x []int32) float64 {
	s := 0.0
	for f := range g.NumFactors() {
		t := g.Table(f)
		k := 0
		for p, v := range g.Scope(f) {
			k = k*int(t.Dims[p]) + int(x[v])
		}
		s += math.Log(t.Values[k])
	}
	return s
}

// TestRandomAgainstEnumeration: marginals and log Z (to 1e-9) and the
// MAP score on many random graphs with zeros and evidence, the
// all-zero ones refused with ErrNoWorld; entries up to e^±400 in a
// second round (a product of them overflows without log space).
func TestRandomAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checked, empty := 0, 0
	for trial := range 1500 {
		scale := 2.0
		if trial >= 1000 {
			scale = 400
		}
		g := randomGraph(r, scale)
		var ev fg.Evidence
		if trial%2 == 1 {
			ev = randomEvidence(r, g)
		}
		want := enumerate(g, ev)
		ans, err := run(t, g, ev, infer.Marginals)
		if math.IsInf(want.logZ, -1) {
			empty++
			if !errors.Is(err, jtree.ErrNoWorld) && (err == nil || !strings.Contains(err.Error(), "contradictory evidence")) {
				t.Fatalf("trial %d: no world has positive weight; jtree gave %v", trial, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		checked++
		if d := math.Abs(ans.LogZ - want.logZ); d > 1e-9*max(1, math.Abs(want.logZ)) || ans.LogZKind != infer.Exact {
			t.Fatalf("trial %d: log Z %v (%v), enumeration %v", trial, ans.LogZ, ans.LogZKind, want.logZ)
		}
		for v := range g.NumVars() {
			for s, p := range ans.Marginal(v) {
				if math.Abs(p-want.marg[v][s]) > 1e-9 {
					t.Fatalf("trial %d: P(x%d=%d) = %v, enumeration %v", trial, v, s, p, want.marg[v][s])
				}
			}
		}
		m, err := run(t, g, ev, infer.MAP)
		if err != nil {
			t.Fatalf("trial %d MAP: %v", trial, err)
		}
		for v, s := range m.Assignment {
			if ev != nil && ev[v] >= 0 && s != ev[v] {
				t.Fatalf("trial %d MAP: x%d = %d against the evidence %d", trial, v, s, ev[v])
			}
		}
		got := logScore(g, m.Assignment)
		if math.Abs(got-want.logMax) > 1e-9*max(1, math.Abs(want.logMax)) || math.Abs(*m.Stats.Objective-got) > 1e-9*max(1, math.Abs(got)) {
			t.Fatalf("trial %d MAP: world scores %v (objective %v), best %v", trial, got, *m.Stats.Objective, want.logMax)
		}
	}
	t.Logf("%d graphs checked, %d without a world of positive weight", checked, empty)
	if empty == 0 || checked < 1000 {
		t.Errorf("the generator gave %d checked and %d empty graphs", checked, empty)
	}
}

// TestUnderflowGroups: a table whose two states are e^-800 and e^+800
// apart, the larger forbidden by another factor; a joint or per-table
// scaling would lose the only world there is.
func TestUnderflowGroups(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	mustAdd(t, b, []int32{0, 1}, []float64{math.Exp(700), math.Exp(-700), math.Exp(-700), math.Exp(700)})
	mustAdd(t, b, []int32{0}, []float64{0, 1})
	mustAdd(t, b, []int32{1}, []float64{1, 0})
	g := b.Build()
	ans, err := run(t, g, nil, infer.Marginals)
	if err != nil {
		t.Fatal(err)
	}
	if want := -700.0; math.Abs(ans.LogZ-want) > 1e-9 {
		t.Errorf("log Z %v, want %v", ans.LogZ, want)
	}
	if p := ans.Marginal(0); p[1] != 1 {
		t.Errorf("P(x0) = %v", p)
	}
}

func mustAdd(t *testing.T, b *fg.Builder, scope []int32, vals []float64) {
	t.Helper()
	if _, err := b.AddFactor(scope, vals); err != nil {
		t.Fatal(err)
	}
}

// TestRefusesLargeModel: a 30×30 grid of binary variables (treewidth 30)
// is refused before any table is allocated, with the predicted size and
// the property that raises the limit.
func TestRefusesLargeModel(t *testing.T) {
	const n = 30
	b := fg.NewBuilder()
	b.AddVars(n*n, 2)
	pair := []float64{2, 1, 1, 2}
	for i := range n {
		for j := range n {
			v := int32(i*n + j)
			if j+1 < n {
				mustAdd(t, b, []int32{v, v + 1}, pair)
			}
			if i+1 < n {
				mustAdd(t, b, []int32{v, v + n}, pair)
			}
		}
	}
	g := b.Build()
	_, err := run(t, g, nil, infer.Marginals)
	var tl *jtree.TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("want a TooLargeError, got %v", err)
	}
	msg := err.Error()
	for _, s := range []string{"treewidth at least", "largest table at least 2^", "max-table=N"} {
		if !strings.Contains(msg, s) {
			t.Errorf("message %q lacks %q", msg, s)
		}
	}
	if tl.Plan.Largest <= jtree.DefaultMaxTable {
		t.Errorf("predicted largest table %v", tl.Plan.Largest)
	}
	// With evidence on every other row, the grid falls apart into
	// chains of treewidth 1.
	ev := make(fg.Evidence, n*n)
	for v := range ev {
		ev[v] = -1
		if (v/n)%2 == 1 {
			ev[v] = 0
		}
	}
	p, err := jtree.JTree{}.Check(context.Background(), g, ev)
	if err != nil || p.Treewidth != 1 || p.Largest != 4 {
		t.Fatalf("with evidence: %v, %+v", err, p)
	}
	t.Log(msg)
}

// TestSharedUAI compares with the reference marginals and log10 Z of the
// UAI 2014 models that SOURCE.txt lists as verified (libDAI's JTREE
// agrees with them); models over the default limit must be refused.
func TestSharedUAI(t *testing.T) {
	dir := shareddata.Need(t, "uai")
	verified := []string{"Grids_11", "Grids_12", "Pedigree_11", "Promedus_11", "Promedus_14", "Segmentation_11",
		"Segmentation_12", "ObjectDetection_11", "Alchemy_11", "CSP_11", "DBN_11"}
	if testing.Short() {
		verified = []string{"Grids_11", "Promedus_11", "Segmentation_11", "CSP_11"}
	}
	for _, name := range verified {
		t.Run(name, func(t *testing.T) {
			base := filepath.Join(dir, name+".uai")
			f, err := os.Open(base)
			if err != nil {
				t.Fatal(err)
			}
			m, err := uai.Read(f, base)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			g := m.Graph
			ev := readEvidence(t, base+".evid", g)
			ans, err := run(t, g, ev, infer.Marginals)
			if err != nil {
				var tl *jtree.TooLargeError
				if errors.As(err, &tl) {
					t.Skipf("over the default limit: %v", err)
				}
				t.Fatal(err)
			}
			mar := readMAR(t, base+".MAR")
			worst := 0.0
			for v := range g.NumVars() {
				for s, p := range ans.Marginal(v) {
					worst = max(worst, math.Abs(p-mar[v][s]))
				}
			}
			pr := readPR(t, base+".PR")
			got := ans.LogZ / math.Ln10
			t.Logf("treewidth %d, largest table %d; max |Δ marginal| %.2g; log10 Z %.6f, reference %.6f",
				ans.Stats.Treewidth, ans.Stats.LargestTable, worst, got, pr)
			// The references are printed with 6 digits (some with fewer).
			if worst > 1e-5 {
				t.Errorf("max |Δ marginal| %v", worst)
			}
			if math.Abs(got-pr) > 1e-4*max(1, math.Abs(pr)) {
				t.Errorf("log10 Z %v, reference %v", got, pr)
			}
		})
	}
}

func readEvidence(t *testing.T, path string, g *fg.Graph) fg.Evidence {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	defer f.Close()
	ev, err := uai.ReadEvidence(f, path, g)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func readMAR(t *testing.T, path string) [][]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := uai.ReadMAR(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func readPR(t *testing.T, path string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := uai.ReadPR(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
