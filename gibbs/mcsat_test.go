package gibbs

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/internal/gen"
)

// TestBlockAllowed: an MC-SAT block move on factor f chooses among exactly
// the joint states of f's unobserved variables at which every active
// factor touching one of them is at its threshold (and f at its own),
// found by reading every such factor at every joint state, on random
// graphs with zeros, evidence and overlapping factors, and on groundings
// of random MLNs (clauses, where flips are free: freeFlips).
func TestBlockAllowed(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	checked := 0
	for trial := range 600 {
		g, ev := gen.SmallGraph(r, gen.SmallShape{Vars: 4, Factors: 10, ZeroOneIn: 4, Scale: 2, Evidence: true})
		if trial%2 == 1 { // clauses and formulas of an MLN: free flips
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
		ch.MCSAT(r, 0, 0) // the running state
		ch.drawThresholds(r)
		c := ch.c
		for f := range g.NumFactors() {
			if !ch.active[f] {
				continue
			}
			var free []int32
			size := 1
			for _, u := range g.Scope(f) {
				if !c.observed(u) && g.Card[u] > 1 {
					free = append(free, u)
					size *= int(g.Card[u])
				}
			}
			if len(free) < 2 || size > MaxBlock {
				continue
			}
			x0 := slices.Clone(x)
			var want []int32
			for j := range size {
				k := j
				for i := len(free) - 1; i >= 0; i-- {
					x[free[i]] = int32(k % int(g.Card[free[i]]))
					k /= int(g.Card[free[i]])
				}
				ok := g.Table(f).Values[c.entry(f, -1, 0)] >= ch.thr[f]
				for h := range g.NumFactors() {
					if !ch.active[h] {
						continue
					}
					touches := false
					for _, u := range g.Scope(h) {
						touches = touches || slices.Contains(free, u)
					}
					if touches && g.Table(h).Values[c.entry(h, -1, 0)] < ch.thr[h] {
						ok = false
					}
				}
				if ok {
					want = append(want, int32(j))
				}
			}
			copy(x, x0)
			ch.block(f, r)
			if !slices.Equal(ch.allow, want) {
				t.Fatalf("trial %d factor %d: block move allows %v, every factor read at every joint state %v", trial, f, ch.allow, want)
			}
			copy(x, x0)
			ch.syncEntries() // the block move's states undone
			checked++
		}
	}
	if checked < 400 {
		t.Fatalf("only %d block moves checked", checked)
	}
}

// drawThresholds starts a step's thresholds (with rng) and draws every
// coupling factor's, leaving rng for the block moves a test makes.
func (ch *Chain) drawThresholds(rng *rand.Rand) {
	ch.rng = rng
	ch.tstep++
	for _, f := range ch.couplingList {
		ch.threshold(f)
	}
}
