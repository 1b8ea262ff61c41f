package format_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lifted-dev/lifted/format"
)

func ExampleLoad() {
	dir, err := os.MkdirTemp("", "format-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	// (x1 ∨ ¬x2) ∧ (x2 ∨ x3) in DIMACS CNF; the extension tells the format.
	path := filepath.Join(dir, "f.cnf")
	if err := os.WriteFile(path, []byte("p cnf 3 2\n1 -2 0\n2 3 0\n"), 0o644); err != nil {
		fmt.Println(err)
		return
	}
	m, err := format.Load(path, format.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Format, m.Graph.NumVars(), "variables,", m.Graph.NumFactors(), "clause factors; clauses", m.CNF.Clauses)

	// A name the registry does not know is a usage error naming the choices.
	_, err = format.Load(filepath.Join(dir, "f.txt"), format.Options{})
	fmt.Println(err != nil, format.IsMLN("smokers.mln", ""))
	_, err = format.Load(path, format.Options{Format: "sat"})
	fmt.Println(err)
	// Output:
	// cnf 3 variables, 2 clause factors; clauses [[1 -2] [2 3]]
	// true true
	// unknown --format "sat" (want uai, fg or cnf)
}
