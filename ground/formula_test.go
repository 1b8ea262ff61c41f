package ground

import (
	"errors"
	"math/rand/v2"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// TestCompileEvalMatchesSemantics evaluates every formula of random MLNs
// (starred atoms read as plain atoms) at every binding in random worlds
// with Compile's Formula and with the reference evaluator of the syntax
// tree.
func TestCompileEvalMatchesSemantics(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	checked := 0
	for _, in := range randomInstances(t, 40, 14) {
		s := in.sem
		doms := Domains(in.m, in.db)
		x := make([]bool, len(s.atoms))
		for range 3 {
			for i := range x {
				x[i] = r.IntN(2) == 0
			}
			truth := func(pred int, args []int32) bool {
				a := make([]int, len(args))
				for i, v := range args {
					a[i] = int(v)
				}
				return x[s.atomID[atomKey(pred, a)]]
			}
			for fi, f := range in.m.Formulas {
				cf, err := Compile(in.m, doms, fi, CompileOptions{KeepOccurrences: fi%2 == 0})
				if err != nil {
					t.Fatalf("%v\nformula %d: %v", in, fi+1, err)
				}
				ev := cf.NewEval()
				e := env{}
				var n int64
				cf.EachBinding(func(b []int32) error {
					for i, v := range f.Vars {
						e[v.Name] = int(b[i])
					}
					got := ev.Truth(b, truth)
					if want := s.eval(f.Expr, x, e, nil); got != want {
						t.Fatalf("%v\nformula %d %q at %v: %v, want %v", in, fi+1, f.Text, b, got, want)
					}
					if got {
						n++
					}
					// the three-valued evaluation, every occurrence set
					ev.Bind(b)
					for o := range cf.NumOccs() {
						p, _ := cf.Occ(o)
						ev.Set(o, truth(p, ev.Args(o)))
					}
					if v, known := ev.Value(); !known || v != got {
						t.Fatalf("%v\nformula %d %q at %v: Value %v (known %v), Truth %v", in, fi+1, f.Text, b, v, known, got)
					}
					checked++
					return nil
				})
				if c := ev.Count(truth); c != n {
					t.Fatalf("%v\nformula %d: Count %d, want %d", in, fi+1, c, n)
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d evaluations", checked)
	}
}

// TestCompileRefusesFunctions checks the ErrFunction error.
func TestCompileRefusesFunctions(t *testing.T) {
	m, err := mlnfile.Parse("f.mln", []byte("person = {A, B}\nperson mother(person)\nP(person)\n1 P(mother(x))\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(m, Domains(m, nil), 0, CompileOptions{}); !errors.Is(err, ErrFunction) {
		t.Fatalf("error %v, want ErrFunction", err)
	}
}

// TestBuilder builds (EXIST y P(x, y) ^ x != y) <=> Q(x) over a domain of
// three and checks it at every binding in every world of P and Q.
func TestBuilder(t *testing.T) {
	const n = 3
	b := NewBuilder([]int64{n})
	var kids []Node
	for y := range n {
		kids = append(kids, b.And(b.Atom(0, []Term{VarTerm(0), ConstTerm(y)}), b.Not(b.Eq(VarTerm(0), ConstTerm(y)))))
	}
	f, err := b.Formula(b.Iff(b.Or(kids...), b.Atom(1, []Term{VarTerm(0)})))
	if err != nil {
		t.Fatal(err)
	}
	if f.NumVars() != 1 || f.VarDomain(0) != n || f.NumOccs() != n+1 || f.Groundings() != n {
		t.Fatalf("vars %d, domain %d, occurrences %d, groundings %v", f.NumVars(), f.VarDomain(0), f.NumOccs(), f.Groundings())
	}
	ev := f.NewEval()
	for w := range 1 << (n*n + n) {
		truth := func(pred int, args []int32) bool {
			bit := int(args[0])
			if pred == 0 {
				bit = n + int(args[0])*n + int(args[1])
			}
			return w>>bit&1 == 1
		}
		f.EachBinding(func(bind []int32) error {
			x := int(bind[0])
			exists := false
			for y := range n {
				exists = exists || (y != x && truth(0, []int32{int32(x), int32(y)}))
			}
			if got, want := ev.Truth(bind, truth), exists == truth(1, []int32{int32(x)}); got != want {
				t.Fatalf("world %b, x = %d: %v, want %v", w, x, got, want)
			}
			return nil
		})
	}
}

// TestAtomIndex checks that ids are dense and Args inverts ID.
func TestAtomIndex(t *testing.T) {
	m, err := mlnfile.Parse("a.mln", []byte("person = {A, B, C}\ncolor = {R, G}\nP(person)\nQ\nHas(person, color)\nE(color, person)\n"))
	if err != nil {
		t.Fatal(err)
	}
	x := NewAtomIndex(m, Domains(m, nil))
	if x.NumAtoms() != 3+1+6+6 {
		t.Fatalf("%d atoms", x.NumAtoms())
	}
	var args []int32
	for id := range x.NumAtoms() {
		var p int
		p, args = x.Args(id, args)
		if got := x.ID(p, args); got != id {
			t.Fatalf("atom %d: predicate %d args %v give id %d", id, p, args, got)
		}
	}
}
