package gen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// ChainMLN writes a random MLN of the shape of the lifted blocked Gibbs
// paper's M1 or M3 (a chain of three predicates) with small
// domains: M3 (kind 0) R(x,y) – S(y,z) – T(z,u), M1 (kind 1) R(x) –
// S(x,y) – T(y); random connectives, signs, weights, a hard formula now
// and then, outside atoms in the joint formula, and a .db with random
// evidence: the cluster {R,S} is liftable by the power rule on y (resp. x)
// and atom counting on R. Two constants for M3, two or three for M1.
// Kind 2 is a star like the paper's M2 (smoker-asthma-cancer): R(x) –
// S(x,y), R(x) – U(z,x), T outside: the cluster {R,S,U} is liftable by
// the power rule on x, atom counting on R, S and U independent given R's
// count.
func ChainMLN(r *rand.Rand, kind int) (src, db string) {
	neg := func(s string) string {
		if r.IntN(2) == 0 {
			return "!" + s
		}
		return s
	}
	ops := []string{" v ", " ^ ", " => ", " <=> "}
	op := func() string { return ops[r.IntN(len(ops))] }
	var b strings.Builder
	var joint, joint2, other []string
	var consts []string
	var atoms []string
	if kind == 0 {
		consts = []string{"A", "B"}
		b.WriteString("t = {A, B}\nR(t, t)\nS(t, t)\nT(t, t)\n")
		joint = []string{
			neg("R(x, y)") + op() + neg("S(y, z)"),
			neg("R(x, y)") + op() + neg("S(y, z)") + op() + neg("T(z, y)"),
			neg("S(y, y)") + op() + neg("R(x, y)"),
		}
		other = []string{
			neg("S(y, z)") + op() + neg("T(z, u)"),
			neg("R(x, y)") + op() + neg("T(y, x)"),
			neg("S(y, z)"),
			neg("R(x, y)") + op() + neg("T(x, A)"),
		}
		for _, p := range []string{"R", "S", "T"} {
			for _, c1 := range consts {
				for _, c2 := range consts {
					atoms = append(atoms, fmt.Sprintf("%s(%s, %s)", p, c1, c2))
				}
			}
		}
	} else if kind == 2 {
		consts = []string{"A", "B"}
		b.WriteString("t = {A, B}\nR(t)\nS(t, t)\nT(t)\nU(t, t)\n")
		joint = []string{
			neg("R(x)") + op() + neg("S(x, y)"),
			neg("R(x)") + op() + neg("S(x, y)") + op() + neg("T(y)"),
		}
		joint2 = []string{
			neg("R(x)") + op() + neg("U(z, x)"),
			neg("U(x, x)") + op() + neg("R(x)") + op() + neg("T(x)"),
		}
		other = []string{
			neg("S(x, y)") + op() + neg("T(y)"),
			neg("U(x, y)") + op() + neg("T(x)"),
			neg("R(x)") + op() + neg("T(x)"),
			neg("U(y, x)"),
		}
		for _, c1 := range consts {
			atoms = append(atoms, "R("+c1+")", "T("+c1+")")
			for _, c2 := range consts {
				atoms = append(atoms, fmt.Sprintf("S(%s, %s)", c1, c2), fmt.Sprintf("U(%s, %s)", c1, c2))
			}
		}
	} else {
		consts = []string{"A", "B", "C"}[:2+r.IntN(2)]
		fmt.Fprintf(&b, "t = {%s}\nR(t)\nS(t, t)\nT(t)\n", strings.Join(consts, ", "))
		joint = []string{
			neg("R(x)") + op() + neg("S(x, y)"),
			neg("R(x)") + op() + neg("S(x, y)") + op() + neg("T(y)"),
			neg("S(x, B)") + op() + neg("R(x)"),
		}
		other = []string{
			neg("S(x, y)") + op() + neg("T(y)"),
			neg("R(x)") + op() + neg("T(x)"),
			neg("S(y, x)") + op() + neg("T(y)"),
		}
		for _, c1 := range consts {
			atoms = append(atoms, "R("+c1+")", "T("+c1+")")
			for _, c2 := range consts {
				atoms = append(atoms, fmt.Sprintf("S(%s, %s)", c1, c2))
			}
		}
	}
	var fs []string
	fs = append(fs, joint[r.IntN(len(joint))])
	if joint2 != nil {
		fs = append(fs, joint2[r.IntN(len(joint2))])
	}
	if r.IntN(2) == 0 {
		fs = append(fs, joint[r.IntN(len(joint))])
	}
	for range 1 + r.IntN(2) {
		fs = append(fs, other[r.IntN(len(other))])
	}
	for i, f := range fs {
		if i > 0 && r.IntN(4) == 0 {
			fmt.Fprintf(&b, "%s.\n", f)
		} else {
			fmt.Fprintf(&b, "%.1f %s\n", float64(r.IntN(41)-20)/10, f)
		}
	}
	var d strings.Builder
	for _, a := range atoms {
		if r.IntN(6) == 0 {
			fmt.Fprintf(&d, "%s%s\n", []string{"", "!"}[r.IntN(2)], a)
		}
	}
	return b.String(), d.String()
}
