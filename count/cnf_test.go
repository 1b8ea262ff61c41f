package count

import (
	"context"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/cnf"
)

// extensions counts the models of c that agree with assign, by brute force.
func extensions(c *cnf.CNF, assign []int8) int64 {
	fixed := &cnf.CNF{NumVars: c.NumVars, Clauses: slices.Clone(c.Clauses)}
	for v, a := range assign {
		switch a {
		case 1:
			fixed.Clauses = append(fixed.Clauses, []int32{int32(v + 1)})
		case -1:
			fixed.Clauses = append(fixed.Clauses, []int32{-int32(v + 1)})
		}
	}
	return bruteForce(fixed)
}

func TestCondition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 300 {
		nv := 1 + r.IntN(14)
		c := randomCNF(r, nv, r.IntN(4*nv))
		assign := make([]int8, nv)
		for v := range assign {
			assign[v] = int8(r.IntN(3) - 1)
		}
		res, err := Condition(c, assign)
		if err != nil {
			t.Fatal(err)
		}
		if err := res.CNF.Validate(); err != nil {
			t.Fatalf("case %d: residual invalid: %v", i, err)
		}
		want := extensions(c, assign)
		got, err := Exact(context.Background(), res.CNF)
		if err != nil {
			t.Fatal(err)
		}
		if !got.IsInt64() || got.Int64() != want {
			t.Fatalf("case %d: residual has %v models, assignment has %d extensions", i, got, want)
		}
		if res.Unsat && want != 0 {
			t.Fatalf("case %d: Unsat reported but %d extensions", i, want)
		}
		free := 0
		for v, a := range assign {
			if a == 0 && !occurs(res.CNF, res.Vars, int32(v+1)) {
				free++
			}
		}
		if res.Free != free {
			t.Fatalf("case %d: Free = %d, want %d", i, res.Free, free)
		}
	}
}

func occurs(c *cnf.CNF, vars []int32, orig int32) bool {
	for _, cl := range c.Clauses {
		for _, l := range cl {
			if vars[max(l, -l)-1] == orig {
				return true
			}
		}
	}
	return false
}

func TestConditionExample(t *testing.T) {
	c := &cnf.CNF{NumVars: 5, Clauses: [][]int32{{1, 2}, {-1, 3, 4}, {2, -5}}}
	res, err := Condition(c, []int8{1, 0, -1, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Vars, []int32{2, 4, 5}) {
		t.Errorf("Vars = %v", res.Vars)
	}
	want := [][]int32{{2}, {1, -3}}
	if len(res.CNF.Clauses) != len(want) || !slices.Equal(res.CNF.Clauses[0], want[0]) || !slices.Equal(res.CNF.Clauses[1], want[1]) {
		t.Errorf("Clauses = %v, want %v", res.CNF.Clauses, want)
	}
	if res.Free != 0 || res.Unsat {
		t.Errorf("Free %d Unsat %v", res.Free, res.Unsat)
	}
	res, err = Condition(c, []int8{-1, -1, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Unsat {
		t.Error("falsified clause (1 2) not reported")
	}
	if _, err := Condition(c, []int8{1}); err == nil {
		t.Error("short assignment: want an error")
	}
	if _, err := Condition(c, []int8{2, 0, 0, 0, 0}); err == nil {
		t.Error("value 2: want an error")
	}
}

// dpll counts models by plain branching with unit propagation and no
// components, learning or caching: an independent reference for mid-size
// formulas.
func dpll(c *cnf.CNF) *big.Int {
	val := make([]int8, c.NumVars+1)
	return dpllNode(c.Clauses, val, c.NumVars)
}

func dpllNode(clauses [][]int32, val []int8, unassigned int) *big.Int {
	var pick int32
	short := 1 << 30
	for _, cl := range clauses {
		free, sat := int32(0), false
		n := 0
		for _, l := range cl {
			x := val[max(l, -l)]
			if x == 0 {
				free = l
				n++
			} else if (x > 0) == (l > 0) {
				sat = true
				break
			}
		}
		switch {
		case sat:
		case n == 0:
			return new(big.Int)
		case n < short:
			short, pick = n, free
		}
	}
	if pick == 0 {
		return new(big.Int).Lsh(big.NewInt(1), uint(unassigned))
	}
	v := max(pick, -pick)
	total := new(big.Int)
	for _, x := range []int8{1, -1} {
		if short == 1 && (x > 0) != (pick > 0) {
			continue // unit clause: only the satisfying value
		}
		val[v] = x
		total.Add(total, dpllNode(clauses, val, unassigned-1))
		val[v] = 0
	}
	return total
}

// randomKCNF draws nc clauses of k distinct variables each.
func randomKCNF(r *rand.Rand, nv, nc, k int) *cnf.CNF {
	c := &cnf.CNF{NumVars: nv}
	for range nc {
		cl := make([]int32, 0, k)
		for len(cl) < k {
			v := int32(1 + r.IntN(nv))
			if slices.Contains(cl, v) || slices.Contains(cl, -v) {
				continue
			}
			if r.IntN(2) == 0 {
				v = -v
			}
			cl = append(cl, v)
		}
		c.Clauses = append(c.Clauses, cl)
	}
	return c
}

// structuredCNF joins a few random blocks by a few clauses, so that
// decomposition, caching and learning all take part.
func structuredCNF(r *rand.Rand) *cnf.CNF {
	c := &cnf.CNF{}
	blocks := 1 + r.IntN(3)
	for range blocks {
		n := 6 + r.IntN(8)
		b := randomKCNF(r, n, n+r.IntN(3*n), 2+r.IntN(2))
		for _, cl := range b.Clauses {
			shifted := make([]int32, len(cl))
			for i, l := range cl {
				if l > 0 {
					shifted[i] = l + int32(c.NumVars)
				} else {
					shifted[i] = l - int32(c.NumVars)
				}
			}
			c.Clauses = append(c.Clauses, shifted)
		}
		c.NumVars += n
	}
	for range r.IntN(4) {
		cl := []int32{int32(1 + r.IntN(c.NumVars)), -int32(1 + r.IntN(c.NumVars)), int32(1 + r.IntN(c.NumVars))}
		c.Clauses = append(c.Clauses, cl)
	}
	return c
}

// mixedCNF draws the i-th formula of the DPLL comparison: random 3-CNF
// near the satisfiability threshold, random mixed-length CNF, or joined
// blocks.
func mixedCNF(r *rand.Rand, i int) *cnf.CNF {
	switch i % 3 {
	case 0:
		nv := 30 + r.IntN(15)
		return randomKCNF(r, nv, int(float64(nv)*(3.5+0.8*r.Float64())), 3)
	case 1:
		nv := 25 + r.IntN(20)
		return randomCNF(r, nv, int(float64(nv)*(2.5+2*r.Float64())))
	}
	return structuredCNF(r)
}

func TestExactAgainstDPLL(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ctx := context.Background()
	n := 450
	if testing.Short() {
		n = 120
	}
	for i := range n {
		c := mixedCNF(r, i)
		want := dpll(c)
		for _, opts := range []Options{{}, {NoSATCheck: true, noProbe: true}, {MaxCacheBytes: 2000}} {
			got, _, err := ExactWithOptions(ctx, c, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got.Cmp(want) != 0 {
				t.Fatalf("case %d (%+v): Exact = %v, DPLL %v\n%v", i, opts, got, want, c)
			}
		}
	}
}
