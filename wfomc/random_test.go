package wfomc

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// randomMLN writes a random FO2 MLN: two or three predicates (unary,
// binary, sometimes nullary), one or two types, clauses and other
// connectives over x and y, equality, a constant, existential and
// universal quantifiers, random weights and some hard formulas.
func randomMLN(r *rand.Rand) (src string, sizes map[string]int64) {
	var b strings.Builder
	twoTypes := r.IntN(4) == 0
	nullary := r.IntN(4) == 0
	withConst := r.IntN(3) == 0
	b.WriteString("t = {A}\n")
	sizes = map[string]int64{}
	var atoms []string // atoms over x (type t) and y
	if twoTypes {
		b.WriteString("u = {C}\nP(t)\nQ(u)\nR(t, u)\n")
		atoms = []string{"P(x)", "Q(y)", "R(x,y)"}
		if withConst {
			atoms = append(atoms, "P(A)", "R(A,y)", "R(x,C)")
		}
		sizes["t"] = int64(1 + r.IntN(3))
		sizes["u"] = int64(1 + r.IntN(2))
	} else {
		b.WriteString("P(t)\nR(t, t)\n")
		atoms = []string{"P(x)", "P(y)", "R(x,y)", "R(y,x)", "R(x,x)", "x = y"}
		if r.IntN(2) == 0 {
			b.WriteString("Q(t)\n")
			atoms = append(atoms, "Q(x)", "Q(y)")
		}
		if withConst {
			atoms = append(atoms, "P(A)", "R(x,A)", "x = A")
		}
		sizes["t"] = int64(1 + r.IntN(4))
	}
	if nullary {
		b.WriteString("N\n")
		atoms = append(atoms, "N")
	}
	nf := 2 + r.IntN(3)
	for i := 0; i < nf; i++ {
		k := 1 + r.IntN(3)
		var body string
		for j := 0; j < k; j++ {
			lit := atoms[r.IntN(len(atoms))]
			if r.IntN(2) == 0 {
				lit = "!" + paren(lit)
			}
			if j == 0 {
				body = lit
				continue
			}
			op := []string{" v ", " v ", " ^ ", " => ", " <=> "}[r.IntN(5)]
			body = paren(body) + op + lit
		}
		switch r.IntN(8) {
		case 0:
			if strings.Contains(body, "y") {
				body = "EXIST y " + paren(body)
			}
		case 1:
			if strings.Contains(body, "y") {
				body = "FORALL y " + paren(body)
			}
		case 2:
			if strings.Contains(body, "y") && !strings.Contains(body, "x") {
				body = "EXIST y " + paren(body)
			}
		}
		if r.IntN(6) == 0 {
			fmt.Fprintf(&b, "%s.\n", body)
		} else {
			fmt.Fprintf(&b, "%.3f %s\n", -2+4*r.Float64(), body)
		}
	}
	return b.String(), sizes
}

func paren(s string) string {
	if strings.ContainsAny(s, " ") {
		return "(" + s + ")"
	}
	return s
}

func TestRandomAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	models := 300
	if testing.Short() {
		models = 60
	}
	checked, four := 0, 0
	for i := 0; i < models; i++ {
		src, sizes := randomMLN(r)
		m, err := mlnfile.Parse("random.mln", []byte(src))
		if err != nil {
			continue // e.g. a formula whose variables only occur in x = y
		}
		w := newBruteWorld(m, sizes)
		if len(w.atoms) > 20 || len(w.atoms) > 16 && i%4 != 0 {
			continue // n = 4 (20 atoms) for a quarter of the models: brute force is slow
		}
		var ev []Literal
		var qs []string
		if r.IntN(2) == 0 {
			ev, qs = randomEvidence(r, w)
		}
		want := brute(m, weightsOf(m), sizes, ev, qs, nil)
		if want.logZ != want.logZ || want.logZ < -1e300 {
			continue // the hard formulas have no model
		}
		checkAgainstBrute(t, fmt.Sprintf("model %d (sizes %v, evidence %v, queries %v)", i, sizes, ev, qs), m, weightsOf(m), sizes, ev, qs, nil)
		checked++
		if sizes["t"] == 4 {
			four++
		}
	}
	t.Logf("%d of %d random models checked against brute force, %d of them with 4 elements", checked, models, four)
	if checked < models/2 {
		t.Fatalf("only %d of %d random models checked", checked, models)
	}
}

// randomEvidence picks a few ground literals as evidence (mostly unary) and
// a few ground atoms or conjunctions as queries.
func randomEvidence(r *rand.Rand, w *bruteWorld) ([]Literal, []string) {
	var ev []Literal
	seen := map[string]bool{}
	for k := r.IntN(4); k > 0; k-- {
		a := w.atoms[r.IntN(len(w.atoms))]
		if seen[a] {
			continue
		}
		seen[a] = true
		if strings.Count(a, ",") > 0 && r.IntN(3) > 0 {
			continue // mostly unary evidence
		}
		ev = append(ev, literalOf(a, r.IntN(2) == 0))
	}
	var qs []string
	for k := 1 + r.IntN(2); k > 0; k-- {
		a := w.atoms[r.IntN(len(w.atoms))]
		switch r.IntN(3) {
		case 0:
			a = "!" + a
		case 1:
			a += " ^ " + w.atoms[r.IntN(len(w.atoms))]
		}
		if distinctConsts(a) > 2 {
			continue // three or more constants: named, so slow (tested apart)
		}
		qs = append(qs, a)
	}
	return ev, qs
}

func literalOf(atom string, v bool) Literal {
	i := strings.IndexByte(atom, '(')
	if i < 0 {
		return Literal{Pred: atom, Value: v}
	}
	return Literal{Pred: atom[:i], Args: strings.Split(atom[i+1:len(atom)-1], ","), Value: v}
}

func distinctConsts(q string) int {
	set := map[string]bool{}
	for _, f := range strings.FieldsFunc(q, func(r rune) bool { return strings.ContainsRune("(), ^!", r) }) {
		if f != "" && (strings.HasPrefix(f, "E") || f == "A" || f == "C") {
			set[f] = true
		}
	}
	return len(set)
}
