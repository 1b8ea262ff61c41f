package gibbs

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// worldWeight is the product of g's factors at world x.
func worldWeight(g *fg.Graph, x []int32) float64 {
	w := 1.0
	for f := range g.NumFactors() {
		t := g.Table(f)
		st := t.Strides()
		j := 0
		for p, u := range g.Scope(f) {
			j += st[p] * int(x[u])
		}
		w *= t.Values[j]
	}
	return w
}

// TestBlockConditional: each block's draw is from the exact conditional of
// the block given the rest. At a positive world of a random graph, for
// every block, the marginals the draw writes (the Rao-Blackwellised terms)
// equal those of the conditional computed by weighing every joint state of
// the block with the whole graph's product (1e-12), and 20000 draws from
// the same world hit each joint state with a frequency within 5 binomial
// standard errors of its conditional probability.
func TestBlockConditional(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	checked := 0
	for trial := range 60 {
		g := randomGraph(t, r)
		ev := fg.NoEvidence(g.NumVars())
		if trial%3 == 0 {
			ev[0] = 0
		}
		x := make([]int32, g.NumVars())
		if Start(g, ev, x, r) != nil {
			continue
		}
		bk, err := NewBlocking(g, ev, 1+trial%4, 1<<(2+trial%4))
		if err != nil {
			t.Fatal(err)
		}
		ch, err := NewChain(g, ev, x)
		if err != nil {
			t.Fatal(err)
		}
		cond := make([]float64, ch.Offsets()[g.NumVars()])
		x0 := append([]int32(nil), x...)
		for b := range bk.blocks {
			bl := &bk.blocks[b]
			// The conditional by brute force over the block's joint states.
			p := make([]float64, bl.state)
			y := append([]int32(nil), x0...)
			total := 0.0
			for j := range bl.state {
				for i, v := range bl.vars {
					y[v] = bl.digit[i][j]
				}
				p[j] = worldWeight(g, y)
				total += p[j]
			}
			for j := range p {
				p[j] /= total
			}
			copy(x, x0)
			ch.drawBlock(r, bl, cond)
			for i, v := range bl.vars {
				for s := range g.Card[v] {
					want := 0.0
					for j, pj := range p {
						if bl.digit[i][j] == s {
							want += pj
						}
					}
					if got := cond[ch.off[v]+int(s)]; math.Abs(got-want) > 1e-12 {
						t.Fatalf("trial %d block %v: P(x%d = %d | rest) = %v, enumeration %v", trial, bl.vars, v, s, got, want)
					}
				}
			}
			const n = 20000
			hits := make([]int, bl.state)
			for range n {
				copy(x, x0)
				ch.drawBlock(r, bl, nil)
				hits[stateOf(bl, x)]++
			}
			for j, pj := range p {
				if d := math.Abs(float64(hits[j])/n - pj); d > 5*math.Sqrt(pj*(1-pj)/n)+1e-12 {
					t.Fatalf("trial %d block %v: state %d drawn %d/%d times, probability %v", trial, bl.vars, j, hits[j], n, pj)
				}
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d blocks checked", checked)
	}
	t.Logf("%d blocks checked", checked)
}

// stateOf is the index of the block's joint state at world x (−1 if x is
// not one of its joint states).
func stateOf(bl *block, x []int32) int {
	for j := range bl.state {
		ok := true
		for i, v := range bl.vars {
			ok = ok && bl.digit[i][j] == x[v]
		}
		if ok {
			return j
		}
	}
	return -1
}
