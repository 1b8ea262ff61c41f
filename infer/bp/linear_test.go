package bp

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/lift"
)

// sameRuns runs sequential and flooding BP on c as they run by default
// (linear domain; sequential: messages into a clusterfactor computed once
// per visit) and as the engine ran before (every clusternode in the log
// domain, the messages into a clusterfactor recomputed for every slot), and
// checks that they agree: marginals to 1e-12, log Z to 1e-12 relative, the
// same convergence and message count, iterations within one.
func sameRuns(t *testing.T, name string, c *lift.Compressed, opt Options) {
	t.Helper()
	opt.Schedule = Sequential
	sameRun(t, name+" seq", c, opt)
	opt.Schedule = Flood
	sameRun(t, name+" flood", c, opt)
}

func sameRun(t *testing.T, name string, c *lift.Compressed, opt Options) {
	t.Helper()
	lin, errLin := Run(context.Background(), c, opt)
	opt.logDomain, opt.perSlot = true, true
	lg, errLog := Run(context.Background(), c, opt)
	if (errLin == nil) != (errLog == nil) || errLin != nil && errors.Is(errLin, ErrNotNormalizable) != errors.Is(errLog, ErrNotNormalizable) {
		t.Fatalf("%s: linear %v, log %v", name, errLin, errLog)
	}
	if errLin != nil {
		return
	}
	if lin.Converged != lg.Converged || lin.Messages != lg.Messages ||
		lin.Converged && abs(lin.Iterations-lg.Iterations) > 1 {
		t.Errorf("%s: linear converged %v after %d iterations (%d messages), log %v after %d (%d)", name,
			lin.Converged, lin.Iterations, lin.Messages, lg.Converged, lg.Iterations, lg.Messages)
	}
	if !lin.Converged || !lg.Converged {
		return // a non-converged run's messages are a matter of the last sweep
	}
	worst := 0.0
	for i := range lin.Belief {
		worst = max(worst, math.Abs(lin.Belief[i]-lg.Belief[i]))
	}
	if worst > 1e-12 {
		t.Errorf("%s: marginals differ by %v", name, worst)
	}
	if d := math.Abs(lin.LogZ - lg.LogZ); d > 1e-12*math.Max(1, math.Abs(lg.LogZ)) {
		t.Errorf("%s: log Z %v (linear) vs %v (log)", name, lin.LogZ, lg.LogZ)
	}
}

func abs(n int) int { return max(n, -n) }

func TestLinearMatchesLogDomainRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for trial := range 300 {
		var g *fg.Graph
		switch trial % 3 {
		case 0:
			g = gen.Random(r, 2+r.IntN(12), 1+r.IntN(16), 3, 0.2)
		case 1:
			g = gen.Tree(r, 2+r.IntN(12), 3, 0.1)
		default:
			g = gen.Grid(r, 2+r.IntN(4), 2+r.IntN(4))
		}
		ev := fg.NoEvidence(g.NumVars())
		if trial%4 == 0 {
			ev[r.IntN(g.NumVars())] = 0
		}
		if g.CheckEvidence(ev) != nil {
			ev = nil
		}
		opt := DefaultOptions()
		opt.Tol = 1e-13
		opt.MaxIter = 2000
		if trial%5 == 0 {
			opt.Damping = 0.3
		}
		if trial%7 == 0 {
			opt.MaxProduct = true
		}
		c, err := lift.Ground(g, ev)
		if err != nil {
			t.Fatal(err)
		}
		sameRuns(t, "random", c, opt)
		// Compressed: clusternodes with counts above 1 stay in the log domain.
		cc, _, err := lift.Compress(context.Background(), g, ev, lift.Options{})
		if err == nil {
			sameRuns(t, "random compressed", cc, opt)
		}
	}
}

// TestLinearMatchesLogDomainLifted runs both on compressed graphs with
// planted symmetry, whose slots have counts above 1 (log domain, and the
// messages into a clusterfactor depend on its own message there).
func TestLinearMatchesLogDomainLifted(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for trial := range 60 {
		var g *fg.Graph
		var ev fg.Evidence
		switch trial % 3 {
		case 0:
			g = gen.Ring(r, 4+r.IntN(20), trial%2 == 0)
		case 1:
			g = gen.SquareGrid(r, 2+r.IntN(5))
		default:
			g, ev = gen.Copies(r, gen.Random(r, 2+r.IntN(4), 1+r.IntN(5), 3, 0.1), 2+r.IntN(4), r.IntN(2))
		}
		opt := DefaultOptions()
		opt.Tol = 1e-13
		opt.MaxIter = 2000
		if trial%4 == 0 {
			opt.Damping = 0.3
		}
		c, _, err := lift.Compress(context.Background(), g, ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameRuns(t, "lifted", c, opt)
	}
}

// TestLinearUnderflowFallsBack: x0 has two unary factors (1, 1e-200), so
// the product of its incoming messages spans 1e-400, beyond float64; it is
// tied to x1 by a pairwise factor and x1 has a unary factor. The node must
// hand over to the log domain (which keeps the message from x0 to each
// unary factor, 1e-200 in state 1), and BP, exact on this tree, must
// agree with enumeration.
func TestLinearUnderflowFallsBack(t *testing.T) {
	b := fg.NewBuilder()
	x0, x1 := b.AddVar(2), b.AddVar(2)
	for _, f := range []struct {
		scope  []int32
		values []float64
	}{{[]int32{x0}, []float64{1, 1e-200}}, {[]int32{x0}, []float64{1, 1e-200}},
		{[]int32{x0, x1}, []float64{2, 1, 1, 3}}, {[]int32{x1}, []float64{1, 2}}} {
		if _, err := b.AddFactor(f.scope, f.values); err != nil {
			t.Fatal(err)
		}
	}
	g := b.Build()
	c, err := lift.Ground(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := DefaultOptions()
	opt.Tol = 1e-13
	opt.Schedule = Sequential
	e := newEngine(c, opt)
	if !e.lin[0] || !e.lin[1] {
		t.Fatal("the ground nodes do not start in the linear domain")
	}
	for range 3 {
		if _, err := e.sweep(); err != nil {
			t.Fatal(err)
		}
	}
	if e.lin[0] || !e.lin[1] {
		t.Errorf("after three sweeps: x0 linear %v (want false), x1 linear %v (want true)", e.lin[0], e.lin[1])
	}
	// The message from x0 to the first unary factor keeps 1e-200 times the
	// pairwise factor's message ratio (in the linear domain it would be 0).
	dst := make([]float64, 2)
	if err := e.seqVarMessage(0, dst); err != nil {
		t.Fatal(err)
	}
	if v := dst[1]; !(v > 1e-201 && v < 1e-199) {
		t.Errorf("message x0 → first unary factor: %v in state 1, want about 1e-200", v)
	}
	sameRuns(t, "underflow", c, opt)
	res, err := Run(context.Background(), c, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := brute.Solve(g, nil)
	for v := range 2 {
		for x, p := range res.Marginal(v) {
			if math.Abs(p-want.Marginals[v][x]) > 1e-12 {
				t.Errorf("P(x%d = %d) = %v, exact %v", v, x, p, want.Marginals[v][x])
			}
		}
	}
}

// TestLinearMatchesLogDomainShared runs both on the UAI models of the
// libDAI comparison (linkage_16, Promedus_11 and _14 with their evidence).
func TestLinearMatchesLogDomainShared(t *testing.T) {
	if testing.Short() {
		t.Skip("about 10 s per model; skipped with -short")
	}
	for _, name := range []string{"linkage_16", "Promedus_11", "Promedus_14"} {
		path := shareddata.Need(t, "uai", name+".uai")
		m, err := format.Load(path, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var ev fg.Evidence
		if f, err := os.Open(path + ".evid"); err == nil {
			ev, err = uai.ReadEvidence(f, path+".evid", m.Graph)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		c, err := lift.Ground(m.Graph, ev)
		if err != nil {
			t.Fatal(err)
		}
		opt := DefaultOptions()
		opt.Tol = 1e-9
		opt.MaxIter = 10000
		sameRuns(t, name, c, opt)
	}
}

// oddGraph draws factors of arity 2–5 over variables of 2–3 states whose
// tables hold one value everywhere but at one entry: CNF clauses (1 and 0),
// soft clauses, a single allowed entry (0 and c0), an odd entry above the
// rest; now and then a table of two odd entries (the table walk's).
func oddGraph(r *rand.Rand, nv, nf int) *fg.Graph {
	b := fg.NewBuilder()
	cards := make([]int, nv)
	for v := range cards {
		cards[v] = 2
		if r.IntN(4) == 0 {
			cards[v] = 3
		}
		b.AddVar(cards[v])
	}
	for range nf {
		a := 2 + r.IntN(4)
		perm := r.Perm(nv)
		if a > nv {
			a = nv
		}
		scope := make([]int32, a)
		size := 1
		for i := range scope {
			scope[i] = int32(perm[i])
			size *= cards[perm[i]]
		}
		c, c0 := 1.0, 0.0
		switch r.IntN(4) {
		case 1:
			c, c0 = 1, 0.05+r.Float64()
		case 2:
			c, c0 = 0, 0.5+r.Float64()
		case 3:
			c, c0 = 0.3+r.Float64(), 2+r.Float64()
		}
		t := make([]float64, size)
		for k := range t {
			t[k] = c
		}
		t[r.IntN(size)] = c0
		if r.IntN(8) == 0 {
			t[r.IntN(size)] = c0 + 0.25
		}
		if _, err := b.AddFactor(scope, t); err != nil {
			panic(err)
		}
	}
	return b.Build()
}

// TestOddTablesMatchTableWalk: the O(arity) messages of tables with one odd
// entry (oddMessages) against the table walk, on ground and compressed
// graphs, flooding and sequential: the same convergence, marginals to
// 1e-10. It also checks that the fast path ran.
func TestOddTablesMatchTableWalk(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 3))
	fast := 0
	for trial := range 120 {
		g := oddGraph(r, 3+r.IntN(8), 2+r.IntN(10))
		var ev fg.Evidence
		if trial%3 == 2 {
			g, ev = gen.Copies(r, g, 2+r.IntN(3), r.IntN(2))
			if g.CheckEvidence(ev) != nil {
				ev = nil
			}
		}
		var c *lift.Compressed
		var err error
		if trial%2 == 0 {
			c, err = lift.Ground(g, ev)
		} else {
			c, _, err = lift.Compress(context.Background(), g, ev, lift.Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, sched := range []Schedule{Flood, Sequential} {
			opt := DefaultOptions()
			opt.Schedule, opt.Tol, opt.MaxIter = sched, 1e-12, 3000
			if trial%4 == 1 {
				opt.Damping = 0.5
			}
			if e := newEngine(c, opt); e.odd != nil {
				fast++
			}
			got, errGot := Run(context.Background(), c, opt)
			opt.tableWalk = true
			want, errWant := Run(context.Background(), c, opt)
			if (errGot == nil) != (errWant == nil) {
				t.Fatalf("trial %d %v: odd path %v, table walk %v", trial, sched, errGot, errWant)
			}
			if errGot != nil {
				continue
			}
			if got.Converged != want.Converged {
				t.Errorf("trial %d %v: converged %v (odd path) vs %v", trial, sched, got.Converged, want.Converged)
				continue
			}
			if !got.Converged {
				continue
			}
			for i := range got.Belief {
				if d := math.Abs(got.Belief[i] - want.Belief[i]); d > 1e-10 {
					t.Errorf("trial %d %v: belief %d differs by %v", trial, sched, i, d)
					break
				}
			}
			if d := math.Abs(got.LogZ - want.LogZ); d > 1e-9*math.Max(1, math.Abs(want.LogZ)) {
				t.Errorf("trial %d %v: log Z %v vs %v", trial, sched, got.LogZ, want.LogZ)
			}
		}
	}
	if fast < 100 {
		t.Errorf("the odd-entry path ran on %d of 240 runs", fast)
	}
}
