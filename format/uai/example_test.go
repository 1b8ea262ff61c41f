package uai_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/uai"
)

// Read a small model and its evidence, compute the marginals by summing
// over all assignments, and write them in the MAR format.
func Example() {
	m, err := uai.Read(strings.NewReader(`MARKOV
3
2 2 3
3
1 0
2 0 1
2 1 2

2
 1 3
4
 3 1
 1 3
6
 1 2 4
 1 4 2
`), "tiny.uai")
	if err != nil {
		fmt.Println(err)
		return
	}
	g := m.Graph
	fmt.Println(m.Type, "variables:", g.NumVars(), "cardinalities:", g.Card, "factors:", g.NumFactors())

	// One observed variable: variable 2 is in state 0.
	ev, err := uai.ReadEvidence(strings.NewReader("1 2 0"), "tiny.uai.evid", g)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("evidence:", ev)

	mar, z := bruteForce(g, ev)
	fmt.Println("Z given the evidence:", z)
	if err := uai.WriteMAR(os.Stdout, mar); err != nil {
		fmt.Println(err)
	}
	// Output:
	// MARKOV variables: 3 cardinalities: [2 2 3] factors: 3
	// evidence: [-1 -1 0]
	// Z given the evidence: 16
	// MAR
	// 3 2 0.25 0.75 2 0.375 0.625 3 1 0 0
}

// bruteForce returns the marginals of every variable of g given ev, and
// the partition function, by enumerating all assignments consistent with ev.
func bruteForce(g *fg.Graph, ev fg.Evidence) ([][]float64, float64) {
	n := g.NumVars()
	mar := make([][]float64, n)
	for v := range mar {
		mar[v] = make([]float64, g.Card[v])
	}
	x := make([]int32, n)
	for v := range x {
		if ev[v] >= 0 {
			x[v] = ev[v]
		}
	}
	z := 0.0
	for {
		w := 1.0
		for f := 0; f < g.NumFactors(); f++ {
			t, i := g.Table(f), 0
			for p, v := range g.Scope(f) {
				i = i*int(t.Dims[p]) + int(x[v])
			}
			w *= t.Values[i]
		}
		z += w
		for v := range x {
			mar[v][x[v]] += w
		}
		// Next assignment, the last variable fastest, skipping observed ones.
		v := n - 1
		for ; v >= 0; v-- {
			if ev[v] >= 0 {
				continue
			}
			if x[v]++; x[v] < g.Card[v] {
				break
			}
			x[v] = 0
		}
		if v < 0 {
			break
		}
	}
	for _, row := range mar {
		for k := range row {
			row[k] /= z
		}
	}
	return mar, z
}
