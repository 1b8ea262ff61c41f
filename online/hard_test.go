package online

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/mln"
)

// refWorld evaluates formulas the way the MLN semantics defines them,
// independently of the compiler under test: quantifiers by enumerating their
// domains, atoms by name.
type refWorld struct {
	db  *mln.DB
	val map[string]bool // "Friends(A,B)" → value
}

func (w refWorld) term(t mln.Term, env map[string]string) string {
	if t.IsVar {
		return env[t.Name]
	}
	return t.Name
}

func (w refWorld) eval(e mln.Expr, env map[string]string) bool {
	switch e := e.(type) {
	case *mln.Atom:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = w.term(a, env)
		}
		return w.val[e.Pred+"("+strings.Join(args, ",")+")"]
	case *mln.Equal:
		return w.term(e.L, env) == w.term(e.R, env)
	case *mln.Not:
		return !w.eval(e.X, env)
	case *mln.And:
		return w.eval(e.L, env) && w.eval(e.R, env)
	case *mln.Or:
		return w.eval(e.L, env) || w.eval(e.R, env)
	case *mln.Implies:
		return !w.eval(e.L, env) || w.eval(e.R, env)
	case *mln.Iff:
		return w.eval(e.L, env) == w.eval(e.R, env)
	case *mln.Exists:
		found := false
		w.each(e.Vars, env, func() { found = found || w.eval(e.Body, env) })
		return found
	case *mln.Forall:
		all := true
		w.each(e.Vars, env, func() { all = all && w.eval(e.Body, env) })
		return all
	}
	panic("unexpected expression")
}

// each calls fn for every binding of vars in env (restored afterwards).
func (w refWorld) each(vars []*mln.Var, env map[string]string, fn func()) {
	if len(vars) == 0 {
		fn()
		return
	}
	v := vars[0]
	old, had := env[v.Name]
	for _, c := range w.db.Domain(v.Type) {
		env[v.Name] = c
		w.each(vars[1:], env, fn)
	}
	if had {
		env[v.Name] = old
	} else {
		delete(env, v.Name)
	}
}

// count is the number of true groundings of f and the number of its
// groundings.
func (w refWorld) count(f *mln.Formula) (n, total float64) {
	env := map[string]string{}
	w.each(f.Vars, env, func() {
		total++
		if w.eval(f.Expr, env) {
			n++
		}
	})
	return n, total
}

// worldOf returns the reference world of md's ground atoms with the
// non-evidence atoms free[i] set to bit i of x.
func worldOf(md *Model, free []int32, x int) refWorld {
	w := refWorld{db: md.DB, val: map[string]bool{}}
	for a := range md.Status {
		w.val[md.AtomName(int32(a))] = md.Value[a] == 1
	}
	for i, a := range free {
		w.val[md.AtomName(a)] = x>>i&1 == 1
	}
	return w
}

func nonEvidence(md *Model) []int32 {
	var free []int32
	for a, s := range md.Status {
		if s != Evidence {
			free = append(free, int32(a))
		}
	}
	return free
}

// onlineCounts returns, per formula, the true groundings in world x (bits
// over free) according to md's ground clauses, and whether every hard
// ground clause holds.
func onlineCounts(md *Model, free []int32, x int) ([]float64, bool) {
	vals := slices.Clone(md.Value)
	for i, a := range free {
		vals[a] = uint8(x >> i & 1)
	}
	n := slices.Clone(md.ConstTrue)
	ok := true
	for c := range md.NumClauses() {
		v := md.clauseValue(c, vals)
		n[md.clForm[c]] += float64(v)
		if v == 0 && md.clauseHard(c) {
			ok = false
		}
	}
	return n, ok
}

// quantMLN exercises the quantifier expansion: nested quantifiers, sibling
// quantifiers reusing a name, equality and constants under a quantifier,
// quantifiers over an empty type (pet has no constants), and hard formulas
// with quantifiers.
const quantMLN = `
person = {A, B, C}
Smokes(person)
Friends(person, person)
Owns(person, pet)

0.5 EXIST y FORALL z Friends(x, y) ^ (Friends(y, z) => Smokes(z))
0.3 (EXIST y Friends(x, y)) ^ (EXIST y Friends(y, x))
-0.4 EXIST y Friends(x, y) ^ y != x
0.7 FORALL y Friends(y, A) => Smokes(y)
0.2 EXIST p Owns(x, p)
-0.6 FORALL p Owns(x, p)
0.9 Smokes(x) ^ EXIST y,z Friends(y, z) ^ y != z ^ Smokes(z)
FORALL y Friends(x, y) => Friends(y, x).
Smokes(x) => EXIST y Friends(x, y) ^ Smokes(y).
`

// TestQuantifiedCountsMatchEnumeration checks, in every world of the
// non-evidence atoms, the compiled model's true groundings per formula
// against the reference semantics (refWorld), and the world's log weight
// against package ground's grounding of the same MLN.
func TestQuantifiedCountsMatchEnumeration(t *testing.T) {
	for _, c := range []struct {
		db string // evidence only: the non-evidence atoms are free in every world
		ne []string
	}{
		{"Friends(A, B)\nFriends(B, A)\nFriends(C, C)\n", []string{"Smokes"}},
		{"", []string{"Smokes", "Friends"}},
	} {
		m, ev := parse(t, quantMLN, c.db)
		md, err := NewModel(m, ev, c.ne)
		if err != nil {
			t.Fatal(err)
		}
		evNE := map[string]bool{}
		for _, p := range c.ne {
			evNE[p] = true
		}
		var cw []string
		for _, p := range m.Preds {
			if !evNE[p.Name] {
				cw = append(cw, p.Name)
			}
		}
		gr, err := ground.Ground(context.Background(), m, ev, ground.Options{Query: c.ne, ClosedWorld: cw})
		if err != nil {
			t.Fatal(err)
		}
		free := nonEvidence(md)
		if len(free) > 12 {
			t.Fatalf("%d free atoms", len(free))
		}
		// ground variable → position in free
		gpos := make([]int, gr.NumAtoms)
		for v := range gpos {
			p, args, ok := gr.Atom(int32(v))
			if !ok {
				t.Fatalf("variable %d is no atom", v)
			}
			gpos[v] = slices.Index(free, md.atomID(p, args32(args)))
			if gpos[v] < 0 {
				t.Fatalf("ground variable %s is evidence here", gr.AtomName(int32(v)))
			}
		}
		if gr.Graph.NumVars() != gr.NumAtoms {
			t.Fatalf("auxiliary variables in the grounding")
		}
		w := weights(m)
		allowed := 0
		for x := 0; x < 1<<len(free); x++ {
			ref := worldOf(md, free, x)
			got, ok := onlineCounts(md, free, x)
			refOK := true
			logW := 0.0
			for fi, f := range m.Formulas {
				n, total := ref.count(f)
				if got[fi] != n {
					t.Fatalf("db %q world %b formula %d %q: %v true groundings, reference %v", c.db, x, fi+1, f.Text, got[fi], n)
				}
				if f.Hard {
					refOK = refOK && n == total
				} else {
					logW += w[fi] * n
				}
			}
			if ok != refOK {
				t.Fatalf("world %b: hard formulas hold %v, reference %v", x, ok, refOK)
			}
			gLogW := gr.LogZOffset
			for f := range gr.Graph.NumFactors() {
				j := 0
				for _, v := range gr.Graph.Scope(f) {
					j = j<<1 | x>>gpos[v]&1
				}
				gLogW += math.Log(gr.Graph.Table(f).Values[j])
			}
			if !ok {
				if !math.IsInf(gLogW, -1) {
					t.Fatalf("world %b violates a hard formula but has log weight %v in the grounding", x, gLogW)
				}
				continue
			}
			allowed++
			// ground leaves constant soft groundings out of LogZOffset
			// only up to rounding.
			if math.Abs(gLogW-logW) > 1e-9 {
				t.Fatalf("db %q world %b: log weight %v, grounding says %v", c.db, x, logW, gLogW)
			}
		}
		t.Logf("db %q: %d free atoms, %d ground clauses, %d worlds allowed", c.db, len(free), md.NumClauses(), allowed)
		if allowed == 0 || allowed == 1<<len(free) {
			t.Errorf("the hard formula should exclude some worlds, not all")
		}
	}
}

// tinyHardMLN is small enough to enumerate and its ground network is a tree:
// factors {S(A),C(A)}, {S(B),C(B)}, {T(A),C(A)}, {T(B),C(B)}, {S(A),C(B)}
// and {S(B)} (Friends is evidence, and B has no friend).
const tinyHardMLN = `
person = {A, B}
Smokes(person)
Cancer(person)
Treated(person)
Friends(person, person)

1.2 Smokes(x) => Cancer(x)
Treated(x) => Cancer(x).
0.7 Smokes(x) => EXIST y Friends(x, y) ^ Cancer(y)
`

const tinyHardDB = `
Friends(A, B)
Smokes(A)
Cancer(B)
Treated(B)
?Smokes(B)
`

// TestHardGradientBruteForce checks the BP gradient and loss of the whole
// tiny model, one batch whose graph is a tree, against the exact gradient
// of the negative conditional log-likelihood by enumerating every world
// with the reference semantics: worlds violating the hard formula have
// probability 0, and the hard formula's gradient is 0.
func TestHardGradientBruteForce(t *testing.T) {
	m, db := parse(t, tinyHardMLN, tinyHardDB)
	md, err := NewModel(m, db, []string{"Smokes", "Cancer", "Treated"})
	if err != nil {
		t.Fatal(err)
	}
	free := nonEvidence(md)
	k := len(m.Formulas)
	for _, w := range [][]float64{{1.2, 0, 0.7}, {-0.8, 123, 1.9}, {0.3, -5, -2.2}} {
		var zf, zd float64
		ef, ed := make([]float64, k), make([]float64, k)
		for x := 0; x < 1<<len(free); x++ {
			ref := worldOf(md, free, x)
			n := make([]float64, k)
			s := 0.0
			for fi, f := range m.Formulas {
				c, total := ref.count(f)
				n[fi] = c
				switch {
				case !f.Hard:
					s += w[fi] * c
				case c < total:
					s = math.Inf(-1)
				}
			}
			p := math.Exp(s)
			data := true
			for i, a := range free {
				if md.Status[a] == Observed && x>>i&1 != int(md.Value[a]) {
					data = false
				}
			}
			zf += p
			if data {
				zd += p
			}
			for f := range n {
				if m.Formulas[f].Hard {
					continue
				}
				ef[f] += p * n[f]
				if data {
					ed[f] += p * n[f]
				}
			}
		}
		wantLoss := math.Log(zf) - math.Log(zd)
		for _, ground := range []bool{true, false} {
			r, err := md.BatchGradient(context.Background(), w, WholePiece(md), []int32{0},
				GradOptions{Ground: ground, NoNormalize: true, BP: bp.Options{Tol: 1e-14, MaxIter: 1000}})
			if err != nil {
				t.Fatal(err)
			}
			for f := range k {
				want := ef[f]/zf - ed[f]/zd
				if math.Abs(r.Grad[f]-want) > 1e-9 {
					t.Errorf("w %v ground=%v formula %d: gradient %v, exact %v", w, ground, f+1, r.Grad[f], want)
				}
			}
			if r.Grad[1] != 0 || r.Count[1] != 0 {
				t.Errorf("hard formula: gradient %v, count %v", r.Grad[1], r.Count[1])
			}
			if math.Abs(r.Loss-wantLoss) > 1e-9 {
				t.Errorf("w %v ground=%v: loss %v, exact %v", w, ground, r.Loss, wantLoss)
			}
		}
	}
	// The hard clauses enter the batch graph as 0/1 factors without a
	// feature variable: 6 atoms + 4 feature variables, 6 factors.
	r, err := md.BatchGradient(context.Background(), weights(m), WholePiece(md), []int32{0}, GradOptions{Ground: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.GroundVars != 10 || r.GroundFactors != 6 {
		t.Errorf("batch graph has %d variables and %d factors, want 10 and 6", r.GroundVars, r.GroundFactors)
	}
}

func TestHardFormulaErrors(t *testing.T) {
	const decl = "person = {Anna, Bob}\nFriends(person, person)\nKnows(person, person)\nLikes(person)\n"
	// Evidence making a hard ground clause false (Likes is the only
	// non-evidence predicate).
	m, db := parse(t, decl+"Friends(x, y) => Knows(x, y).\n", "Friends(Anna, Bob)\n")
	_, err := NewModel(m, db, []string{"Likes"})
	if !errors.Is(err, fg.ErrContradiction) {
		t.Fatalf("error %v", err)
	}
	for _, want := range []string{"contradictory evidence", "hard formula 1", "Friends(x, y) => Knows(x, y)", "t.mln:5:1", "x = Anna, y = Bob"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
	// Evidence making it true: dropped, counted as true.
	m, db = parse(t, decl+"Friends(x, y) => Knows(x, y).\n", "Knows(Anna, Bob)\nKnows(Bob, Bob)\n")
	md, err := NewModel(m, db, []string{"Friends"})
	if err != nil {
		t.Fatal(err)
	}
	if md.NumClauses() != 2 || md.ConstTrue[0] != 2 {
		t.Errorf("%d open clauses, %v true by evidence; want 2 and 2", md.NumClauses(), md.ConstTrue[0])
	}
	// Data violating a hard clause over observed atoms.
	m, db = parse(t, decl+"Friends(x, y) => Knows(x, y).\n", "Friends(Bob, Anna)\n")
	_, err = NewModel(m, db, []string{"Friends", "Knows"})
	if err == nil || !strings.Contains(err.Error(), "data contradict hard formula 1") || !strings.Contains(err.Error(), "x = Bob, y = Anna") ||
		!strings.Contains(err.Error(), "Knows(Bob,Anna) = false") {
		t.Errorf("error %v", err)
	}
	// ... unless an atom is hidden, or there are no data.
	m, db = parse(t, decl+"Friends(x, y) => Knows(x, y).\n", "Friends(Bob, Anna)\n?Knows(Bob, Anna)\n")
	if _, err = NewModel(m, db, []string{"Friends", "Knows"}); err != nil {
		t.Error(err)
	}
	if _, err = NewModel(m, nil, []string{"Friends", "Knows"}); err != nil {
		t.Error(err)
	}
	// A hard EXIST that the closed-world evidence makes false.
	m, db = parse(t, decl+"Friends(x, y) => EXIST z Knows(y, z).\n", "Knows(Anna, Bob)\nFriends(Anna, Bob)\n")
	_, err = NewModel(m, db, []string{"Likes"})
	if !errors.Is(err, fg.ErrContradiction) || !strings.Contains(err.Error(), "y = Bob") {
		t.Errorf("error %v", err)
	}
	// What stays refused.
	for src, want := range map[string]string{
		"1 Friends(+x, y)\n":                       `"+x"`,
		"1 *Friends(x, y) => Knows(x, y)\n":        `"*" atoms`,
		"1 EXIST y Friends(x, y) ^ *Knows(x, y)\n": `"*" atoms`,
	} {
		m, db := parse(t, decl+src, "")
		if _, err := NewModel(m, db, []string{"Friends"}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %s", strings.TrimSpace(src), err, want)
		}
	}
	m, db = parse(t, "person = {Anna, Bob}\nHas(person, person!)\n1 Has(x, y)\n", "")
	if _, err := NewModel(m, db, []string{"Has"}); err == nil || !strings.Contains(err.Error(), `"!"`) {
		t.Errorf("mutual exclusion: error %v", err)
	}
	// A ground clause over too many atoms after expansion.
	big := "person = {P1, P2, P3, P4, P5, P6, P7, P8, P9, P10, P11, P12, P13}\nFriends(person, person)\n1 EXIST y Friends(x, y)\n"
	m, db = parse(t, big, "")
	if _, err := NewModel(m, db, []string{"Friends"}); err == nil || !strings.Contains(err.Error(), "a ground clause has 13 non-evidence atoms (at most 12)") {
		t.Errorf("large clause: error %v", err)
	}
}

// TestSampleHard checks that Gibbs sampling keeps every hard ground
// clause true, from random starts that violate them, and that the
// conditional of an atom forced by a hard clause is respected.
func TestSampleHard(t *testing.T) {
	m, _ := parse(t, hardSmokersMLN, "")
	md, err := NewModel(m, nil, []string{"Smokes", "Cancer", "Stress", "Friends"})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 5))
	for i := range 20 {
		// burn-in 0 tests the search for a start alone
		x, err := Sample(md, weights(m), i%2*3, rng)
		if err != nil {
			t.Fatal(err)
		}
		if err := md.WithValues(x).checkData(); err != nil {
			t.Fatal(err)
		}
	}
	// Unsatisfiable hard clauses: a clear error, not a hang.
	m, _ = parse(t, "person = {A}\nP(person)\nP(x).\n!P(x).\n", "")
	md, err = NewModel(m, nil, []string{"P"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Sample(md, weights(m), 1, rng); err == nil || !strings.Contains(err.Error(), "found no world satisfying the hard formulas") {
		t.Errorf("error %v", err)
	}
}

// TestLearnKeepsHardWeight learns, with every optimiser, on data sampled
// from a model with a hard formula, Cancer(x) => Treated(x). The hard
// formula's weight must come back exactly as given, and the soft weights
// must approach the generating ones: the constraint doubles the worlds with
// Cancer(x) false, so a learner that left it out would be off by log 2 in
// the weight of Cancer(x).
func TestLearnKeepsHardWeight(t *testing.T) {
	const n = 2000
	var names []string
	for i := range n {
		names = append(names, "P"+string(rune('a'+i%26))+strings.Repeat("x", i/26))
	}
	src := "person = {" + strings.Join(names, ", ") + "}\nSmokes(person)\nCancer(person)\nStress(person)\nTreated(person)\n" +
		"Smokes(x) => Cancer(x)\nStress(x) => Smokes(x)\nCancer(x)\nCancer(x) => Treated(x).\n"
	m, err := mlnfile.Parse("h.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ne := []string{"Smokes", "Cancer", "Stress", "Treated"}
	md0, err := NewModel(m, nil, ne)
	if err != nil {
		t.Fatal(err)
	}
	gen := []float64{1.5, 1.0, -0.5, 0}
	rng := rand.New(rand.NewPCG(8, 9))
	x, err := Sample(md0, gen, 50, rng)
	if err != nil {
		t.Fatal(err)
	}
	md := md0.WithValues(x)
	if err := md.checkData(); err != nil {
		t.Fatal(err)
	}
	const hardW = 7.25
	init := []float64{0, 0, 0, hardW}
	soft := []int{0, 1, 2}
	se := stdErrFree(t, md, gen)
	p := TreePieces(md, 2, 1, rng)
	got := map[string][]float64{}
	for _, method := range []string{"smd", "sgd"} {
		r, err := Train(context.Background(), md, p, TrainOptions{Method: method, Passes: 20, BatchSize: max(1, p.Len()/20), Init: init, Rand: rng})
		if err != nil {
			t.Fatal(err)
		}
		got[method] = r.Weights
	}
	for _, method := range []string{"scg", "lbfgs"} {
		// The prior must leave the hard entry alone too.
		opt := BatchOptions{MaxIter: 200, GradTol: 1e-6, Init: init, PriorStdDev: 100}
		var r *BatchLearnResult
		if method == "scg" {
			r, err = SCG(context.Background(), md, opt)
		} else {
			r, err = LBFGS(context.Background(), md, opt)
		}
		if err != nil {
			t.Fatal(err)
		}
		got[method] = r.Weights
	}
	for method, w := range got {
		if w[3] != hardW {
			t.Errorf("%s changed the hard formula's weight to %v", method, w[3])
		}
		e := dist(gather(w, soft), gather(gen, soft))
		t.Logf("%-5s weights %.3f, error %.3f (se %.3f)", method, w, e, se)
		if e > 4*se {
			t.Errorf("%s: error %.3f exceeds 4·se = %.3f", method, e, 4*se)
		}
	}
}

// stdErrFree is stdErr over the soft formulas' weights (the Hessian has no
// row for a hard formula).
func stdErrFree(t *testing.T, md *Model, w []float64) float64 {
	t.Helper()
	o := newFullObjective(context.Background(), md, BatchOptions{Init: w, Grad: GradOptions{BP: bp.Options{Tol: 1e-13, MaxIter: 1000}}})
	return hessianStdErr(t, o, o.start())
}

// Mutual exclusion ("!") reaches the online learners as the two hard
// formulas of mln.MutexAsFormulas: NewModel refuses "!" itself, accepts the
// rewritten model, and its lifted batch gradient equals the ground one;
// with one person the block's three colour atoms and the Likes atom are
// all there is, so the gradient is also checked against enumeration.
func TestMutexAsHardFormulas(t *testing.T) {
	src := "person = {A, B, C, D}\ncolor = {R, G, Bl}\nCol(person, color!)\nLikes(person)\nFriends(person, person)\n" +
		"0.5 Col(x, R) => Likes(x)\n0.3 Col(x, c) ^ Friends(x, y) => Col(y, c)\n"
	// C's and D's colours and B's Likes are hidden ("?"): the gradient
	// needs both BP runs.
	data := "Col(A, R)\nCol(B, G)\n?Col(C, R)\n?Col(C, G)\n?Col(C, Bl)\n?Col(D, R)\n?Col(D, G)\n?Col(D, Bl)\n" +
		"Likes(A)\n?Likes(B)\nFriends(A, B)\nFriends(B, C)\nFriends(C, D)\n"
	m, db := parse(t, src, data)
	if _, err := NewModel(m, db, []string{"Col", "Likes"}); err == nil || !strings.Contains(err.Error(), "mutual exclusion") {
		t.Fatalf("NewModel with \"!\": %v", err)
	}
	m2, added, err := mln.MutexAsFormulas(m)
	if err != nil || added != 1 {
		t.Fatal(added, err)
	}
	db2, err := mlnfile.ReadDB(strings.NewReader(data), "t.db", m2)
	if err != nil {
		t.Fatal(err)
	}
	md, err := NewModel(m2, db2, []string{"Col", "Likes"})
	if err != nil {
		t.Fatal(err)
	}
	w := []float64{0.5, 0.3, 0}
	var r [2]*BatchResult
	for i, ground := range []bool{true, false} {
		if r[i], err = md.BatchGradient(context.Background(), w, WholePiece(md), []int32{0},
			GradOptions{Ground: ground, NoNormalize: true, BP: bp.Options{Tol: 1e-13, MaxIter: 5000}}); err != nil {
			t.Fatal(err)
		}
	}
	for f := range w {
		if math.Abs(r[0].Grad[f]-r[1].Grad[f]) > 1e-9 {
			t.Errorf("formula %d: ground gradient %v, lifted %v", f+1, r[0].Grad[f], r[1].Grad[f])
		}
	}
	if r[0].Grad[2] != 0 {
		t.Errorf("the hard formula of \"!\" has gradient %v", r[0].Grad[2])
	}

	// One person, Likes hidden: exact expectations by enumeration.
	// The block is one "exactly one" factor and Likes hangs off Col(A,R): a
	// tree, so BP is exact.
	one := "person = {A}\ncolor = {R, G, Bl}\nCol(person, color!)\nLikes(person)\n0.5 Col(x, R) => Likes(x)\n-0.7 Col(x, G)\n"
	m, _ = parse(t, one, "")
	m2, _, err = mln.MutexAsFormulas(m)
	if err != nil {
		t.Fatal(err)
	}
	db2, err = mlnfile.ReadDB(strings.NewReader("Col(A, G)\n?Likes(A)\n"), "t.db", m2)
	if err != nil {
		t.Fatal(err)
	}
	md, err = NewModel(m2, db2, []string{"Col", "Likes"})
	if err != nil {
		t.Fatal(err)
	}
	// Worlds: colour c ∈ {R, G, Bl} × Likes ∈ {0, 1}; the data fix c = G.
	w = []float64{0.5, -0.7, 0}
	var zf, zd float64
	ef, ed := make([]float64, 2), make([]float64, 2)
	for c := range 3 {
		for l := range 2 {
			n := []float64{1, 0}
			if c == 0 && l == 0 {
				n[0] = 0
			}
			if c == 1 {
				n[1] = 1
			}
			p := math.Exp(w[0]*n[0] + w[1]*n[1])
			zf += p
			ef[0] += p * n[0]
			ef[1] += p * n[1]
			if c == 1 { // Likes(A) is unobserved in the data
				zd += p
				ed[0] += p * n[0]
				ed[1] += p * n[1]
			}
		}
	}
	g, err := md.BatchGradient(context.Background(), w, WholePiece(md), []int32{0},
		GradOptions{Ground: true, NoNormalize: true, BP: bp.Options{Tol: 1e-14, MaxIter: 5000}})
	if err != nil {
		t.Fatal(err)
	}
	for f := range 2 {
		if want := ef[f]/zf - ed[f]/zd; math.Abs(g.Grad[f]-want) > 1e-9 {
			t.Errorf("one person, formula %d: gradient %v, exact %v", f+1, g.Grad[f], want)
		}
	}
}

func args32(a []int) []int32 {
	out := make([]int32, len(a))
	for i, x := range a {
		out[i] = int32(x)
	}
	return out
}
