package lift_test

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// A count tolerance too small to pool any two counts gives exact colour
// passing's partition and counts, through the approximate signatures.
func TestApproxTinyToleranceIsExact(t *testing.T) {
	for _, m := range plantedModels(7) {
		exact, _, err := lift.Compress(context.Background(), m.g, m.ev, lift.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := lift.Compress(context.Background(), m.g, m.ev, lift.Options{CountTolerance: 1e-9})
		if err != nil {
			t.Fatalf("%s: %v", m.name, err)
		}
		if c.Approximate || !slices.Equal(c.NodeOf, exact.NodeOf) || !slices.Equal(c.FactorOf, exact.FactorOf) ||
			!slices.Equal(c.EdgeCount, exact.EdgeCount) || c.GroundSlot == nil {
			t.Fatalf("%s: tolerance 1e-9 gave another compression (approximate %v)", m.name, c.Approximate)
		}
	}
}

// Coarse approximations (large count tolerance, early stops) still give
// a counted graph whose every ground edge lies in a slot of its factor's
// clusterfactor and its variable's clusternode, with counts at least 1.
func TestApproxGroundSlots(t *testing.T) {
	approx := 0
	for _, m := range plantedModels(8) {
		for _, opt := range []lift.Options{{CountTolerance: 0.5}, {CountTolerance: 2, MaxIter: 1}, {CountTolerance: 1, MaxIter: 2}} {
			c, _, err := lift.Compress(context.Background(), m.g, m.ev, opt)
			if err != nil {
				t.Fatalf("%s %+v: %v", m.name, opt, err)
			}
			if c.Approximate {
				approx++
			}
			if c.NumFactors() > m.g.NumFactors() || c.NumNodes() > m.g.NumVars() {
				t.Fatalf("%s: larger than the graph", m.name)
			}
			for f := 0; f < m.g.NumFactors(); f++ {
				for e := m.g.FactorStart[f]; e < m.g.FactorStart[f+1]; e++ {
					s := c.GroundSlot[e]
					if c.EdgeFactor[s] != c.FactorOf[f] || c.EdgeNode[s] != c.NodeOf[m.g.EdgeVar[e]] {
						t.Fatalf("%s %+v: ground edge %d in slot %d of another clusterfactor or clusternode", m.name, opt, e, s)
					}
				}
			}
			for s, n := range c.EdgeCount {
				if n < 1 {
					t.Fatalf("%s: slot %d has count %d", m.name, s, n)
				}
			}
			slots, err := c.GroundEdgeSlots(m.g)
			if err != nil || !slices.Equal(slots, c.GroundSlot) {
				t.Fatalf("%s: GroundEdgeSlots of the graph itself: %v", m.name, err)
			}
		}
	}
	if approx == 0 {
		t.Fatal("no model was compressed approximately: the test tests nothing")
	}
}

// QuantiseFields moves every variable's local log-potentials (relative to
// state 0) by at most delta/2 per state and keeps the other factors.
func TestQuantiseFields(t *testing.T) {
	fields := func(g *fg.Graph) [][]float64 {
		out := make([][]float64, g.NumVars())
		for v := range out {
			out[v] = make([]float64, g.Card[v])
		}
		for f := 0; f < g.NumFactors(); f++ {
			if sc := g.Scope(f); len(sc) == 1 {
				for x, p := range g.Table(f).Values {
					out[sc[0]][x] += math.Log(p)
				}
			}
		}
		return out
	}
	for _, m := range plantedModels(9) {
		if q, _ := lift.QuantiseFields(m.g, 0); q != m.g {
			t.Fatal("delta 0 must return the graph itself")
		}
		for _, delta := range []float64{0.1, 1} {
			q, err := lift.QuantiseFields(m.g, delta)
			if err != nil {
				t.Fatal(err)
			}
			a, b := fields(m.g), fields(q)
			for v := range a {
				for x := range a[v] {
					da, db := a[v][x]-a[v][0], b[v][x]-b[v][0]
					if math.IsInf(da, -1) != math.IsInf(db, -1) {
						t.Fatalf("%s: variable %d state %d: zero not kept", m.name, v, x)
					}
					if !math.IsInf(da, 0) && !math.IsInf(db, 0) && math.Abs(da-db) > delta+1e-9 {
						t.Fatalf("%s: variable %d state %d: log-odds %v became %v (delta %v)", m.name, v, x, da, db, delta)
					}
				}
			}
			slots, err := func() ([]int32, error) {
				c, _, err := lift.Compress(context.Background(), q, m.ev, lift.Options{CountTolerance: 0.5})
				if err != nil {
					return nil, err
				}
				return c.GroundEdgeSlots(m.g)
			}()
			if err != nil {
				t.Fatalf("%s: %v", m.name, err)
			}
			for f := 0; f < m.g.NumFactors(); f++ {
				lo, hi := m.g.FactorStart[f], m.g.FactorStart[f+1]
				if (hi-lo == 1) != (slots[lo] < 0) {
					t.Fatalf("%s: factor %d: unary factors map to -1, others to slots", m.name, f)
				}
			}
		}
	}
}
