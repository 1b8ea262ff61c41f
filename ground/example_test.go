package ground_test

import (
	"context"
	"fmt"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
)

// Ground friends and smokers for two people. Friends has evidence and is
// not queried, so it is closed-world and every ground formula mentioning a
// false Friends atom vanishes; Smokes(Anna) is given, so the atoms left
// open are Smokes(Bob) and the two Cancer atoms. The ground formulas that
// vanish, and the scaling of each factor's table to a largest entry of 1,
// go to LogZOffset: 2·1.5 + 4·1.1 = 7.4.
func Example() {
	m, err := mlnfile.Parse("smokers.mln", []byte(`person = {Anna, Bob}
Friends(person, person)
Smokes(person)
Cancer(person)

1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) => (Smokes(x) <=> Smokes(y))
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	db, err := mlnfile.ReadDB(strings.NewReader("Friends(Anna, Bob)\nFriends(Bob, Anna)\nSmokes(Anna)\n"), "smokers.db", m)
	if err != nil {
		fmt.Println(err)
		return
	}
	gr, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []string{"Smokes", "Cancer"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ground atoms:", gr.NumAtoms, "ground formulas:", gr.NumFormulas)
	fmt.Println("graph: variables", gr.Graph.NumVars(), "factors", gr.Graph.NumFactors())
	for v := int32(0); v < int32(gr.NumAtoms); v++ {
		fmt.Printf("variable %d: %s\n", v, gr.AtomName(v))
	}
	for f := 0; f < gr.Graph.NumFactors(); f++ {
		fmt.Println("factor", f, "over", gr.Graph.Scope(f))
	}
	for _, s := range gr.Formulas {
		fmt.Printf("%-45s groundings %g, kept %d, true by evidence %g\n", s.Text, s.Groundings, s.Kept, s.TrueByEv)
	}
	v, truth := gr.Var(m.PredIndex("Smokes"), []int{0})
	fmt.Println("Smokes(Anna):", v, truth)
	fmt.Printf("log Z offset: %.4f\n", gr.LogZOffset)
	// Output:
	// ground atoms: 3 ground formulas: 4
	// graph: variables 3 factors 4
	// variable 0: Smokes(Bob)
	// variable 1: Cancer(Anna)
	// variable 2: Cancer(Bob)
	// factor 0 over [1]
	// factor 1 over [0 2]
	// factor 2 over [0]
	// factor 3 over [0]
	// Smokes(x) => Cancer(x)                        groundings 2, kept 2, true by evidence 0
	// Friends(x, y) => (Smokes(x) <=> Smokes(y))    groundings 4, kept 2, true by evidence 2
	// Smokes(Anna): -1 true
	// log Z offset: 7.4000
}
