package ground

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// smokersEnum computes P(C(p)) for a smokers-shaped MLN by enumerating
// its worlds directly, with no code shared with the parser or grounder:
//
//	wC  !S(a) v C(a)
//	wF1 !F(a,b) v !S(a) v S(b)
//	wF2 !F(a,b) v !S(b) v S(a)
//
// F is closed-world (true exactly for friends), S is fixed where ev says
// so and otherwise free when sOpen (else false), C is free.
func smokersEnum(people []string, friends [][2]string, ev map[string]bool, sOpen bool, wC, wF1, wF2 float64) map[string]float64 {
	n := len(people)
	idx := map[string]int{}
	for i, p := range people {
		idx[p] = i
	}
	var free []int // S atoms that are free
	for i, p := range people {
		if _, ok := ev[p]; !ok && sOpen {
			free = append(free, i)
		}
	}
	nv := len(free) + n
	s := make([]bool, n)
	c := make([]bool, n)
	z := 0.0
	pc := make([]float64, n)
	for x := 0; x < 1<<nv; x++ {
		for i, p := range people {
			s[i] = ev[p] // false when absent
		}
		for k, i := range free {
			s[i] = x>>k&1 == 1
		}
		for i := range c {
			c[i] = x>>(len(free)+i)&1 == 1
		}
		lw := 0.0
		for i := range people {
			if !s[i] || c[i] {
				lw += wC
			}
		}
		for _, f := range friends {
			a, b := s[idx[f[0]]], s[idx[f[1]]]
			if !a || b {
				lw += wF1
			}
			if !b || a {
				lw += wF2
			}
		}
		// Non-friend pairs satisfy both clauses: a constant factor.
		w := math.Exp(lw)
		z += w
		for i := range c {
			if c[i] {
				pc[i] += w
			}
		}
	}
	out := map[string]float64{}
	for i, p := range people {
		out[p] = pc[i] / z
	}
	return out
}

// groundMarginals reads an MLN and its evidence in the given dialect,
// grounds it and enumerates the graph: P(pred(c)) for every constant c of
// a unary query predicate.
func groundMarginals(t *testing.T, mlnPath, dbPath string, d mln.Dialect, query string) (map[string]float64, *Input, *Grounding) {
	t.Helper()
	in, err := ReadInputWith(mlnfile.Options{Dialect: d}, mlnPath, []string{dbPath}, []string{query}, nil)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := Ground(context.Background(), in.MLN, in.DB, Options{QueryAtoms: in.Query})
	if err != nil {
		t.Fatal(err)
	}
	_, marg, ok := exactOf(gr)
	if !ok {
		t.Fatal("too many states")
	}
	out := map[string]float64{}
	for _, q := range gr.Queries {
		_, args, _ := gr.Atom(q.Var)
		out[gr.Domain(in.MLN.Pred(query).TypeIdx[0])[args[0]]] = marg[q.Var][1]
	}
	return out, in, gr
}

// TestTuffySemantics: a program with Tuffy's "*" marks gets Tuffy's rule
// (only starred predicates closed-world), detected or given; --dialect
// alchemy gives Alchemy's rule on the same program. Both against
// smokersEnum.
func TestTuffySemantics(t *testing.T) {
	people := []string{"Ann", "Ben", "Cid", "Dee"}
	friends := [][2]string{{"Ann", "Ben"}, {"Ben", "Cid"}, {"Cid", "Dee"}}
	ev := map[string]bool{"Ann": true, "Dee": false}
	mlnPath, dbPath := "testdata/dialects/tuffy.mln", "testdata/dialects/tuffy.db"
	for _, c := range []struct {
		d     mln.Dialect
		sOpen bool
		rule  string
	}{{mln.DialectAuto, true, "tuffy"}, {mln.DialectTuffy, true, "tuffy"}, {mln.DialectAlchemy, false, "alchemy"}} {
		want := smokersEnum(people, friends, ev, c.sOpen, 0.7, 0.3, 0)
		got, in, gr := groundMarginals(t, mlnPath, dbPath, c.d, "Ill")
		if gr.WorldRule != c.rule || in.Dialect.Dialect.WorldRule() != c.rule {
			t.Errorf("dialect %v: world rule %q, want %q (%v)", c.d, gr.WorldRule, c.rule, in.Dialect)
		}
		if c.d == mln.DialectAuto && (in.Dialect.Given || in.Dialect.At.Line != 3) {
			t.Errorf("detected dialect %v, want the * of line 3", in.Dialect)
		}
		for _, p := range people {
			if math.Abs(got[p]-want[p]) > 1e-9 {
				t.Errorf("dialect %v: P(Ill(%s)) = %v, enumeration %v", c.d, p, got[p], want[p])
			}
		}
	}
}

// TestTuffySmokeSample runs Tuffy's own smoke sample (from a checkout under
// /work/ext/tuffy): Cancer(Frank) is 0.5785 under Tuffy's semantics (0.5
// under Alchemy's).
func TestTuffySmokeSample(t *testing.T) {
	dir := "/work/ext/tuffy/samples/smoke"
	if _, err := os.Stat(filepath.Join(dir, "prog.mln")); err != nil {
		t.Skip("Tuffy's samples are not checked out under /work/ext/tuffy")
	}
	people := []string{"Anna", "Bob", "Edward", "Frank", "Gary", "Helen"}
	friends := [][2]string{{"Anna", "Bob"}, {"Anna", "Edward"}, {"Anna", "Frank"}, {"Edward", "Frank"}, {"Gary", "Helen"}}
	ev := map[string]bool{"Anna": true, "Edward": true}
	want := smokersEnum(people, friends, ev, true, 0.5, 0.4, 0.4)
	got, _, _ := groundMarginals(t, filepath.Join(dir, "prog.mln"), filepath.Join(dir, "evidence.db"), mln.DialectAuto, "Cancer")
	for _, p := range people {
		if math.Abs(got[p]-want[p]) > 1e-9 {
			t.Errorf("P(Cancer(%s)) = %v, enumeration %v", p, got[p], want[p])
		}
	}
	if math.Abs(want["Frank"]-0.5785) > 5e-5 {
		t.Errorf("enumeration gives Cancer(Frank) %v, want 0.5785", want["Frank"])
	}
}

// TestPracmlnDialect: weights as expressions, #fixweight and pracmln's
// open world on a program detected as pracmln, against closed forms.
func TestPracmlnDialect(t *testing.T) {
	got, in, gr := groundMarginals(t, "testdata/dialects/pracmln.mln", "testdata/dialects/pracmln.db", mln.DialectAuto, "flies")
	if in.Dialect.Dialect != mln.DialectPracmln || gr.WorldRule != "open" {
		t.Fatalf("dialect %v, world rule %q", in.Dialect, gr.WorldRule)
	}
	f := in.MLN.Formulas
	if !f[0].FixedWeight || f[1].FixedWeight || math.Abs(f[0].Weight-math.Log(9)) > 1e-12 || math.Abs(f[1].Weight-math.Log(0.01/0.99)) > 1e-12 {
		t.Fatalf("weights %v %v, fixed %v %v", f[0].Weight, f[1].Weight, f[0].FixedWeight, f[1].FixedWeight)
	}
	e1, e2 := 9.0, 0.01/0.99 // exp of the weights
	// Opus: penguin, so bird by the hard formula; flies has weight e1·e2.
	wantOpus := e1 * e2 / (e1*e2 + 1)
	// Tweety: bird; penguin(Tweety) is open (pracmln's cw=False):
	// P(flies) = 2·e1·e2 / (e2 + 2·e1·e2 + 1).
	wantTweety := 2 * e1 * e2 / (e2 + 2*e1*e2 + 1)
	if math.Abs(got["Opus"]-wantOpus) > 1e-9 || math.Abs(got["Tweety"]-wantTweety) > 1e-9 {
		t.Errorf("P(flies) Opus %v Tweety %v, closed forms %v %v", got["Opus"], got["Tweety"], wantOpus, wantTweety)
	}
	// Under Alchemy's rule bird is closed-world, so bird(Opus) is false
	// and the hard penguin(Opus) => bird(Opus) contradicts the evidence.
	ain, err := ReadInputWith(mlnfile.Options{Dialect: mln.DialectAlchemy}, "testdata/dialects/pracmln.mln", []string{"testdata/dialects/pracmln.db"}, []string{"flies"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Ground(context.Background(), ain.MLN, ain.DB, Options{QueryAtoms: ain.Query}); !errors.Is(err, ErrContradiction) {
		t.Errorf("alchemy: %v, want a contradiction", err)
	}
}

// TestPracGrammar: ?x variables, lowercase constants in the .mln and the
// .db, =/= and domain declarations in the .db, against a closed form.
func TestPracGrammar(t *testing.T) {
	got, in, _ := groundMarginals(t, "testdata/dialects/prac-grammar.mln", "testdata/dialects/prac-grammar.db", mln.DialectAuto, "has_sense")
	if in.Dialect.Dialect != mln.DialectPracmln {
		t.Fatalf("dialect %v", in.Dialect)
	}
	// a = has_sense(w1,s1), b = has_sense(w2,s1): weight
	// exp(1.5a + 1.5b - 0.5·2ab).
	z := 1 + 2*math.Exp(1.5) + math.Exp(2)
	want := (math.Exp(1.5) + math.Exp(2)) / z
	for _, w := range []string{"w1", "w2"} {
		if math.Abs(got[w]-want) > 1e-9 {
			t.Errorf("P(has_sense(%s,s1)) = %v, closed form %v", w, got[w], want)
		}
	}
}

// TestLoMRFDefiniteClauses: "w head :- body" is "w body => head" plus
// LoMRF's predicate completion (hard head => OR of the bodies, body-only
// variables existential, undefined heads false), checked against a direct
// enumeration of that semantics.
func TestLoMRFDefiniteClauses(t *testing.T) {
	in, err := ReadInput("testdata/dialects/lomrf.mln", []string{"testdata/dialects/lomrf.db"}, []string{"A,H,Q,R"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Dialect.Dialect != mln.DialectLoMRF || in.Dialect.At.Line != 11 {
		t.Fatalf("dialect %v", in.Dialect)
	}
	gr, err := Ground(context.Background(), in.MLN, in.DB, Options{QueryAtoms: in.Query})
	if err != nil {
		t.Fatal(err)
	}
	_, marg, ok := exactOf(gr)
	if !ok {
		t.Fatal("too many states")
	}
	// Direct enumeration. People P1, P2, P3; B(P1), F(P1,P2) true, other
	// B and F false (closed world); A(P3) false.
	b := [3]bool{true, false, false}
	f := func(x, y int) bool { return x == 0 && y == 1 }
	imp := func(p, q bool) bool { return !p || q }
	const nv = 14 // A(P1), A(P2), H(3), Q(K1,3), Q(K2,3), R(3)
	var z float64
	pm := map[string]float64{}
	for s := 0; s < 1<<nv; s++ {
		bit := func(i int) bool { return s>>i&1 == 1 }
		a := [3]bool{bit(0), bit(1), false}
		var h, q1, q2, r [3]bool
		for x := 0; x < 3; x++ {
			h[x], q1[x], q2[x], r[x] = bit(2+x), bit(5+x), bit(8+x), bit(11+x)
		}
		lw := 0.0
		okHard := true
		for x := 0; x < 3; x++ {
			if a[x] {
				lw += 0.3
			}
			if imp(a[x], h[x]) {
				lw += 1.5
			}
			if imp(b[x] && !a[x], h[x]) {
				lw += 0.7
			}
			if imp(a[x], q1[x]) {
				lw += 1
			}
			exists := false
			for y := 0; y < 3; y++ {
				if imp(f(x, y) && a[y], r[x]) {
					lw += 0.5
				}
				exists = exists || f(x, y) && a[y]
			}
			// Completion.
			okHard = okHard && imp(h[x], a[x] || b[x] && !a[x]) && imp(q1[x], a[x]) && !q2[x] && imp(r[x], exists)
		}
		if !okHard {
			continue
		}
		w := math.Exp(lw)
		z += w
		names := []string{"P1", "P2", "P3"}
		for x := 0; x < 3; x++ {
			add := func(name string, v bool) {
				if v {
					pm[name] += w
				}
			}
			add("A("+names[x]+")", a[x])
			add("H("+names[x]+")", h[x])
			add("Q(K1,"+names[x]+")", q1[x])
			add("Q(K2,"+names[x]+")", q2[x])
			add("R("+names[x]+")", r[x])
		}
	}
	n := 0
	for _, qa := range gr.Queries {
		want := pm[gr.AtomName(qa.Var)] / z
		if got := marg[qa.Var][1]; math.Abs(got-want) > 1e-9 {
			t.Errorf("P(%s) = %v, enumeration %v", gr.AtomName(qa.Var), got, want)
		}
		n++
	}
	if n != nv {
		t.Errorf("%d query atoms are variables, want %d", n, nv)
	}
}

// TestLoMRFSuccessor: LoMRF's t++ in a static model is the integer
// successor, and groundings whose successor is outside the domain do not
// exist; against a direct enumeration.
func TestLoMRFSuccessor(t *testing.T) {
	in, err := ReadInput("testdata/dialects/succ.mln", nil, []string{"H,I"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if in.Dialect.Dialect != mln.DialectLoMRF {
		t.Fatalf("dialect %v", in.Dialect)
	}
	gr, err := Ground(context.Background(), in.MLN, in.DB, Options{QueryAtoms: in.Query})
	if err != nil {
		t.Fatal(err)
	}
	logZ, marg, ok := exactOf(gr)
	if !ok {
		t.Fatal("too many states")
	}
	var z float64
	pm := map[string]float64{}
	for s := 0; s < 1<<6; s++ {
		h := [3]bool{s&1 == 1, s&2 == 2, s&4 == 4}
		i := [3]bool{s&8 == 8, s&16 == 16, s&32 == 32}
		lw, ok := 0.0, true
		for k := 0; k < 3; k++ {
			if h[k] {
				lw += 1
			}
			if i[k] {
				lw += 0.5
			}
			if k < 2 {
				ok = ok && (!i[k] || h[k+1])
				if !(h[k] && i[k]) || !h[k+1] {
					lw += 0.7
				}
			}
		}
		if !ok {
			continue
		}
		w := math.Exp(lw)
		z += w
		for k := 0; k < 3; k++ {
			if h[k] {
				pm["H("+strconv.Itoa(k)+")"] += w
			}
			if i[k] {
				pm["I("+strconv.Itoa(k)+")"] += w
			}
		}
	}
	if len(gr.Queries) != 6 {
		t.Fatalf("%d query atoms", len(gr.Queries))
	}
	for _, qa := range gr.Queries {
		want := pm[gr.AtomName(qa.Var)] / z
		if got := marg[qa.Var][1]; math.Abs(got-want) > 1e-9 {
			t.Errorf("P(%s) = %v, enumeration %v", gr.AtomName(qa.Var), got, want)
		}
	}
	// log Z differs by the guard's true groundings only: 0.7 for each of
	// the 9 - 2 pairs (t, u) of the soft formula with u not t+1.
	if d := logZ - math.Log(z); math.Abs(d-7*0.7) > 1e-9 {
		t.Errorf("log Z %v, enumeration %v (+4.9 expected)", logZ, math.Log(z))
	}
}

// TestPracmlnTweetyExample runs pracmln's own tweety-kreator example (a
// copy, see testdata/pracmln-tweety/SOURCE) as pracmln reads it (detected
// by its weight expressions: open world), against closed forms.
func TestPracmlnTweetyExample(t *testing.T) {
	dir := "testdata/pracmln-tweety/"
	got, in, _ := groundMarginals(t, dir+"tweety-kreator.mln", dir+"query1.db", mln.DialectAuto, "flies")
	if in.Dialect.Dialect != mln.DialectPracmln {
		t.Fatalf("dialect %v", in.Dialect)
	}
	e1, e2 := 0.9/0.1, 0.01/0.99
	// Opus: penguin and bird: P(flies) = e1·e2/(e1·e2+1). Tweety: bird,
	// penguin(Tweety) open: 2·e1·e2/(e2 + 2·e1·e2 + 1).
	want := map[string]float64{"Opus": e1 * e2 / (e1*e2 + 1), "Tweety": 2 * e1 * e2 / (e2 + 2*e1*e2 + 1)}
	for p, w := range want {
		if math.Abs(got[p]-w) > 1e-9 {
			t.Errorf("P(flies(%s)) = %v, closed form %v", p, got[p], w)
		}
	}
}

// TestLoMRFMarcusCaesar runs LoMRF's Marcus/Caesar example (from a
// checkout under /work/ext/lomrf-data) and checks every marginal against
// the independent enumeration of the MLN semantics (semantics_test.go);
// Hate(Marcus,Caesar) is 0.8582 (issue 24).
func TestLoMRFMarcusCaesar(t *testing.T) {
	dir := "/work/ext/lomrf-data/Examples/Inference/Marcus_Caesar/"
	if _, err := os.Stat(dir + "theory.mln"); err != nil {
		t.Skip("LoMRF's examples are not checked out under /work/ext/lomrf-data")
	}
	in, err := ReadInput(dir+"theory.mln", []string{dir + "evidence.db"}, []string{"Hate"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{QueryAtoms: in.Query, Query: []string{"Hate"}}
	gr, err := Ground(context.Background(), in.MLN, in.DB, opt)
	if err != nil {
		t.Fatal(err)
	}
	_, marg, ok := exactOf(gr)
	if !ok {
		t.Fatal("too many states")
	}
	sem := newSemModel(t, in.MLN, in.DB, opt)
	_, semM := sem.solve()
	for id, a := range sem.atoms {
		v, _ := gr.Var(a.pred, a.args)
		if v < 0 {
			continue
		}
		if math.Abs(marg[v][1]-semM[id]) > 1e-9 {
			t.Errorf("P(%s) = %v, semantics %v", gr.Name(a.pred, a.args), marg[v][1], semM[id])
		}
	}
	found := false
	for _, q := range gr.Queries {
		if gr.AtomName(q.Var) == "Hate(Marcus,Caesar)" {
			found = true
			if math.Abs(marg[q.Var][1]-0.8582) > 5e-5 {
				t.Errorf("Hate(Marcus,Caesar) = %v, want 0.8582", marg[q.Var][1])
			}
		}
	}
	if !found {
		t.Error("Hate(Marcus,Caesar) is not a query variable")
	}
}
