package gen

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
)

// SmallShape sets the ranges of SmallGraph.
type SmallShape struct {
	Vars      int     // 3 + IntN(Vars) variables of 2 or 3 states
	Factors   int     // 2 + IntN(Factors) factors over one to three variables
	ZeroOneIn int     // an entry is 0 with probability 1/ZeroOneIn
	Scale     float64 // other entries are exp(Scale·N(0,1))
	Evidence  bool    // observe one variable half the time
}

// SmallGraph returns a small random graph with zero entries for tests
// against enumeration (samplers, MAP search), and its evidence (nil unless
// s.Evidence).
func SmallGraph(r *rand.Rand, s SmallShape) (*fg.Graph, fg.Evidence) {
	b := fg.NewBuilder()
	n := 3 + r.IntN(s.Vars)
	for range n {
		b.AddVar(2 + r.IntN(2)*r.IntN(2))
	}
	for range 2 + r.IntN(s.Factors) {
		k := 1 + r.IntN(3)
		perm := r.Perm(n)[:k]
		scope := make([]int32, k)
		size := 1
		for i, v := range perm {
			scope[i] = int32(v)
			size *= int(b.Card(int32(v)))
		}
		vals := make([]float64, size)
		for i := range vals {
			if r.IntN(s.ZeroOneIn) > 0 {
				vals[i] = math.Exp(s.Scale * r.NormFloat64())
			}
		}
		must(b.AddFactor(scope, vals))
	}
	g := b.Build()
	if !s.Evidence {
		return g, nil
	}
	ev := fg.NoEvidence(g.NumVars())
	if r.IntN(2) == 0 {
		v := r.IntN(g.NumVars())
		ev[v] = int32(r.IntN(int(g.Card[v])))
	}
	return g, ev
}

// MLNShape sets the ranges of SmallMLN.
type MLNShape struct {
	Formulas  int  // 3 + IntN(Formulas) formulas
	HardOneIn int  // a formula is hard with probability 1/HardOneIn
	FirstHard bool // the first formula is hard
}

// SmallMLN writes a small random MLN over one type of 2 or 3 constants
// (predicates P(t), Q(t), R(t, t); formulas of two or three literals joined
// by v, ^, =>, <=>; soft weights in [-2, 2]) and a .db that fixes a few P
// atoms, for tests against enumeration.
func SmallMLN(r *rand.Rand, s MLNShape) (src, db string) {
	consts := []string{"A", "B", "C"}[:2+r.IntN(2)]
	var b strings.Builder
	fmt.Fprintf(&b, "t = {%s}\nP(t)\nQ(t)\nR(t, t)\n", strings.Join(consts, ", "))
	lit := func() string {
		s := []string{"P(x)", "Q(x)", "P(y)", "Q(y)", "R(x, y)", "R(y, x)"}[r.IntN(6)]
		if r.IntN(2) == 0 {
			s = "!" + s
		}
		return s
	}
	ops := []string{" v ", " ^ ", " => ", " <=> "}
	for i := range 3 + r.IntN(s.Formulas) {
		f := lit()
		for range 1 + r.IntN(2) {
			f += ops[r.IntN(len(ops))] + lit()
		}
		if (s.FirstHard && i == 0) || r.IntN(s.HardOneIn) == 0 {
			fmt.Fprintf(&b, "%s.\n", f)
		} else {
			fmt.Fprintf(&b, "%.1f %s\n", float64(r.IntN(41)-20)/10, f)
		}
	}
	var d strings.Builder
	for _, c := range consts {
		if r.IntN(3) == 0 {
			fmt.Fprintf(&d, "%sP(%s)\n", []string{"", "!"}[r.IntN(2)], c)
		}
	}
	return b.String(), d.String()
}

// GroundSmallMLN grounds a SmallMLN (src, db) with P, Q and R queried and
// ground formulas over more than maxArity unknown atoms given auxiliary
// variables (0: the grounder's default; a formula that cannot take one is
// grounded with the default instead). It returns a nil graph when the
// evidence contradicts a hard formula or the grounding has no variable or
// more than maxVars, too many to enumerate.
func GroundSmallMLN(src, db string, maxArity, maxVars int) (*fg.Graph, error) {
	m, err := mlnfile.Parse("r.mln", []byte(src))
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, src)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "r.db", m)
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, db)
	}
	gr, err := ground.Ground(context.Background(), m, d, ground.Options{Query: []string{"P", "Q", "R"}, MaxArity: maxArity})
	if err != nil && maxArity > 0 && strings.Contains(err.Error(), "too large for a table") {
		return GroundSmallMLN(src, db, 0, maxVars) // only clauses and conjunctions get auxiliary variables
	}
	if errors.Is(err, ground.ErrContradiction) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, src)
	}
	if gr.Graph.NumVars() > maxVars || gr.Graph.NumVars() == 0 {
		return nil, nil
	}
	return gr.Graph, nil
}

// GroundMLN parses the MLN src and evidence db and grounds them with the
// given query predicates open, returning the factor graph.
func GroundMLN(src, db string, query ...string) (*fg.Graph, error) {
	m, err := mlnfile.Parse("m.mln", []byte(src))
	if err != nil {
		return nil, err
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "m.db", m)
	if err != nil {
		return nil, err
	}
	gr, err := ground.Ground(context.Background(), m, d, ground.Options{Query: query})
	if err != nil {
		return nil, err
	}
	return gr.Graph, nil
}
