package firstorder_test

import (
	"context"
	"fmt"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/lift/firstorder"
)

// Friends and smokers over a thousand people, two of them known smokers:
// the counted graph without grounding its million Friends atoms.
func Example() {
	var b strings.Builder
	b.WriteString("person = {")
	for i := range 1000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n" +
		"1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	m, _ := mlnfile.Parse("smokers.mln", []byte(b.String()))
	db, _ := mlnfile.ReadDB(strings.NewReader("Smokes(P0)\nSmokes(P1)\n"), "smokers.db", m)
	net, err := firstorder.Build(context.Background(), m, db, firstorder.Options{Ground: ground.Options{Query: []string{"Smokes", "Cancer"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d ground atoms, %d ground formulas represented\n", net.Atoms, net.Factors)
	fmt.Printf("%d clusternodes, %d clusterfactors; %d ground atoms built\n", net.NumNodes(), net.NumFactors(), net.Reduced.NumAtoms)
	X, _ := net.Node(m.PredIndex("Smokes"), []int{500})
	fmt.Printf("Smokes(P500) is in a clusternode of %d atoms\n", net.NodeSize[X])
	// Output:
	// 1001998 ground atoms, 998002 ground formulas represented
	// 6 clusternodes, 4 clusterfactors; 22 ground atoms built
	// Smokes(P500) is in a clusternode of 998 atoms
}
