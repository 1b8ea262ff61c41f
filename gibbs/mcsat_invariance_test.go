package gibbs

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/gen"
	"gonum.org/v1/gonum/stat/distuv"
)

// joint enumerates the worlds of g consistent with ev (variable 0 slowest)
// and returns their probabilities under the model, nil when there are
// more than max or none is positive.
func joint(g *fg.Graph, ev fg.Evidence, max int) []float64 {
	size := 1
	for _, k := range g.Card {
		size *= int(k)
		if size > max {
			return nil
		}
	}
	p := make([]float64, size)
	x := make([]int32, g.NumVars())
	total := 0.0
	for j := range size {
		decode(g, j, x)
		w := 1.0
		for v, s := range x {
			if ev != nil && ev[v] >= 0 && ev[v] != s {
				w = 0
			}
		}
		for f := 0; f < g.NumFactors() && w > 0; f++ {
			t := g.Table(f)
			i := 0
			for q, u := range g.Scope(f) {
				i = i*int(t.Dims[q]) + int(x[u])
			}
			w *= t.Values[i]
		}
		p[j] = w
		total += w
	}
	if total == 0 {
		return nil
	}
	for j := range p {
		p[j] /= total
	}
	return p
}

func decode(g *fg.Graph, j int, x []int32) {
	for v := len(x) - 1; v >= 0; v-- {
		k := int(g.Card[v])
		x[v] = int32(j % k)
		j /= k
	}
}

func encode(g *fg.Graph, x []int32) int {
	j := 0
	for v, s := range x {
		j = j*int(g.Card[v]) + int(s)
	}
	return j
}

// chiSquare returns the p-value of the counts against the probabilities
// (cells of expected count below 5 pooled into one).
func chiSquare(counts []int, p []float64, n int) (float64, int) {
	stat, df := 0.0, -1
	var poolO, poolE float64
	for j, c := range counts {
		e := p[j] * float64(n)
		if e < 5 {
			poolO += float64(c)
			poolE += e
			if e == 0 && c > 0 {
				return 0, 0 // a world of probability 0 was reached
			}
			continue
		}
		stat += (float64(c) - e) * (float64(c) - e) / e
		df++
	}
	if poolE > 0 {
		stat += (poolO - poolE) * (poolO - poolE) / poolE
		df++
	}
	if df < 1 {
		return 1, 0
	}
	return 1 - distuv.ChiSquared{K: float64(df)}.CDF(stat), df
}

// TestMCSATInvariant: one MC-SAT step (one sweep, several sweeps, with and
// without block moves on every factor, with thresholds drawn up front or
// when first read, with blocked moves on SAT(M)) from worlds drawn exactly from the
// model by enumeration gives worlds distributed exactly as the model, by a
// chi-square test of the world counts (n steps, each from a fresh exact
// draw), on random graphs with zeros, unit factors and evidence, random
// MLN groundings with hard formulas, and a functional block ("exactly
// one") with unit weights. A control step that is not invariant (a
// uniformly random flip of one variable, kept only when the world stays
// positive) must fail the same test, so the test has power.
func TestMCSATInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	type model struct {
		g  *fg.Graph
		ev fg.Evidence
	}
	var models []model
	for len(models) < 10 {
		g, ev := gen.SmallGraph(r, gen.SmallShape{Vars: 3, Factors: 8, ZeroOneIn: 5, Scale: 1.5, Evidence: true})
		if p := joint(g, ev, 200); p != nil {
			models = append(models, model{g, ev})
		}
	}
	for len(models) < 16 {
		src, db := gen.SmallMLN(r, gen.MLNShape{Formulas: 5, HardOneIn: 3})
		g, err := gen.GroundSmallMLN(src, db, 0, 8)
		if err != nil {
			t.Fatal(err)
		}
		if g != nil && joint(g, nil, 256) != nil {
			models = append(models, model{g, nil})
		}
	}
	{ // exactly one of three, unit weights on each, a coupling to a fourth
		b := fg.NewBuilder()
		b.AddVars(4, 2)
		one := make([]float64, 8)
		one[1], one[2], one[4] = 1, 1, 1
		b.AddFactor([]int32{0, 1, 2}, one)
		b.AddFactor([]int32{0}, []float64{1, 3})
		b.AddFactor([]int32{1}, []float64{2, 1})
		b.AddFactor([]int32{2, 3}, []float64{1, 0.2, 1, 4})
		b.AddFactor([]int32{3}, []float64{1, 0.5})
		models = append(models, model{b.Build(), nil})
	}
	const n = 20000
	const alpha = 1e-4 // per (model, kernel): 17 × 4 tests, deterministic seeds
	type kernel struct {
		name      string
		sweeps    int
		blockProb float64
		lazy      bool // thresholds drawn when first read (lazyThresholds)
		blocked   bool // MCSATBlocks with NewBlocking's blocks (at most 3 variables)
	}
	kernels := []kernel{{"1 sweep", 1, 0.1, false, false}, {"3 sweeps", 3, 0.1, false, false}, {"blocks on every factor", 1, 1, false, false}, {"no optional blocks", 1, 0, false, false},
		{"lazy thresholds", 1, 0.3, true, false}, {"lazy thresholds, 2 sweeps, every block", 2, 1, true, false},
		{"blocked", 1, 0.1, false, true}, {"blocked, lazy thresholds", 1, 0.1, true, true}}
	worst := 1.0
	controlsFail := 0
	for mi, m := range models {
		p := joint(m.g, m.ev, 256)
		cum := make([]float64, len(p))
		acc := 0.0
		for j, q := range p {
			acc += q
			cum[j] = acc
		}
		draw := func(x []int32) {
			u := r.Float64() * acc
			j := 0
			for j < len(cum)-1 && cum[j] <= u {
				j++
			}
			for p[j] == 0 {
				j--
			}
			decode(m.g, j, x)
		}
		for _, k := range kernels {
			counts := make([]int, len(p))
			x := make([]int32, m.g.NumVars())
			draw(x)
			ch, err := NewChain(m.g, m.ev, x)
			if err != nil {
				t.Fatal(err)
			}
			var bk *Blocking
			if k.blocked {
				if bk, err = NewBlocking(m.g, m.ev, 3, 64); err != nil {
					t.Fatal(err)
				}
			}
			for range n {
				draw(x) // the Chain aliases x: a fresh exact world
				lazyThresholds = k.lazy
				ch.MCSATBlocks(r, k.sweeps, k.blockProb, bk)
				lazyThresholds = false
				counts[encode(m.g, x)]++
			}
			pv, df := chiSquare(counts, p, n)
			worst = min(worst, pv)
			if pv < alpha {
				t.Errorf("model %d (%d worlds), %s: one MC-SAT step from exact draws: chi-square p = %.2g (df %d)", mi, len(p), k.name, pv, df)
			}
		}
		// the control: a random flip is not invariant
		counts := make([]int, len(p))
		x := make([]int32, m.g.NumVars())
		for range n {
			draw(x)
			v := r.IntN(len(x))
			if m.ev == nil || m.ev[v] < 0 {
				old := x[v]
				x[v] = int32(r.IntN(int(m.g.Card[v])))
				if p[encode(m.g, x)] == 0 {
					x[v] = old
				}
			}
			counts[encode(m.g, x)]++
		}
		if pv, _ := chiSquare(counts, p, n); pv > alpha && mi < 10 {
			t.Logf("model %d: the non-invariant control passes (p = %.2g): its flips happen to keep this model's distribution", mi, pv)
		} else if pv <= alpha {
			controlsFail++
		}
	}
	if controlsFail < len(models)/2 {
		t.Errorf("the non-invariant control failed the chi-square test on only %d of %d models: the test has no power", controlsFail, len(models))
	}
	t.Logf("smallest p-value over %d models × %d kernels: %.3g; control rejected on %d", len(models), len(kernels), worst, controlsFail)
}

// TestMCSATRunningState: after MC-SAT steps (with block moves, and with
// the world changed from outside between steps), the running state the
// step keeps agrees with a recomputation from the world: every factor's
// table index, every binary variable's count of lowering flips, its
// conditional (Conditionals against chain.binaryCond) and the log-score.
func TestMCSATRunningState(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for trial := range 200 {
		g, ev := gen.SmallGraph(r, gen.SmallShape{Vars: 8, Factors: 20, ZeroOneIn: 6, Scale: 1.5, Evidence: true})
		if trial%2 == 1 {
			src, db := gen.SmallMLN(r, gen.MLNShape{Formulas: 6, HardOneIn: 4})
			var err error
			if g, err = gen.GroundSmallMLN(src, db, 0, 64); err != nil {
				t.Fatal(err)
			}
			if g == nil {
				continue
			}
			ev = nil
		}
		x := make([]int32, g.NumVars())
		if err := Start(g, ev, x, r); err != nil {
			continue
		}
		ch, err := NewChain(g, ev, x)
		if err != nil {
			t.Fatal(err)
		}
		cond := make([]float64, ch.Offsets()[g.NumVars()])
		for step := range 50 {
			ch.MCSAT(r, 1+step%2, []float64{0, 0.3, 1}[step%3])
			if step%10 == 5 { // an outside change: one variable to a positive state
				v := r.IntN(g.NumVars())
				if ev == nil || ev[v] < 0 {
					old := x[v]
					x[v] = int32(r.IntN(int(g.Card[v])))
					if w, _, _ := ch.c.weights(int32(v)); w[x[v]] == 0 {
						x[v] = old
					}
				}
			}
			ch.Conditionals(cond)
			score := ch.LogScore()
			c := ch.c
			want := 0.0
			for f := range g.NumFactors() {
				j := c.entry(f, -1, 0)
				if int(ch.cur[f]) != j {
					t.Fatalf("trial %d step %d: factor %d at index %d, recomputed %d", trial, step, f, ch.cur[f], j)
				}
				want += c.logT[g.FactorTable[f]][j]
			}
			if !(math.Abs(score-want) <= 1e-9*max(1, math.Abs(want))) {
				t.Fatalf("trial %d step %d: log-score %v, recomputed %v", trial, step, score, want)
			}
			for v := range g.NumVars() {
				u := int32(v)
				if c.observed(u) || g.Card[v] != 2 {
					continue
				}
				p1, _ := c.binaryCond(u)
				if !(math.Abs(cond[ch.off[v]+1]-p1) <= 1e-12) {
					t.Fatalf("trial %d step %d: P(v%d = 1 | rest) %v, recomputed %v", trial, step, v, cond[ch.off[v]+1], p1)
				}
				dec := int32(0)
				lo, hi := c.factors(u)
				for i := lo; i < hi; i++ {
					f := c.edgeF[i]
					if ch.coupling[f] && ch.lowers(f, int32(c.entry(int(f), -1, 0)), c.edgeSt[i], x[v]) {
						dec++
					}
				}
				if dec != ch.dec[v] {
					t.Fatalf("trial %d step %d: v%d has %d lowering factors, recomputed %d", trial, step, v, ch.dec[v], dec)
				}
			}
		}
	}
}
