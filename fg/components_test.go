package fg_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// sparseGraph is a random graph of many variables and few factors (so
// that it falls apart), with zeros, constant factors and evidence.
func sparseGraph(r *rand.Rand) (*fg.Graph, fg.Evidence) {
	b := fg.NewBuilder()
	n := 2 + r.IntN(20)
	for range n {
		b.AddVar(1 + r.IntN(3))
	}
	for range r.IntN(n + 2) {
		k := r.IntN(4)
		if k > n {
			k = n
		}
		perm := r.Perm(n)[:k]
		scope := make([]int32, k)
		size := 1
		for i, v := range perm {
			scope[i] = int32(v)
			size *= int(b.Card(int32(v)))
		}
		vals := make([]float64, size)
		for i := range vals {
			if r.IntN(6) > 0 {
				vals[i] = math.Exp(r.NormFloat64())
			}
		}
		if _, err := b.AddFactor(scope, vals); err != nil {
			panic(err)
		}
	}
	g := b.Build()
	ev := fg.NoEvidence(n)
	for v := range ev {
		if r.IntN(4) == 0 {
			ev[v] = int32(r.IntN(int(g.Card[v])))
		}
	}
	return g, ev
}

// bfsComponents labels the unobserved variables by breadth-first search
// over shared factors (quadratic, independent of the union-find), numbering
// components in the order of their smallest variable.
func bfsComponents(g *fg.Graph, ev fg.Evidence) []int32 {
	n := g.NumVars()
	lab := make([]int32, n)
	for v := range lab {
		lab[v] = -1
	}
	next := int32(0)
	for s := range n {
		if ev[s] >= 0 || lab[s] >= 0 {
			continue
		}
		lab[s] = next
		queue := []int{s}
		for len(queue) > 0 {
			u := queue[0]
			queue = queue[1:]
			for f := range g.NumFactors() {
				sc := g.Scope(f)
				if !slices.Contains(sc, int32(u)) {
					continue
				}
				for _, w := range sc {
					if ev[w] < 0 && lab[w] < 0 {
						lab[w] = next
						queue = append(queue, int(w))
					}
				}
			}
		}
		next++
	}
	return lab
}

func score(g *fg.Graph, x []int32) float64 {
	s := 0.0
	for f := range g.NumFactors() {
		t := g.Table(f)
		k := 0
		for p, v := range g.Scope(f) {
			k = k*int(t.Dims[p]) + int(x[v])
		}
		s += math.Log(t.Values[k])
	}
	return s
}

// Components agrees with breadth-first search; its CSR lists every
// unobserved variable once and every factor with one in the component of
// its variables; the histogram counts the components; and the
// conditioned subgraphs' scores plus the constant factors' score are the
// graph's score of every world.
func TestComponents(t *testing.T) {
	multi := 0
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 27))
		g, ev := sparseGraph(r)
		c, err := g.Components(ev)
		if err != nil {
			t.Fatal(err)
		}
		if want := bfsComponents(g, ev); !slices.Equal(c.Of, want) {
			t.Fatalf("seed %d: components %v, breadth-first %v", seed, c.Of, want)
		}
		if c.Len() > 1 {
			multi++
		}
		total := 0
		for i := range c.Len() {
			vars := c.CompVars(i)
			total += len(vars)
			if !slices.IsSorted(vars) {
				t.Fatalf("seed %d: component %d variables %v not sorted", seed, i, vars)
			}
			for _, v := range vars {
				if c.Of[v] != int32(i) {
					t.Fatalf("seed %d: variable %d listed in %d, Of %d", seed, v, i, c.Of[v])
				}
			}
			for _, f := range c.CompFactors(i) {
				in := false
				for _, v := range g.Scope(int(f)) {
					if ev[v] < 0 {
						in = true
						if c.Of[v] != int32(i) {
							t.Fatalf("seed %d: factor %d in component %d has variable %d of %d", seed, f, i, v, c.Of[v])
						}
					}
				}
				if !in {
					t.Fatalf("seed %d: factor %d without unobserved variables in component %d", seed, f, i)
				}
			}
		}
		nf := len(c.Factors) + len(c.Constant)
		if total != len(c.Vars) || nf != g.NumFactors() {
			t.Fatalf("seed %d: %d variables, %d factors listed", seed, total, nf)
		}
		hc := 0
		for _, b := range c.Histogram() {
			hc += b.Count
		}
		if hc != c.Len() {
			t.Fatalf("seed %d: histogram counts %d of %d components", seed, hc, c.Len())
		}
		subs := make([]*fg.Graph, c.Len())
		for i := range subs {
			subs[i] = g.Subgraph(c, i, ev)
			if err := subs[i].Validate(); err != nil {
				t.Fatal(err)
			}
		}
		for range 20 {
			x := make([]int32, g.NumVars())
			for v := range x {
				if ev[v] >= 0 {
					x[v] = ev[v]
				} else {
					x[v] = int32(r.IntN(int(g.Card[v])))
				}
			}
			sum := g.ConstantLogScore(c, ev)
			for i, sg := range subs {
				vars := c.CompVars(i)
				y := make([]int32, len(vars))
				for j, v := range vars {
					y[j] = x[v]
				}
				sum += score(sg, y)
			}
			want := score(g, x)
			if !(sum == want || math.Abs(sum-want) < 1e-9*(1+math.Abs(want))) {
				t.Fatalf("seed %d: components score %v, graph %v", seed, sum, want)
			}
		}
	}
	if multi < 100 {
		t.Fatalf("only %d graphs had several components", multi)
	}
}

func TestComponentsEvidenceLength(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	g := b.Build()
	if _, err := g.Components(fg.Evidence{-1}); err == nil {
		t.Fatal("no error for evidence of the wrong length")
	}
	c, err := g.Components(nil)
	if err != nil || c.Len() != 2 || !slices.Equal(c.Histogram(), []fg.SizeCount{{Size: 1, Count: 2}}) {
		t.Fatalf("two isolated variables: %+v %v", c, err)
	}
}
