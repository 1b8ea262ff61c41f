package mws

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/internal/brute"
)

// starMLN has a mutual-exclusion predicate and large clauses (EXIST over
// four people): with MaxArity 2 its blocks become mutual-exclusion stars
// and its clauses first-true stars; with MaxArity 3 the blocks are
// "exactly one" tables.
const starMLN = `
person = {A, B, C, D}
color = {Red, Green, Blue}
P(person)
Q(person, person)
Has(person, color!)
1.5 EXIST y Q(x,y)
-1.2 EXIST y Q(x,y) v P(x)
-0.8 EXIST y Q(y,x)
0.7 P(x) => Has(x, Red)
1 Q(x,y) ^ Has(x,c) => Has(y,c)
-0.4 Has(x, Blue)
`

const starDB = `
Q(A, B)
Has(C, Green)
`

func groundStars(t *testing.T, maxArity int) *fg.Graph {
	return groundStarsIn(t, maxArity, "A, B, C, D").Graph
}

func groundStarsIn(t *testing.T, maxArity int, people string) *ground.Grounding {
	t.Helper()
	m, err := mlnfile.Parse("s.mln", []byte(strings.Replace(starMLN, "A, B, C, D", people, 1)))
	if err != nil {
		t.Fatal(err)
	}
	db, err := mlnfile.ReadDB(strings.NewReader(starDB), "s.db", m)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []string{"P", "Q", "Has"}, MaxArity: maxArity, ExactMax: true})
	if err != nil {
		t.Fatal(err)
	}
	return gr
}

// The search's cost (count factors for stars and blocks, tables for the
// rest) is the graph's cost up to a constant, in every world that keeps
// the blocks; the hidden auxiliary variables are set so that the graph's
// world has no zero factor exactly when the search sees no broken hard
// factor; and block moves never break a mutual exclusion.
func TestProblemCostAndBlocks(t *testing.T) {
	for _, arity := range []int{2, 3} {
		g := groundStars(t, arity)
		ev := fg.NoEvidence(g.NumVars())
		p := newProblem(g, ev)
		nBlocks := len(p.blockStart) - 1
		if nBlocks != 3 { // Has(A,*), Has(B,*), Has(D,*): Has(C,*) is evidence
			t.Fatalf("arity %d: %d blocks, want 3", arity, nBlocks)
		}
		// Every clause of more than MaxArity atoms has a star (3 atoms:
		// the rule; 4: the EXISTs), and with MaxArity 2 every block too.
		if len(p.stars) < 6 {
			t.Fatalf("arity %d: %d stars recognised, want at least 6", arity, len(p.stars))
		}
		for v := range g.NumVars() {
			if g.Card[v] > 2 && !p.hidden[v] {
				t.Fatalf("arity %d: auxiliary variable %d (%d states) not recognised", arity, v, g.Card[v])
			}
		}
		s := newSolver(p)
		rng := rand.New(rand.NewPCG(1, 2))
		diff := math.NaN()
		check := func(what string) {
			t.Helper()
			if !p.blocksValid(s.x) {
				t.Fatalf("arity %d, %s: a block does not have exactly one true atom: %v", arity, what, s.x)
			}
			x := append([]int32(nil), s.x...)
			p.setHidden(x)
			obj, cost := Score(g, x)
			h, soft := s.costNow()
			if (h == 0) != !math.IsInf(obj, -1) {
				t.Fatalf("arity %d, %s: %d broken hard factors, graph score %v", arity, what, h, obj)
			}
			if h > 0 {
				return
			}
			if math.IsNaN(diff) {
				diff = cost - soft
			} else if math.Abs(cost-soft-diff) > 1e-9 {
				t.Fatalf("arity %d, %s: graph cost %v, search cost %v: differ by %v, before by %v", arity, what, cost, soft, cost-soft, diff)
			}
		}
		for w := range 200 {
			s.randomise(rng)
			s.reset()
			check("random world")
			for range 50 {
				if len(s.hardL)+len(s.softL) == 0 {
					break
				}
				s.step(rng, 0.3)
				// the incremental state equals a fresh one
				h, soft := s.costNow()
				s.reset()
				if h2, soft2 := s.costNow(); h != h2 || math.Abs(soft-soft2) > 1e-9 {
					t.Fatalf("arity %d, world %d: incremental cost (%d, %v), recomputed (%d, %v)", arity, w, h, soft, h2, soft2)
				}
				check("after a step")
			}
		}
	}
}

// The search with blocks and stars finds the MAP world of an MLN with
// mutual exclusion and large clauses: on the grounding with blocks and
// clauses as stars (MaxArity 2), some as tables (3), all as tables (4,
// checked by brute force), on the whole graph and per component, the objectives plus
// the groundings' offsets agree.
func TestStarsMAP(t *testing.T) {
	g3 := groundStarsIn(t, 4, "A, B, C")
	ex := brute.Solve(g3.Graph, nil)
	want := ex.LogMAP + g3.LogZOffset
	for _, arity := range []int{2, 3, 4} {
		gr := groundStarsIn(t, arity, "A, B, C")
		for _, whole := range []bool{false, true} {
			// 10 tries of 5000 flips: with 3 of 3000, 1 to 4 seeds of 40
			// end a few tenths short (measured), with or without stars.
			for seed := uint64(1); seed <= 5; seed++ {
				res, err := Solve(context.Background(), gr.Graph, nil, Config{Tries: 10, MaxFlips: 5000, Whole: whole, ExactLimit: -1, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Objective + gr.LogZOffset; math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("arity %d, whole %v, seed %d: objective %v, brute force %v", arity, whole, seed, got, want)
				}
				if res.Blocks != 2 || res.Stars == 0 && arity == 2 {
					t.Fatalf("arity %d: %d blocks, %d stars", arity, res.Blocks, res.Stars)
				}
			}
		}
	}
}

// A large conjunction of positive weight against weak unit clauses: its
// MAP (every atom true) is 13 flips away from the all-false world, each
// flip costing a little until the last; the move that clears a count
// factor's literals at once (what changing the star's auxiliary variable
// did) finds it.
func TestClearMove(t *testing.T) {
	m, err := mlnfile.Parse("c.mln", []byte("t = {1,2,3,4,5,6,7,8,9,10,11,12,13}\nP(t)\n0.5 FORALL y P(y)\n0.01 !P(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	db, _ := mlnfile.ReadDB(strings.NewReader(""), "c.db", m)
	gr, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []string{"P"}, ExactMax: true})
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 10; seed++ {
		res, err := Solve(context.Background(), gr.Graph, nil, Config{Tries: 1, MaxFlips: 2000, Noise: 0.5, ExactLimit: -1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stars != 1 {
			t.Fatalf("%d stars, want 1", res.Stars)
		}
		for v := range gr.NumAtoms {
			if res.X[v] != 1 {
				t.Fatalf("seed %d: world %v, want every atom true", seed, res.X)
			}
		}
	}
}
