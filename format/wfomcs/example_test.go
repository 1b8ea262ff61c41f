package wfomcs_test

import (
	"fmt"
	"strings"

	"math"

	"github.com/lifted-dev/lifted/format/wfomcs"
	"github.com/lifted-dev/lifted/wfomc"
)

// Read a .wfomcs file and count its models exactly: the derangements of 5
// elements (44).
func Example() {
	src := `\forall X: (~perm(X,X)) &
\forall X: (\exists_{=1} Y: (perm(X,Y))) &
\forall Y: (\exists_{=1} X: (perm(X,Y)))

domain = 5
`
	f, err := wfomcs.Read(strings.NewReader(src), "derangements.wfomcs")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, fm := range f.MLN.Formulas {
		fmt.Println(fm.Expr)
	}
	res, err := wfomc.RunFile(f.MLN, wfomc.FileOptions{DB: f.DB})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("models: %.0f\n", math.Exp(res.LogZ))
	// Output:
	// !perm(x,x)
	// EXIST=1 y perm(x,y)
	// EXIST=1 x perm(x,y)
	// models: 44
}
