package wfomc_test

import (
	"fmt"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/wfomc"
)

// Friends and smokers at a million people, with two queries.
func Example() {
	m, err := mlnfile.Parse("smokers.mln", []byte(`person = {Anna, Bob}
Smokes(person)
Friends(person, person)
2 Friends(x,y) ^ Smokes(x) => Smokes(y)
`))
	if err != nil {
		panic(err)
	}
	q1, _ := wfomc.ParseQuery(m, "Friends(Anna,Bob)")
	q2, _ := wfomc.ParseQuery(m, "Smokes(Anna)")
	mod, err := wfomc.Compile(m, &wfomc.Options{Queries: []wfomc.Query{q1, q2}})
	if err != nil {
		panic(err)
	}
	for _, n := range []int64{2, 1000000} {
		res, err := mod.Evaluate([]float64{2}, map[string]int64{"person": n})
		if err != nil {
			panic(err)
		}
		fmt.Printf("n = %d: log Z = %.6g, E[true groundings] = %.6g, P(Friends(Anna,Bob)) = %.4f, P(Smokes(Anna)) = %.4f\n",
			n, res.LogZ, res.ExpectedCounts[0], res.Marginals[0], res.Marginals[1])
	}
	// Output:
	// n = 2: log Z = 11.9153, E[true groundings] = 3.95684, P(Friends(Anna,Bob)) = 0.4311, P(Smokes(Anna)) = 0.5000
	// n = 1000000: log Z = 2.69315e+12, E[true groundings] = 1e+12, P(Friends(Anna,Bob)) = 0.5000, P(Smokes(Anna)) = 0.5000
}
