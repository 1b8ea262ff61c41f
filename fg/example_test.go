package fg_test

import (
	"fmt"

	"github.com/lifted-dev/lifted/fg"
)

// Build a chain of three binary variables with a prior on the first and
// two identical pairwise factors, which share one table.
func Example() {
	b := fg.NewBuilder()
	x := b.AddVars(3, 2) // variables 0, 1, 2 with two states each
	if _, err := b.AddFactor([]int32{x}, []float64{1, 3}); err != nil {
		panic(err)
	}
	// Tables list entries with the last scope variable fastest:
	// (0,0) (0,1) (1,0) (1,1).
	pair := []float64{4, 1, 2, 3}
	for _, scope := range [][]int32{{x, x + 1}, {x + 1, x + 2}} {
		if _, err := b.AddFactor(scope, pair); err != nil {
			panic(err)
		}
	}
	g := b.Build()

	fmt.Println("variables:", g.NumVars(), "factors:", g.NumFactors(), "edges:", g.NumEdges())
	fmt.Println("tables:", len(g.Tables), "table ids:", g.FactorTable)
	fmt.Println("scope of factor 2:", g.Scope(2), "degree of variable 1:", g.Degree(1))

	// The entry of factor 1 at x0 = 1, x1 = 0.
	t := g.Table(1)
	s := t.Strides()
	fmt.Println("dims:", t.Dims, "strides:", s, "entry (1,0):", t.Values[1*s[0]+0*s[1]])
	// Output:
	// variables: 3 factors: 3 edges: 5
	// tables: 2 table ids: [0 1 1]
	// scope of factor 2: [1 2] degree of variable 1: 2
	// dims: [2 2] strides: [2 1] entry (1,0): 2
}

// Split a graph into connected components given evidence: observing the
// middle variable of a chain cuts it in two.
func ExampleGraph_Components() {
	b := fg.NewBuilder()
	b.AddVars(4, 2)
	pair := []float64{2, 1, 1, 2}
	for _, scope := range [][]int32{{0, 1}, {1, 2}, {2, 3}} {
		if _, err := b.AddFactor(scope, pair); err != nil {
			panic(err)
		}
	}
	g := b.Build()
	ev := fg.Evidence{-1, 1, -1, -1} // x1 = 1
	c, err := g.Components(ev)
	if err != nil {
		panic(err)
	}
	for i := range c.Len() {
		fmt.Println("component", i, "variables", c.CompVars(i), "factors", c.CompFactors(i))
	}
	fmt.Println("sizes:", c.Histogram())
	sub := g.Subgraph(c, 0, ev) // x0 alone, its factor sliced at x1 = 1
	fmt.Println("component 0 as a graph:", sub.NumVars(), "variable, table", sub.Table(0).Values)
	// Output:
	// component 0 variables [0] factors [0]
	// component 1 variables [2 3] factors [1 2]
	// sizes: [{1 1} {2 1}]
	// component 0 as a graph: 1 variable, table [1 2]
}
