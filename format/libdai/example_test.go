package libdai_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/lifted-dev/lifted/format/libdai"
)

// Read a factor graph in libDAI's .fg format and write it back. Variables
// are numbered by label (label 1 is variable 0, label 4 variable 1), and
// each table is transposed to package fg's order, last scope variable
// fastest: libDAI's entry 3 of the second factor (label 4 in state 0,
// label 1 in state 1) is entry 1 of the fg table.
func Example() {
	m, err := libdai.Read(strings.NewReader(`# two factors
2

1
1
2
2
0 0.4
1 0.6

2
4 1
3 2
3
0 0.5
1 2
3 1e-3
`), "tiny.fg")
	if err != nil {
		fmt.Println(err)
		return
	}
	g := m.Graph
	fmt.Println("variables:", g.NumVars(), "labels:", m.Labels, "cardinalities:", g.Card)
	fmt.Println("factors:", g.NumFactors(), "edges:", g.NumEdges())
	fmt.Println("factor 1: scope", g.Scope(1), "dims", g.Table(1).Dims, "values", g.Table(1).Values)

	if err := libdai.Write(os.Stdout, m); err != nil {
		fmt.Println(err)
	}
	// Output:
	// variables: 2 labels: [1 4] cardinalities: [2 3]
	// factors: 2 edges: 3
	// factor 1: scope [1 0] dims [3 2] values [0.5 0.001 2 0 0 0]
	// 2
	//
	// 1
	// 1
	// 2
	// 2
	// 0 0.4
	// 1 0.6
	//
	// 2
	// 4 1
	// 3 2
	// 3
	// 0 0.5
	// 1 2
	// 3 0.001
}
