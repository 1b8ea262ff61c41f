package cnf_test

import (
	"fmt"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/fg"
)

// A formula becomes a factor graph of 0/1 clause tables (its models are the
// assignments of weight 1), and FromGraph reads the clauses back.
func Example() {
	f := &cnf.CNF{NumVars: 3, Clauses: [][]int32{{1, -2}, {2, 3}}}
	g, err := cnf.ToGraph(f)
	if err != nil {
		fmt.Println(err)
		return
	}
	neg, ok := fg.ClauseSigns(g.Table(0))
	fmt.Println("factors:", g.NumFactors(), "clause 0 negated:", neg, ok)
	models := 0
	for x := 0; x < 1<<3; x++ { // Z of the graph = number of models
		w := 1.0
		for k := 0; k < g.NumFactors(); k++ {
			i := 0
			for _, v := range g.Scope(k) {
				i = 2*i + (x>>v)&1
			}
			w *= g.Table(k).Values[i]
		}
		models += int(w)
	}
	fmt.Println("models:", models)
	back, err := cnf.FromGraph(g)
	fmt.Println(back.Clauses, err)
	// Output:
	// factors: 2 clause 0 negated: [false true] true
	// models: 4
	// [[1 -2] [2 3]] <nil>
}
