package gibbs

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
)

// randomGraph: see gen.SmallGraph (about a quarter of the entries 0).
func randomGraph(t *testing.T, r *rand.Rand) *fg.Graph {
	g, _ := gen.SmallGraph(r, gen.SmallShape{Vars: 3, Factors: 5, ZeroOneIn: 4, Scale: 2})
	return g
}

// exact returns the marginals of g given ev by enumeration, the positive
// worlds, and whether single-variable moves connect all of them.
func exact(g *fg.Graph, ev fg.Evidence) ([][]float64, int, bool) {
	n := g.NumVars()
	var worlds [][]int32
	var weights []float64
	x := make([]int32, n)
	var rec func(v int)
	rec = func(v int) {
		if v == n {
			w := 1.0
			for f := range g.NumFactors() {
				tb := g.Table(f)
				st := tb.Strides()
				j := 0
				for p, u := range g.Scope(f) {
					j += st[p] * int(x[u])
				}
				w *= tb.Values[j]
			}
			if w > 0 {
				worlds = append(worlds, append([]int32(nil), x...))
				weights = append(weights, w)
			}
			return
		}
		for s := range g.Card[v] {
			if ev[v] >= 0 && s != ev[v] {
				continue
			}
			x[v] = s
			rec(v + 1)
		}
	}
	rec(0)
	marg := make([][]float64, n)
	for v := range marg {
		marg[v] = make([]float64, g.Card[v])
	}
	z := 0.0
	for i, w := range weights {
		z += w
		for v, s := range worlds[i] {
			marg[v][s] += w
		}
	}
	for v := range marg {
		for s := range marg[v] {
			marg[v][s] /= z
		}
	}
	// connectivity of the positive worlds under single-variable moves
	seen := make([]bool, len(worlds))
	if len(worlds) > 0 {
		seen[0] = true
		queue := []int{0}
		for len(queue) > 0 {
			a := queue[0]
			queue = queue[1:]
			for b := range worlds {
				if seen[b] {
					continue
				}
				diff := 0
				for v := range worlds[a] {
					if worlds[a][v] != worlds[b][v] {
						diff++
					}
				}
				if diff == 1 {
					seen[b] = true
					queue = append(queue, b)
				}
			}
		}
	}
	connected := true
	for _, s := range seen {
		connected = connected && s
	}
	return marg, len(worlds), connected
}

// TestMarginalsMatchEnumeration runs long chains on random small graphs with
// zero entries (and some evidence) whose positive worlds single moves
// connect, and compares the sampled marginals with the exact ones. The
// chain's samples are correlated; the bound is 6 standard errors of
// sweeps/10 independent draws (an effective sample size the chains here
// exceed), at most about 0.013.
func TestMarginalsMatchEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	rng := rand.New(rand.NewPCG(3, 4))
	const sweeps = 200000
	tested := 0
	for tested < 12 {
		g := randomGraph(t, r)
		ev := fg.NoEvidence(g.NumVars())
		if r.IntN(2) == 0 {
			v := r.IntN(g.NumVars())
			ev[v] = int32(r.IntN(int(g.Card[v])))
		}
		want, nw, connected := exact(g, ev)
		if nw < 2 || !connected {
			continue
		}
		tested++
		x := make([]int32, g.NumVars())
		if err := Start(g, ev, x, rng); err != nil {
			t.Fatal(err)
		}
		count := make([][]float64, g.NumVars())
		for v := range count {
			count[v] = make([]float64, g.Card[v])
		}
		for range sweeps {
			if err := Sample(g, ev, x, 1, rng); err != nil {
				t.Fatal(err)
			}
			for v, s := range x {
				count[v][s]++
			}
		}
		for v := range want {
			for s, p := range want[v] {
				got := count[v][s] / sweeps
				bound := 6 * math.Sqrt(max(p*(1-p), 1e-4)/(sweeps/10))
				if math.Abs(got-p) > bound {
					t.Errorf("graph %d: P(x%d = %d) = %.4f sampled, %.4f exact (bound %.4f)", tested, v, s, got, p, bound)
				}
			}
		}
	}
}

// TestStart checks that Start reaches a positive world, keeps the
// evidence, and reports a factor that no world makes positive.
func TestStart(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rng := rand.New(rand.NewPCG(7, 8))
	for range 200 {
		g := randomGraph(t, r)
		ev := fg.NoEvidence(g.NumVars())
		ev[0] = 0
		_, nw, _ := exact(g, ev)
		x := make([]int32, g.NumVars())
		err := Start(g, ev, x, rng)
		if nw == 0 {
			var ue *UnsatError
			if !errors.As(err, &ue) {
				t.Fatalf("no positive world, error %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%d positive worlds, error %v", nw, err)
		}
		if x[0] != 0 {
			t.Fatalf("evidence not kept: %v", x)
		}
		for f := range g.NumFactors() {
			tb := g.Table(f)
			st := tb.Strides()
			j := 0
			for p, u := range g.Scope(f) {
				j += st[p] * int(x[u])
			}
			if tb.Values[j] == 0 {
				t.Fatalf("factor %d zero at the start %v", f, x)
			}
		}
	}
}

// TestSampleDrawsUnchanged pins Sample's draws (online.Sample's seeded
// outputs depend on them): the hash of the worlds reached on 300 random
// graphs is the one the implementation before Chain gave, and Chain.Sweep,
// with or without the conditionals, draws the same.
func TestSampleDrawsUnchanged(t *testing.T) {
	worlds := func(sweep func(g *fg.Graph, ev fg.Evidence, x []int32, rng *rand.Rand)) uint64 {
		r := rand.New(rand.NewPCG(11, 12))
		rng := rand.New(rand.NewPCG(13, 14))
		h := fnv.New64a()
		for range 300 {
			g := randomGraph(t, r)
			ev := fg.NoEvidence(g.NumVars())
			x := make([]int32, g.NumVars())
			if err := Start(g, ev, x, rng); err != nil {
				continue
			}
			sweep(g, ev, x, rng)
			fmt.Fprint(h, x)
		}
		return h.Sum64()
	}
	const want uint64 = 16433767792576701193
	if got := worlds(func(g *fg.Graph, ev fg.Evidence, x []int32, rng *rand.Rand) {
		if err := Sample(g, ev, x, 50, rng); err != nil {
			t.Fatal(err)
		}
	}); got != want {
		t.Fatalf("Sample: hash %d, want %d", got, want)
	}
	for _, withCond := range []bool{false, true} {
		got := worlds(func(g *fg.Graph, ev fg.Evidence, x []int32, rng *rand.Rand) {
			ch, err := NewChain(g, ev, x)
			if err != nil {
				t.Fatal(err)
			}
			var cond []float64
			if withCond {
				cond = make([]float64, ch.Offsets()[g.NumVars()])
			}
			for range 50 {
				ch.Sweep(rng, cond)
			}
		})
		if got != want {
			t.Fatalf("Chain.Sweep (conditionals %v): hash %d, want %d", withCond, got, want)
		}
	}
}

// TestPairwiseFastPath checks binaryCond's pairwise fast path (and base's
// partner arrays, pairOf) against its general loop over scanned scopes, bit for bit, on random graphs mixing binary and ternary
// variables, factors of one to three variables, zero entries and
// evidence (so that some variables qualify and some do not), in many
// worlds; and that it is taken on a frustrated grid.
func TestPairwiseFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	taken, checked := 0, 0
	for k := range 200 {
		var g *fg.Graph
		if k%4 == 0 {
			g = gen.FrustratedGrid(r, 2+r.IntN(4), 0.5, 2.5, 0.5)
		} else {
			g = gen.Random(r, 3+r.IntN(8), 4+r.IntN(12), 3, 0.05)
		}
		ev := fg.NoEvidence(g.NumVars())
		for v := range ev {
			if r.IntN(6) == 0 {
				ev[v] = int32(r.IntN(int(g.Card[v])))
			}
		}
		x := make([]int32, g.NumVars())
		c, err := newChain(context.Background(), g, ev, x)
		if err != nil {
			t.Fatal(err)
		}
		if k%4 == 0 && c.fast == nil {
			t.Fatalf("graph %d: a frustrated grid takes no fast path", k)
		}
		sp := *c.Prepared // the chain's Prepared is shared: change a copy
		sp.fast = nil
		sp.pairOf = nil // and base scans the scope
		slow := *c
		slow.Prepared = &sp
		for range 20 {
			for v := range x {
				x[v] = int32(r.IntN(int(g.Card[v])))
				if ev[v] >= 0 {
					x[v] = ev[v]
				}
			}
			for v := range x {
				if g.Card[v] != 2 || ev[v] >= 0 {
					continue
				}
				p, forced := c.binaryCond(int32(v))
				q, qforced := slow.binaryCond(int32(v))
				if p != q || forced != qforced {
					t.Fatalf("graph %d, variable %d: fast path %v (%v), general %v (%v)", k, v, p, forced, q, qforced)
				}
				checked++
				if c.fast != nil && c.fast[v] {
					taken++
				}
			}
		}
	}
	if taken == 0 || taken == checked {
		t.Fatalf("fast path taken in %d of %d conditionals: the test should see both", taken, checked)
	}
	t.Logf("fast path in %d of %d conditionals", taken, checked)
}

// TestLogScore: a chain's log-score (LogScore's flat tables) is the sum
// over factors, in factor order, of the log of the current entry found
// through the table's strides, bit for bit, on random graphs in many worlds.
func TestLogScore(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	for k := range 100 {
		g := gen.Random(r, 3+r.IntN(8), 4+r.IntN(12), 3, 0.1)
		x := make([]int32, g.NumVars())
		ch, err := NewChain(g, nil, x)
		if err != nil {
			t.Fatal(err)
		}
		for range 10 {
			for v := range x {
				x[v] = int32(r.IntN(int(g.Card[v])))
			}
			want := 0.0
			for f := range g.NumFactors() {
				want += math.Log(g.Table(f).Values[tableIndex(g, f, x)])
			}
			if got := ch.LogScore(); got != want && !(math.IsInf(got, -1) && math.IsInf(want, -1)) {
				t.Fatalf("graph %d: log-score %v, want %v", k, got, want)
			}
		}
	}
}

// tableIndex is the index of world x's entry in factor f's table, by the
// table's strides (the tests' independent reading).
func tableIndex(g *fg.Graph, f int, x []int32) int {
	st := g.Table(f).Strides()
	j := 0
	for q, u := range g.Scope(f) {
		j += st[q] * int(x[u])
	}
	return j
}

// TestLogScoreCounted: on graphs whose factors share a few tables (as
// groundings do), LogScore keeps counts per table entry (score.go). Its
// score agrees with the sum over factors to 1e-12 relative after single
// flips, a few flips, and whole new worlds, is −Inf exactly when a factor
// is zero, and is bit for bit the same whenever a world is revisited —
// and for two worlds that use each entry equally often (a symmetry of
// the graph), which a running sum would not give.
func TestLogScoreCounted(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	for k := range 40 {
		b := fg.NewBuilder()
		n := 20 + r.IntN(20)
		b.AddVars(n, 2)
		var tabs []int32
		for range 1 + r.IntN(3) {
			vals := gen.RandomTable(r, 4, 0.1*float64(k%2))
			id, err := b.Table([]int32{2, 2}, vals)
			if err != nil {
				t.Fatal(err)
			}
			tabs = append(tabs, id)
		}
		// A ring per table: rotating every variable by one place maps the
		// graph onto itself.
		for _, id := range tabs {
			for v := range n {
				if _, err := b.AddFactorTable([]int32{int32(v), int32((v + 1) % n)}, id); err != nil {
					t.Fatal(err)
				}
			}
		}
		g := b.Build()
		x := make([]int32, n)
		ch, err := NewChain(g, nil, x)
		if err != nil {
			t.Fatal(err)
		}
		if !useScoreCounts(ch.c) {
			t.Fatalf("graph %d: %d factors over %d tables: counts should be used", k, g.NumFactors(), len(g.Tables))
		}
		seen := map[string]float64{}
		for step := range 60 {
			switch {
			case step%10 == 9:
				for v := range x {
					x[v] = int32(r.IntN(2))
				}
			default:
				for range 1 + r.IntN(3) {
					v := r.IntN(n)
					x[v] = 1 - x[v]
				}
			}
			want := 0.0
			for f := range g.NumFactors() {
				want += math.Log(g.Table(f).Values[tableIndex(g, f, x)])
			}
			got := ch.LogScore()
			if math.IsInf(want, -1) != math.IsInf(got, -1) || !math.IsInf(want, -1) && math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
				t.Fatalf("graph %d step %d: log-score %v, want %v", k, step, got, want)
			}
			key := fmt.Sprint(x)
			if old, ok := seen[key]; ok && math.Float64bits(old) != math.Float64bits(got) {
				t.Fatalf("graph %d: world %v revisited scores %v, then %v", k, x, old, got)
			}
			seen[key] = got
			// The rotated world: the same entries as often.
			save := slices.Clone(x)
			for v := range x {
				x[v] = save[(v+1)%n]
			}
			if rot := ch.LogScore(); math.Float64bits(rot) != math.Float64bits(got) {
				t.Fatalf("graph %d: rotated world scores %v, the world %v", k, rot, got)
			}
			copy(x, save)
		}
	}
}

// TestPreparedShared: chains that share one Prepared graph (run at the
// same time, in their own goroutines) draw bit for bit what chains on
// graphs prepared each for itself draw, step for step (Gibbs sweeps with
// their conditionals, MC-SAT steps and the log-score): the shared part is
// read only.
func TestPreparedShared(t *testing.T) {
	r := rand.New(rand.NewPCG(71, 72))
	for k := range 40 {
		var g *fg.Graph
		if k%3 == 0 {
			g = gen.FrustratedGrid(r, 2+r.IntN(4), 0.5, 2.5, 0.5)
		} else {
			g = gen.Random(r, 3+r.IntN(8), 4+r.IntN(12), 3, 0.05)
		}
		ev := fg.NoEvidence(g.NumVars())
		for v := range ev {
			if r.IntN(6) == 0 {
				ev[v] = int32(r.IntN(int(g.Card[v])))
			}
		}
		p, err := Prepare(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		const chains = 3
		type out struct {
			x     [][]int32
			cond  [][]float64
			score []float64
			err   error
		}
		run := func(c uint64, shared bool) (o out) {
			x := make([]int32, g.NumVars())
			rng := rand.New(rand.NewPCG(uint64(k), c))
			var ch *Chain
			if shared {
				if o.err = p.Start(context.Background(), ev, x, rng); o.err == nil {
					ch, o.err = p.NewChain(ev, x)
				}
			} else if o.err = Start(g, ev, x, rng); o.err == nil {
				ch, o.err = NewChain(g, ev, x)
			}
			if o.err != nil {
				return o
			}
			for step := range 30 {
				cond := make([]float64, ch.Offsets()[g.NumVars()])
				if step%2 == 0 {
					ch.Sweep(rng, cond)
				} else {
					ch.MCSAT(rng, 2, 0.5)
					ch.Conditionals(cond)
				}
				o.x = append(o.x, slices.Clone(ch.State()))
				o.cond = append(o.cond, cond)
				o.score = append(o.score, ch.LogScore())
			}
			return o
		}
		outs := make([]out, chains)
		done := make(chan struct{})
		for c := range chains {
			go func() {
				outs[c] = run(uint64(c), true)
				done <- struct{}{}
			}()
		}
		for range chains {
			<-done
		}
		for c := range chains {
			want := run(uint64(c), false)
			got := outs[c]
			if (want.err == nil) != (got.err == nil) {
				t.Fatalf("graph %d chain %d: shared %v, own %v", k, c, got.err, want.err)
			}
			for s := range want.x {
				if !slices.Equal(want.x[s], got.x[s]) || !slices.Equal(want.cond[s], got.cond[s]) ||
					math.Float64bits(want.score[s]) != math.Float64bits(got.score[s]) {
					t.Fatalf("graph %d chain %d step %d: shared %v %v %v, own %v %v %v", k, c, s,
						got.x[s], got.cond[s], got.score[s], want.x[s], want.cond[s], want.score[s])
				}
			}
		}
	}
}
