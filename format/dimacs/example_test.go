package dimacs_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/dimacs"
)

// Read a formula in DIMACS CNF, turn it into a factor graph whose partition
// function is the number of models, count them by enumeration, and write
// the formula back.
func Example() {
	c, err := dimacs.Read(strings.NewReader(`c (x1 or not x2) and (x2 or x3)
p cnf 3 2
1 -2 0
2 3 0
`), "tiny.cnf")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("variables:", c.NumVars, "clauses:", c.Clauses)

	g, err := cnf.ToGraph(c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("graph variables:", g.NumVars(), "factors:", g.NumFactors(), "edges:", g.NumEdges())
	neg, ok := fg.ClauseSigns(g.Table(0))
	fmt.Println("factor 0: scope", g.Scope(0), "table", g.Table(0).Values, "negated", neg, ok)

	// Z = Σ over all assignments of the product of the tables.
	models := 0.0
	for x := 0; x < 1<<g.NumVars(); x++ {
		w := 1.0
		for f := 0; f < g.NumFactors(); f++ {
			i := 0
			for _, v := range g.Scope(f) {
				i = 2*i + x>>v&1
			}
			w *= g.Table(f).Values[i]
		}
		models += w
	}
	fmt.Println("models:", models)

	if err := dimacs.Write(os.Stdout, c); err != nil {
		fmt.Println(err)
	}
	// Output:
	// variables: 3 clauses: [[1 -2] [2 3]]
	// graph variables: 3 factors: 2 edges: 4
	// factor 0: scope [0 1] table [1 0 1 1] negated [false true] true
	// models: 4
	// p cnf 3 2
	// 1 -2 0
	// 2 3 0
}
