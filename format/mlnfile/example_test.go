package mlnfile_test

import (
	"fmt"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// Parse reads Alchemy's .mln text into the model (package mln); ReadDB
// reads evidence against it; errors carry file:line:column.
func Example() {
	m, err := mlnfile.Parse("smokers.mln", []byte(`
person = {Anna, Bob}
Smokes(person)
Cancer(person)
1.5 Smokes(x) => Cancer(x)
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(m.Preds), "predicates;", m.Formulas[0].String())
	db, err := mlnfile.ReadDB(strings.NewReader("Smokes(Anna)\n!Cancer(Bob)\n"), "smokers.db", m)
	if err != nil {
		fmt.Println(err)
		return
	}
	tv, ok := db.LookupAtom("Cancer", "Bob")
	fmt.Println("Cancer(Bob):", tv, ok)
	_, err = mlnfile.ReadDB(strings.NewReader("Smokes(Anna, Bob)\n"), "bad.db", m)
	fmt.Println(err)
	// Output:
	// 2 predicates; 1.5 Smokes(x) => Cancer(x)
	// Cancer(Bob): false true
	// bad.db:1:1: predicate "Smokes" takes 1 argument but is given 2; it is declared as Smokes(person) at smokers.mln:3:1
}
