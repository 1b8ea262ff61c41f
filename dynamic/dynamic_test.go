package dynamic

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"
)

// load parses a DMLN and its evidence and unrolls it.
func load(t *testing.T, src, db string, horizon int, query ...string) *Model {
	t.Helper()
	m, err := mlnfile.Parse("d.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	read := func(s *mln.MLN) (*mln.DB, error) { return mlnfile.ReadDB(strings.NewReader(db), "d.db", s) }
	md, err := Unroll(context.Background(), m, read, Options{Horizon: horizon, Query: query})
	if err != nil {
		t.Fatal(err)
	}
	return md
}

const hmm = `
time = {0,...,7}
Rain(time)
Umbrella(time)
0.7 Rain(0)
1.5 Rain(t) <=> Rain(t++)
2 Rain(t) => Umbrella(t)
-0.3 Umbrella(t)
`

const hmmDB = `
Umbrella(0)
!Umbrella(2)
Umbrella(3)
Umbrella(5)
`

func opts(lifted bool, s bp.Schedule, maxIter int) RunOptions {
	o := bp.DefaultOptions()
	o.Schedule, o.MaxIter, o.Tol = s, maxIter, 1e-13
	return RunOptions{Lifted: lifted, BP: o}
}

// One forwards–backwards iteration of FF on an HMM-shaped DMLN (a chain of
// Rain atoms with leaf Umbrella atoms: a tree) gives the exact marginals,
// which enumeration computes independently.
func TestHMMExactAfterOneSweep(t *testing.T) {
	md := load(t, hmm, hmmDB, -1, "Rain")
	if md.Horizon != 7 || len(md.Queries) != 8 {
		t.Fatalf("horizon %d, %d queries", md.Horizon, len(md.Queries))
	}
	ev := md.EvidenceUpTo(md.Horizon)
	exact := brute.Solve(md.Grounding.Graph, ev)
	res, st, err := md.Run(context.Background(), ev, opts(false, bp.ForwardBackward, 1))
	if err != nil {
		t.Fatal(err)
	}
	if st.Iterations != 1 {
		t.Fatalf("%d iterations", st.Iterations)
	}
	for v := range exact.Marginals {
		if d := math.Abs(res.Marginal(v)[1] - exact.Marginals[v][1]); d > 1e-12 {
			t.Errorf("%s: FF after one sweep %.15f, exact %.15f", md.Grounding.AtomName(int32(v)), res.Marginal(v)[1], exact.Marginals[v][1])
		}
	}
	// Flooding needs more than one iteration on the same chain.
	res, _, err = md.Run(context.Background(), ev, opts(false, bp.Flood, 1))
	if err != nil {
		t.Fatal(err)
	}
	worst := 0.0
	for v := range exact.Marginals {
		worst = max(worst, math.Abs(res.Marginal(v)[1]-exact.Marginals[v][1]))
	}
	if worst < 1e-3 {
		t.Errorf("one flooding iteration is already exact (%g): the chain test cannot tell the protocols apart", worst)
	}
	// Filtering: P(Rain(t) | evidence up to t) is exact too; check against
	// enumeration with the evidence of steps 0..t.
	err = md.Filter(context.Background(), opts(false, bp.ForwardBackward, 1), func(s Step) error {
		ex := brute.Solve(md.Grounding.Graph, md.EvidenceUpTo(s.Step))
		if len(s.Marginals) != 1 {
			return fmt.Errorf("step %d: %d marginals", s.Step, len(s.Marginals))
		}
		for i, p := range s.Marginals {
			q := md.Queries[i]
			if q.Step != s.Step {
				return fmt.Errorf("step %d reports %s", s.Step, q.Name)
			}
			if d := math.Abs(p - ex.Marginals[q.Var][1]); d > 1e-12 {
				t.Errorf("filtered %s: %.15f, exact %.15f", q.Name, p, ex.Marginals[q.Var][1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A small loopy DMLN: the social network of the paper with 3 people.
const social = `
person = {A, B, C}
time = {0,...,3}
Smokes(person, time)
Cancer(person, time)
Friends(person, person, time)
-1 Smokes(x, 0)
-2 Cancer(x, 0)
-1.5 Friends(x, y, 0)
1.5 Smokes(x, t) => Cancer(x, t)
1.1 Friends(x, y, t) ^ Smokes(x, t) => Smokes(y, t)
2 Smokes(x, t) => Smokes(x, succ(t))
2 Friends(x, y, t) => Friends(x, y, t+1)
`

const socialDB = `
Smokes(A, 1)
Friends(A, B, 2)
!Smokes(C, 0)
`

// FF (forwards–backwards) reaches ground BP's fixed point (flooding and the
// sequential schedule), and LFF equals FF, on a loopy DMLN.
func TestLoopyFFMatchesBPAndLFF(t *testing.T) {
	md := load(t, social, socialDB, -1, "Cancer")
	ev := md.EvidenceUpTo(md.Horizon)
	ctx := context.Background()
	ref, _, err := md.Run(ctx, ev, opts(false, bp.Sequential, 1000))
	if err != nil {
		t.Fatal(err)
	}
	if !ref.Converged {
		t.Fatal("sequential BP did not converge")
	}
	for _, c := range []struct {
		name   string
		lifted bool
		s      bp.Schedule
	}{{"FF", false, bp.ForwardBackward}, {"LFF", true, bp.ForwardBackward}, {"flood", false, bp.Flood}, {"lifted flood", true, bp.Flood}} {
		res, st, err := md.Run(ctx, ev, opts(c.lifted, c.s, 1000))
		if err != nil {
			t.Fatal(err)
		}
		if !st.Converged {
			t.Fatalf("%s did not converge", c.name)
		}
		for v := range md.VarSlice {
			if d := math.Abs(res.Marginal(v)[1] - ref.Marginal(v)[1]); d > 1e-9 {
				t.Errorf("%s: %s %.12f, sequential BP %.12f", c.name, md.Grounding.AtomName(int32(v)), res.Marginal(v)[1], ref.Marginal(v)[1])
			}
		}
		if c.lifted && st.ClusterNodes >= len(md.VarSlice) {
			t.Errorf("%s: no compression (%d clusternodes, %d variables)", c.name, st.ClusterNodes, len(md.VarSlice))
		}
	}
}

// Colour passing on the unrolled graph puts variables of different steps in
// different clusternodes (their communication patterns differ).
func TestStepsSeparate(t *testing.T) {
	md := load(t, social, "", -1)
	c, _, err := lift.Compress(context.Background(), md.Grounding.Graph, md.EvidenceUpTo(md.Horizon), lift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	step := make([]int32, c.NumNodes())
	for i := range step {
		step[i] = -2
	}
	for v, X := range c.NodeOf {
		switch s := md.VarSlice[v]; {
		case step[X] == -2:
			step[X] = s
		case step[X] != s:
			t.Fatalf("clusternode %d holds steps %d and %d", X, step[X], s)
		}
	}
	if c.NumNodes() >= len(md.VarSlice) {
		t.Fatalf("no compression without evidence: %d clusternodes", c.NumNodes())
	}
}

// canonical describes a grounding up to the renaming of variables: every
// factor as its atoms' names and table, sorted, plus the log Z offset.
func canonical(gr *ground.Grounding) []string {
	g := gr.Graph
	var out []string
	for f := 0; f < g.NumFactors(); f++ {
		var names []string
		for _, v := range g.Scope(f) {
			names = append(names, gr.AtomName(v))
		}
		out = append(out, fmt.Sprintf("%v %v", names, g.Table(f).Values))
	}
	sort.Strings(out)
	return out
}

// Unrolling a DMLN equals grounding the static MLN written out by hand.
func TestUnrollEqualsHandWritten(t *testing.T) {
	dyn := `
person = {A, B}
time = {0,...,2}
Smokes(person, time)
Friends(person, person, time)
-1 Smokes(x, 0)
1.1 Friends(x, y, t) ^ Smokes(x, t) => Smokes(y, t)
2 Smokes(x, t) => Smokes(x, succ(t))
0.5 Friends(x, y, t) => Friends(x, y, t++)
`
	hand := `
person = {A, B}
time = {0,...,2}
Smokes(person, time)
Friends(person, person, time)
-1 Smokes(x, 0)
1.1 Friends(x, y, t) ^ Smokes(x, t) => Smokes(y, t)
2 Smokes(x, 0) => Smokes(x, 1)
2 Smokes(x, 1) => Smokes(x, 2)
0.5 Friends(x, y, 0) => Friends(x, y, 1)
0.5 Friends(x, y, 1) => Friends(x, y, 2)
`
	md := load(t, dyn, "", -1)
	hm, err := mlnfile.Parse("hand.mln", []byte(hand))
	if err != nil {
		t.Fatal(err)
	}
	hg, err := ground.Ground(context.Background(), hm, nil, ground.Options{OpenWorld: []string{"Smokes", "Friends"}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := canonical(md.Grounding), canonical(hg)
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Fatalf("factor graphs differ:\nunrolled\n%s\nhand-written\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	za := brute.Solve(md.Grounding.Graph, nil).LogZ + md.Grounding.LogZOffset
	zb := brute.Solve(hg.Graph, nil).LogZ + hg.LogZOffset
	if math.Abs(za-zb) > 1e-9 {
		t.Fatalf("log Z: unrolled %v, hand-written %v", za, zb)
	}
	if md.Grounding.Graph.NumVars() != (4+2)*3 {
		t.Fatalf("%d variables", md.Grounding.Graph.NumVars())
	}
}

// The parser reads the three spellings of the successor and prints succ(t);
// unrolling refuses formulas that link steps more than one apart.
func TestSyntaxAndRefusals(t *testing.T) {
	m, err := mlnfile.Parse("s.mln", []byte("time = {0,...,2}\nP(time)\n1 P(t) => P(t++)\n1 P(t) => P(t+1)\n1 P(t) => P(succ(t))\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Formulas {
		if got := f.Expr.String(); got != "P(t) => P(succ(t))" {
			t.Errorf("%s prints as %s", f.Text, got)
		}
	}
	if !mln.IsDynamic(m) || mln.TimeType(m) != "time" {
		t.Fatal("not recognised as dynamic")
	}
	if _, err := ground.Ground(context.Background(), m, nil, ground.Options{}); err == nil || !strings.Contains(err.Error(), "s.mln:3:13: succ(t) is a dynamic MLN") {
		t.Errorf("grounding a DMLN without unrolling: %v", err)
	}
	if _, err := wfomc.Compile(m, nil); err == nil || !strings.Contains(err.Error(), "s.mln:3:13: succ(t) is a dynamic MLN") {
		t.Errorf("wfomc on a DMLN without unrolling: %v", err)
	}
	for src, want := range map[string]string{
		"1 P(0) => P(2)":              "e.mln:3:5: the formula links time steps 0 and 2",
		"1 P(0) => P(t)":              "e.mln:3:5: the formula has the time variable t and the time constant 0",
		"1 EXIST t P(t) ^ P(succ(u))": "the time variable t is quantified",
		"1 P(t) => P(u)":              "e.mln:3:5: the formula has two time variables, t and u",
	} {
		m, err := mlnfile.Parse("e.mln", []byte("time = {0,...,2}\nP(time)\n"+src+"\n"))
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = mln.Unroll(context.Background(), m, "time", -1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}

// Filtering relifts incrementally (lift.Recolourer) by default; it must give
// at every step the counted graph, hence the marginals, of colour passing
// from scratch.
func TestFilterIncrementalEqualsScratch(t *testing.T) {
	md := load(t, social, socialDB, -1, "Cancer", "Smokes")
	ctx := context.Background()
	run := func(scratch bool) []Step {
		o := opts(true, bp.ForwardBackward, 1000)
		o.RecolourFromScratch = scratch
		var steps []Step
		if err := md.Filter(ctx, o, func(s Step) error { steps = append(steps, s); return nil }); err != nil {
			t.Fatal(err)
		}
		return steps
	}
	inc, scr := run(false), run(true)
	if len(inc) != len(scr) || len(inc) == 0 {
		t.Fatalf("%d incremental steps, %d from scratch", len(inc), len(scr))
	}
	for i := range inc {
		a, b := inc[i], scr[i]
		if a.Stats.ClusterNodes != b.Stats.ClusterNodes || a.Stats.ClusterFactors != b.Stats.ClusterFactors || a.Stats.Edges != b.Stats.Edges {
			t.Errorf("step %d: incremental %d/%d/%d clusternodes/factors/edges, from scratch %d/%d/%d", i,
				a.Stats.ClusterNodes, a.Stats.ClusterFactors, a.Stats.Edges, b.Stats.ClusterNodes, b.Stats.ClusterFactors, b.Stats.Edges)
		}
		for q, p := range b.Marginals {
			if d := math.Abs(a.Marginals[q] - p); d > 1e-12 {
				t.Errorf("step %d: %s incremental %.15f, from scratch %.15f", i, md.Grounding.AtomName(md.Queries[q].Var), a.Marginals[q], p)
			}
		}
	}
}
