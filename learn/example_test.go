package learn_test

import (
	"fmt"
	"math"
	"os"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/mln"
)

// Learn the weights of two formulas from a small database by exact lifted
// weight learning, and write the learned MLN. People are independent here,
// so the maximum-likelihood weights are known: of the 5 people, 1 smokes
// with cancer, 3 smoke without and 1 does not smoke, so e^w2 = 1/3 and
// e^w1 = 2 (the prior σ = 100 moves them by less than 10^−4).
func Example() {
	m, err := mlnfile.Parse("smoking.mln", []byte(`Smokes(person)
Cancer(person)
Smokes(x)
Smokes(x) => Cancer(x)
`))
	if err != nil {
		panic(err)
	}
	db := mln.NewDB(m)
	for _, p := range []string{"Anna", "Bob", "Chris", "Dan"} {
		db.AddAtom("Smokes", []string{p}, mln.True)
	}
	db.AddAtom("Cancer", []string{"Anna"}, mln.True)
	db.AddAtom("Smokes", []string{"Eve"}, mln.False)
	data, err := learn.CountDB(m, db, "example")
	if err != nil {
		panic(err)
	}
	fmt.Println("counts in the data:", data.Counts, "people:", data.Sizes["person"])
	res, err := learn.LWL(m, []*learn.Data{data}, nil)
	if err != nil {
		panic(err)
	}
	// log(1/5) + 3·log(3/5) + log(1/10)
	fmt.Printf("log-likelihood %.4f\n", res.LogLik)
	learn.WriteMLN(os.Stdout, m, []float64{math.Round(res.Weights[0]*1e3) / 1e3, math.Round(res.Weights[1]*1e3) / 1e3}, "")
	// Output:
	// counts in the data: [4 2] people: 5
	// log-likelihood -5.4445
	// Smokes(person)
	// Cancer(person)
	//
	// 0.693 Smokes(x)
	// -1.099 Smokes(x) => Cancer(x)
}
