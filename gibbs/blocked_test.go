package gibbs

import (
	"fmt"
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
// every block, its joint states (fewer than the product of its variables'
// states where a tied unit leaves out illegal ones) carry the whole
// weight of the block's product states, the marginals the draw writes (the Rao-Blackwellised terms)
// equal those of the conditional computed by weighing every joint state of
// the block with the whole graph's product (1e-12), and 20000 draws from
// the same world hit each joint state with a frequency within 5 binomial
// standard errors of its conditional probability.
func TestBlockConditional(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	checked, tiedBlocks := 0, 0
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
			// The joint states left out (a tied unit's illegal ones) weigh
			// nothing: the listed ones carry the whole product's mass.
			all := 0.0
			var rec func(i int)
			rec = func(i int) {
				if i == len(bl.vars) {
					all += worldWeight(g, y)
					return
				}
				for s := range g.Card[bl.vars[i]] {
					y[bl.vars[i]] = s
					rec(i + 1)
				}
			}
			rec(0)
			if blockProduct(g, bl) > bl.state {
				tiedBlocks++
			}
			if math.Abs(all-total) > 1e-12*all {
				t.Fatalf("trial %d block %v: its %d joint states weigh %v, all %v", trial, bl.vars, bl.state, total, all)
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
	t.Logf("%d blocks checked, %d with a tied unit", checked, tiedBlocks)
	if tiedBlocks < 3 {
		t.Errorf("only %d blocks with a tied unit", tiedBlocks)
	}
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

// tiedGraph is 10 binary variables and an auxiliary one: "exactly one" of
// 0,1,2 as one table; "exactly one" of 3,4,5,6 through the auxiliary
// variable 10 (4 states) and a table [x_i = (a == i)] each, as the
// grounder writes a large block; the hard equivalence 7 ⇔ 8; and soft
// pairwise factors coupling them and variable 9 (observed in some runs).
func tiedGraph(t *testing.T, r *rand.Rand) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(10, 2)
	aux := b.AddVar(4)
	add := func(scope []int32, vals []float64) {
		if _, err := b.AddFactor(scope, vals); err != nil {
			t.Fatal(err)
		}
	}
	add([]int32{0, 1, 2}, []float64{0, 1, 1, 0, 1, 0, 0, 0})
	for i := range int32(4) {
		vals := make([]float64, 8)
		for a := range 4 {
			if a == int(i) {
				vals[2*a+1] = 1
			} else {
				vals[2*a] = 1
			}
		}
		add([]int32{aux, 3 + i}, vals)
	}
	add([]int32{7, 8}, []float64{1, 0, 0, 1})
	for range 14 {
		u, v := int32(r.IntN(10)), int32(r.IntN(10))
		if u == v {
			continue
		}
		add([]int32{u, v}, []float64{1, math.Exp(r.NormFloat64()), math.Exp(r.NormFloat64()), math.Exp(2 * r.NormFloat64())})
	}
	return b.Build()
}

// TestTiedBlocks: variables that a factor's zeros tie (single changes
// cannot cross "exactly one" or an equivalence) are always in one block,
// whatever the block size, and their block holds only their legal joint
// states (3 for "exactly one" of three, 4 for the auxiliary block, 2 for
// the equivalence); no state of a block is illegal; and blocked Gibbs
// marginals (Rao-Blackwellised, 4 chains × 8000 sweeps) equal enumeration
// within 0.01 at block sizes 1, 2, 3 and 8 — with the blocks split across
// the constraints the chain froze.
func TestTiedBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 4 {
		g := tiedGraph(t, r)
		ev := fg.NoEvidence(g.NumVars())
		if trial%2 == 1 {
			ev[9] = 1
		}
		want, _, connected := exact(g, ev)
		if connected {
			t.Fatal("the tied graph's positive worlds are connected by single changes")
		}
		for _, bs := range []int{1, 2, 3, 8} {
			bk, err := NewBlocking(g, ev, bs, 64)
			if err != nil {
				t.Fatal(err)
			}
			blockOf := map[int32]int{}
			for b, vs := range bk.Blocks {
				for _, v := range vs {
					blockOf[v] = b
				}
			}
			for _, unit := range [][]int32{{0, 1, 2}, {3, 4, 5, 6, 10}, {7, 8}} {
				for _, v := range unit {
					if blockOf[v] != blockOf[unit[0]] {
						t.Fatalf("block size %d: unit %v split over blocks %v", bs, unit, bk.Blocks)
					}
				}
			}
			for b := range bk.blocks {
				bl := &bk.blocks[b]
				legal := 1
				for _, v := range bl.vars {
					switch v {
					case 0:
						legal *= 3
					case 3:
						legal *= 4
					case 7:
						legal *= 2
					case 9:
						legal *= 2
					}
				}
				if bl.state != legal {
					t.Errorf("block size %d, block %v: %d joint states, want %d", bs, bl.vars, bl.state, legal)
				}
				val := func(j int, v int32) int32 {
					for i, u := range bl.vars {
						if u == v {
							return bl.digit[i][j]
						}
					}
					return -1
				}
				for j := range bl.state {
					if a := val(j, 0); a >= 0 && a+val(j, 1)+val(j, 2) != 1 {
						t.Errorf("block %v, joint state %d: not exactly one of 0, 1, 2", bl.vars, j)
					}
					if a := val(j, 10); a >= 0 {
						for i := range int32(4) {
							if val(j, 3+i) != int32(b2i(a == i)) {
								t.Errorf("block %v, joint state %d: auxiliary %d, x%d = %d", bl.vars, j, a, 3+i, val(j, 3+i))
							}
						}
					}
					if a := val(j, 7); a >= 0 && a != val(j, 8) {
						t.Errorf("block %v, joint state %d: 7 and 8 differ", bl.vars, j)
					}
				}
			}
			const chains, sweeps = 4, 8000
			got := make([]float64, g.NumVars())
			for k := range chains {
				rng := rand.New(rand.NewPCG(uint64(trial), uint64(k)))
				x := make([]int32, g.NumVars())
				if err := Start(g, ev, x, rng); err != nil {
					t.Fatal(err)
				}
				ch, err := NewChain(g, ev, x)
				if err != nil {
					t.Fatal(err)
				}
				cond := make([]float64, ch.Offsets()[g.NumVars()])
				for range sweeps {
					ch.BlockSweep(rng, bk, cond)
					for v := range got {
						got[v] += cond[ch.off[v]+1] / chains / sweeps
					}
				}
			}
			for v := range 10 {
				if d := math.Abs(got[v] - want[v][1]); d > 0.01 {
					t.Errorf("trial %d, block size %d: P(x%d = 1) = %.4f, enumeration %.4f (blocks %v)", trial, bs, v, got[v], want[v][1], bk.Blocks)
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// blockProduct is the product of the block's variables' states.
func blockProduct(g *fg.Graph, bl *block) int {
	n := 1
	for _, v := range bl.vars {
		n *= int(g.Card[v])
	}
	return n
}

// TestTiedAtEvidence: a factor over (a, b, o) that makes a = b when o = 0
// and allows anything when o = 1 ties a and b given o = 0 (its entries at
// the evidence fall apart), not given o = 1; clamped (o changing between
// sweeps, NewClampedBlocking) its whole table is connected and nothing is
// tied.
func TestTiedAtEvidence(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	// scope (a, b, o), o fastest: (a,b,o) = 000 001 010 011 100 101 110 111
	if _, err := b.AddFactor([]int32{0, 1, 2}, []float64{1, 1, 0, 1, 0, 1, 2, 1}); err != nil {
		t.Fatal(err)
	}
	g := b.Build()
	for _, c := range []struct {
		o       int32
		clamped bool
		want    string
		states  int
	}{{0, false, "[[0 1]]", 2}, {1, false, "[[0] [1]]", 2}, {0, true, "[[0] [1]]", 2}} {
		ev := fg.Evidence{-1, -1, c.o}
		nb := NewBlocking
		if c.clamped {
			nb = NewClampedBlocking
		}
		bk, err := nb(g, ev, 1, 64)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(bk.Blocks); got != c.want || bk.States[0] != c.states {
			t.Errorf("o = %d, clamped %v: blocks %s (%v states), want %s", c.o, c.clamped, got, bk.States, c.want)
		}
	}
}
