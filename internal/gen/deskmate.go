package gen

import (
	"fmt"
	"math"
	"strings"
)

// Deskmate is the perfect-matching MLN of issue 35 on n students
// (constants S1…Sn): every student has exactly one deskmate, not oneself
// (hard: !mate(x,x), mate(x,y) => mate(y,x), EXIST y mate(x,y),
// mate(x,y) ^ mate(x,z) => y = z), and a soft formula of weight w,
// mate(x,y) => fr(x,y). DeskmateMarginal gives its exact marginals.
func Deskmate(n int, w float64) string {
	var b strings.Builder
	b.WriteString("student = {")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "S%d", i+1)
	}
	fmt.Fprintf(&b, "}\nmate(student, student)\nfr(student, student)\n\n!mate(x,x).\nmate(x,y) => mate(y,x).\nEXIST y mate(x,y).\nmate(x,y) ^ mate(x,z) => y = z.\n%g mate(x,y) => fr(x,y)\n", w)
	return b.String()
}

// DeskmateMarginal is the exact probability that the ground atom (as
// "mate(S1,S2)" or "fr(S2,S2)") of Deskmate(n, w), n even, is true: by
// the symmetry of the perfect matchings P(mate(a,b)) = 1/(n−1) for a ≠ b
// and 0 for a = b, and fr(a,b) is true with probability σ(w) given
// mate(a,b) and 1/2 otherwise. It is NaN for another name.
func DeskmateMarginal(n int, w float64, atom string) float64 {
	open, end := strings.Index(atom, "("), strings.LastIndex(atom, ")")
	if open < 0 || end < open {
		return math.NaN()
	}
	args := strings.Split(atom[open+1:end], ",")
	if len(args) != 2 {
		return math.NaN()
	}
	pm := 1 / float64(n-1)
	same := args[0] == args[1]
	switch atom[:open] {
	case "mate":
		if same {
			return 0
		}
		return pm
	case "fr":
		if same {
			return 0.5
		}
		return pm/(1+math.Exp(-w)) + (1-pm)/2
	}
	return math.NaN()
}
