package dynamic_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/lifted-dev/lifted/dynamic"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// A hidden-Markov-shaped DMLN: it rains with persistence, umbrellas are
// observed. Filtering answers P(Rain(t) | umbrellas up to t) step by step.
func Example() {
	src := `time = {0,...,3}
Rain(time)
Umbrella(time)
1.5 Rain(t) <=> Rain(t++)
2 Rain(t) => Umbrella(t)
-1 Umbrella(t)
`
	m, err := mlnfile.Parse("rain.mln", []byte(src))
	if err != nil {
		panic(err)
	}
	read := func(static *mln.MLN) (*mln.DB, error) {
		return mlnfile.ReadDB(strings.NewReader("Umbrella(1)\nUmbrella(2)\n!Umbrella(3)\n"), "rain.db", static)
	}
	md, err := dynamic.Unroll(context.Background(), m, read, dynamic.Options{Horizon: -1, Query: []string{"Rain"}})
	if err != nil {
		panic(err)
	}
	err = md.Filter(context.Background(), dynamic.DefaultRunOptions(), func(s dynamic.Step) error {
		for i, p := range s.Marginals {
			fmt.Printf("%s %.4f\n", md.Queries[i].Name, p)
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// Rain(0) 0.1171
	// Rain(1) 0.1814
	// Rain(2) 0.2725
	// Rain(3) 0.0964
}
