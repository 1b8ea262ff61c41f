package learn

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"
)

const smokingSix = `Friends(person, person)
Smokes(person)
Cancer(person)
Smokes(x)
Cancer(x)
Friends(x,y)
Smokes(x) => Cancer(x)
Friends(x,y) ^ Smokes(x) => Smokes(y)
Friends(x,y) ^ Smokes(y) => Smokes(x)
`

// trainDB is Forclift's smoking training data, under ../shared/data.
var trainDB = []string{"mln", "smokers", "forclift", "smoking-train.db"}

func parse(t *testing.T, src string) *mln.MLN {
	t.Helper()
	m, err := mlnfile.Parse("test.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// readDB reads the shared evidence file at elem under ../shared/data,
// skipping the test when it is absent.
func readDB(t *testing.T, m *mln.MLN, elem []string) *mln.DB {
	t.Helper()
	db, err := mlnfile.ReadDBFiles(m, shareddata.Need(t, elem...))
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestLWLForcliftSmoking(t *testing.T) {
	// The reference: the MAP weights Forclift learns from
	// smoking.mln (which it splits into these six clauses).
	m := parse(t, smokingSix)
	d, err := CountDB(m, readDB(t, m, trainDB), "smoking-train")
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{4, 2, 16, 6, 62, 62}; fmt.Sprint(d.Counts) != fmt.Sprint(want) {
		t.Errorf("counts %v, want %v", d.Counts, want)
	}
	r, err := LWL(m, []*Data{d}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{6.819112, -7.512383, -0.951713, 7.511290, 0.490357, 0.490357}
	for j := range want {
		if math.Abs(r.Weights[j]-want[j]) > 1e-4 {
			t.Errorf("w_%d = %.6f, Forclift %.6f", j+1, r.Weights[j], want[j])
		}
	}
	// At the optimum the gradient of the posterior vanishes: data counts −
	// expected counts = w/σ².
	ll, err := LogLikelihood(m, r.Weights, d)
	if err != nil || math.Abs(ll-r.LogLik) > 1e-9 {
		t.Errorf("LogLikelihood = %v (%v), learner reported %v", ll, err, r.LogLik)
	}
}

func TestLWLSeveralDatabases(t *testing.T) {
	// The objective sums over databases: 2·loglik(d) − |w|²/(2σ²) has the
	// maximiser of loglik(d) − |w|²/(2·(σ√2)²).
	m := parse(t, smokingSix)
	d, err := CountDB(m, readDB(t, m, trainDB), "train")
	if err != nil {
		t.Fatal(err)
	}
	a, err := LWL(m, []*Data{d, d}, &Options{PriorStdDev: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := LWL(m, []*Data{d}, &Options{PriorStdDev: 3 * math.Sqrt2})
	if err != nil {
		t.Fatal(err)
	}
	for j := range a.Weights {
		if math.Abs(a.Weights[j]-b.Weights[j]) > 1e-6 {
			t.Errorf("w_%d: %v on [d, d], %v on [d] with σ√2", j+1, a.Weights[j], b.Weights[j])
		}
	}
}

// randomDB fills a database for m over n people at random.
func randomDB(t *testing.T, m *mln.MLN, r *rand.Rand, n int, density float64) *mln.DB {
	db := mln.NewDB(m)
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("P%d", i)
	}
	for _, p := range m.Preds {
		var rec func(args []string)
		rec = func(args []string) {
			if len(args) == p.Arity() {
				if r.Float64() < density {
					if err := db.AddAtom(p.Name, append([]string(nil), args...), mln.True); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			for _, c := range names {
				rec(append(args, c))
			}
		}
		rec(nil)
	}
	// Make sure every person is in the domain.
	for _, c := range names {
		if err := db.AddAtom(m.Preds[0].Name, append([]string{c}, repeat(c, m.Preds[0].Arity()-1)...), mln.False); err != nil && !strings.Contains(err.Error(), "contradict") {
			t.Fatal(err)
		}
	}
	return db
}

func repeat(s string, k int) []string {
	out := make([]string, k)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestCountPairsMatchesEnumeration(t *testing.T) {
	m := parse(t, `person = {Anna}
Smokes(person)
Cancer(person)
Friends(person, person)
Friends(x,y) ^ Smokes(x) => Smokes(y)
Friends(x,y) <=> Friends(y,x)
Friends(x,x) v x = y v Cancer(y)
!Friends(x,y) ^ x != y ^ Smokes(y)
Friends(x, Anna) ^ Cancer(y) ^ y = Anna
EXIST y Friends(x,y) ^ Smokes(y)
Smokes(x) => Cancer(x)
`)
	r := rand.New(rand.NewPCG(7, 8))
	for _, density := range []float64{0.05, 0.3, 0.7} {
		db := randomDB(t, m, r, 9, density)
		w := newWorld(m, db)
		for j, f := range m.Formulas {
			got, err := w.count(j)
			if err != nil {
				t.Fatal(err)
			}
			want := 0.0
			b := make([]int32, len(f.Vars))
			var rec func(i int)
			rec = func(i int) {
				if i == len(f.Vars) {
					if v, err := w.eval(j, b); err != nil {
						t.Fatal(err)
					} else if v {
						want++
					}
					return
				}
				for k := range w.dom[m.TypeIndex(f.Vars[i].Type)] {
					b[i] = int32(k)
					rec(i + 1)
				}
			}
			rec(0)
			if got != want {
				t.Errorf("density %v, formula %d (%s): count %v, enumeration %v", density, j+1, f.Text, got, want)
			}
		}
	}
}

// directPLL computes the pseudo-log-likelihood by recounting every formula
// in the database with each atom flipped.
func directPLL(t *testing.T, m *mln.MLN, db *mln.DB, w []float64, equal bool) float64 {
	base, err := CountDB(m, db, "db")
	if err != nil {
		t.Fatal(err)
	}
	dom := func(ty int) []string { return db.Domain(m.Types[ty].Name) }
	total := 0.0
	for _, p := range m.Preds {
		if len(p.MutexArgs) > 0 {
			total += directBlockPLL(t, m, db, p, w, base.Counts, equal)
			continue
		}
		var atoms [][]string
		var rec func(args []string)
		rec = func(args []string) {
			if len(args) == p.Arity() {
				atoms = append(atoms, append([]string(nil), args...))
				return
			}
			for _, c := range dom(p.TypeIdx[len(args)]) {
				rec(append(args, c))
			}
		}
		rec(nil)
		for _, args := range atoms {
			v, _ := db.LookupAtom(p.Name, args...)
			flipped := mln.NewDB(m)
			for _, a := range db.Atoms {
				fa := make([]string, len(a.Args))
				for i, x := range a.Args {
					fa[i] = db.Domain(m.Preds[a.Pred].ArgTypes[i])[x]
				}
				if a.Pred == p.Index && fmt.Sprint(fa) == fmt.Sprint(args) {
					continue
				}
				if err := flipped.AddAtom(m.Preds[a.Pred].Name, fa, a.Truth); err != nil {
					t.Fatal(err)
				}
			}
			if v != mln.True {
				if err := flipped.AddAtom(p.Name, args, mln.True); err != nil {
					t.Fatal(err)
				}
			}
			fc, err := CountDB(m, flipped, "flipped")
			if err != nil {
				t.Fatal(err)
			}
			s := 0.0
			for j := range w {
				s += w[j] * (fc.Counts[j] - base.Counts[j])
			}
			c := 1.0
			if equal {
				c = 1 / float64(len(atoms))
			}
			total -= c * math.Log1p(math.Exp(s))
		}
	}
	return total
}

// withAtoms returns a copy of db with the atoms of pred p set as given.
func withAtoms(t *testing.T, m *mln.MLN, db *mln.DB, p *mln.PredDecl, set map[string]mln.Truth) *mln.DB {
	out := mln.NewDB(m)
	for _, a := range db.Atoms {
		args := make([]string, len(a.Args))
		for i, x := range a.Args {
			args[i] = db.Domain(m.Preds[a.Pred].ArgTypes[i])[x]
		}
		if a.Pred == p.Index {
			if _, ok := set[fmt.Sprint(args)]; ok {
				continue
			}
		}
		if err := out.AddAtom(m.Preds[a.Pred].Name, args, a.Truth); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range set {
		if v == mln.True {
			args := strings.Fields(strings.Trim(k, "[]"))
			if err := out.AddAtom(p.Name, args, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	return out
}

// directBlockPLL is the pseudo-log-likelihood of the blocks of a predicate
// with one mutually exclusive last argument, from the counts of every world
// that moves a block's true atom: Σ_blocks log(e^{w·n(observed)} /
// Σ_c e^{w·n(true atom at c)}).
func directBlockPLL(t *testing.T, m *mln.MLN, db *mln.DB, p *mln.PredDecl, w, base []float64, equal bool) float64 {
	if p.Arity() != 2 || p.MutexArgs[0] != 1 {
		t.Fatalf("directBlockPLL handles P(a, b!) only")
	}
	owners, values := db.Domain(p.ArgTypes[0]), db.Domain(p.ArgTypes[1])
	total := 0.0
	for _, o := range owners {
		var obs string
		for _, c := range values {
			if v, _ := db.LookupAtom(p.Name, o, c); v == mln.True {
				obs = c
			}
		}
		var terms []float64
		for _, c := range values {
			set := map[string]mln.Truth{fmt.Sprint([]string{o, obs}): mln.False, fmt.Sprint([]string{o, c}): mln.True}
			fc, err := CountDB(m, withAtoms(t, m, db, p, set), "moved")
			if err != nil {
				t.Fatal(err)
			}
			s := 0.0
			for j := range w {
				s += w[j] * (fc.Counts[j] - base[j])
			}
			terms = append(terms, s)
		}
		lse := logSumExp(terms)
		c := 1.0
		if equal {
			c = 1 / float64(len(owners))
		}
		total -= c * lse // the observed world's term is e^0
	}
	return total
}

// PLL on a model with mutually exclusive arguments: one term per block,
// equal to the direct computation from the counts of the moved worlds, and
// the learned weights are a maximum.
func TestPLLBlocks(t *testing.T) {
	m := parse(t, `person = {A, B, C}
color = {R, G, Bl}
Smokes(person)
Col(person, color!)
Friends(person, person)
0.5 Smokes(x) ^ Col(x, R)
0.3 Col(x, c) ^ Friends(x, y) => Col(y, c)
-0.2 Smokes(x)
Friends(x, y) => Friends(y, x)
0.4 Col(x, R) ^ !Col(x, G)
`)
	data := "Smokes(A)\nCol(A, R)\nCol(B, G)\nCol(C, R)\nFriends(A, B)\nFriends(B, A)\nFriends(B, C)\nFriends(C, B)\n"
	db, err := mlnfile.ReadDB(strings.NewReader(data), "b.db", m)
	if err != nil {
		t.Fatal(err)
	}
	for _, equal := range []bool{true, false} {
		groups := map[string]*pllGroup{}
		if err := pllDeltas(m, db, "b.db", equal, groups); err != nil {
			t.Fatal(err)
		}
		blocks := 0
		for _, g := range groups {
			if len(g.alts) > 1 {
				blocks++
			}
		}
		if blocks == 0 {
			t.Fatal("no block terms")
		}
		for _, w := range [][]float64{{0.5, 0.3, -0.2, 1, 0.4}, {-1.5, 2, 0.7, -0.4, -1.1}} {
			got := evalPLL(groups, w)
			if want := directPLL(t, m, db, w, equal); math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Errorf("equal predicate weights %v, w %v: PLL %.15g, direct %.15g", equal, w, got, want)
			}
		}
	}
	r, err := PLL(m, []*mln.DB{db}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkPLLMaximum(t, m, db, r)
	// Data that breaks a block: two true atoms (the reader refuses them) or
	// none.
	if _, err := mlnfile.ReadDB(strings.NewReader("Col(A, R)\nCol(A, G)\n"), "bad.db", m); err == nil {
		t.Error("two true atoms in a block were read")
	}
	bad, err := mlnfile.ReadDB(strings.NewReader("Col(A, R)\nCol(C, R)\n"), "bad.db", m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PLL(m, []*mln.DB{bad}, nil, nil); err == nil || !strings.Contains(err.Error(), "no atom of the block of Col(B,R) is true") {
		t.Errorf("a block without a true atom: %v", err)
	}
}

// evalPLL evaluates the grouped objective (without prior) at w.
func evalPLL(groups map[string]*pllGroup, w []float64) float64 {
	total := 0.0
	for _, g := range groups {
		terms := []float64{0}
		for _, a := range g.alts {
			terms = append(terms, dot(w, a))
		}
		total -= g.mult * logSumExp(terms)
	}
	return total
}

func TestPLLObjective(t *testing.T) {
	m := parse(t, smokingSix)
	db := readDB(t, m, trainDB)
	for _, equal := range []bool{true, false} {
		groups := map[string]*pllGroup{}
		if err := pllDeltas(m, db, "train", equal, groups); err != nil {
			t.Fatal(err)
		}
		w := []float64{0.3, -1.2, 0.5, 2, -0.7, 1.1}
		got := 0.0
		for _, g := range groups {
			if len(g.alts) != 1 {
				t.Fatalf("a group with %d alternatives in a model without blocks", len(g.alts))
			}
			got -= g.mult * softplus(dot(w, g.alts[0]))
		}
		if want := directPLL(t, m, db, w, equal); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("equal predicate weights %v: PLL %.15g, direct %.15g", equal, got, want)
		}
	}
	// The learned weights are a maximum: the objective's gradient vanishes.
	r, err := PLL(m, []*mln.DB{db}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for j, w := range r.Weights {
		if math.IsNaN(w) {
			t.Errorf("w_%d is NaN", j+1)
		}
	}
	checkPLLMaximum(t, m, db, r)
}

func sq(w []float64) float64 {
	s := 0.0
	for _, x := range w {
		s += x * x
	}
	return s
}

func TestWriteMLNRoundTrip(t *testing.T) {
	src := "person = {Anna, Bob}\nSmokes(person)\nFriends(person, person)\n1 Smokes(x)\nFriends(x,y) =>\n  Friends(y,x)\nSmokes(Anna).\n@2.5 Friends(x,x)\n"
	m := parse(t, src)
	w := []float64{-1.25, 3.5e-7, 0, 2.5}
	var buf bytes.Buffer
	if err := WriteMLN(&buf, m, w, "a header\nline two"); err != nil {
		t.Fatal(err)
	}
	back := parse(t, buf.String())
	if len(back.Formulas) != len(m.Formulas) {
		t.Fatalf("%d formulas read back, want %d:\n%s", len(back.Formulas), len(m.Formulas), buf.String())
	}
	for j, f := range back.Formulas {
		if m.Formulas[j].Hard != f.Hard || f.Expr.String() != m.Formulas[j].Expr.String() {
			t.Errorf("formula %d reads back as %v", j+1, f)
		}
		if !f.Hard && f.Weight != w[j] {
			t.Errorf("formula %d: weight %v, want %v", j+1, f.Weight, w[j])
		}
	}
	if !strings.Contains(buf.String(), "-1.25 Smokes(x)\n") || !strings.Contains(buf.String(), "Smokes(Anna).\n") {
		t.Errorf("unexpected output:\n%s", buf.String())
	}
}

// Per-constant formulas are learned on the expanded model: each copy gets
// its own weight, the copies' counts add up to the tied formula's count,
// and with equal weights the expanded model is the tied one.
func TestPerConstantFormulas(t *testing.T) {
	src := "person = {A, B, C}\nSmokes(person)\nCancer(person)\nFriends(person, person)\nSmokes(+x) => Cancer(x)\nFriends(x, y) ^ Smokes(x) => Smokes(y)\n"
	data := "Smokes(A)\nCancer(A)\nSmokes(B)\nFriends(A, B)\n"
	m := parse(t, src)
	db, err := mlnfile.ReadDB(strings.NewReader(data), "t.db", m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := PLL(m, []*mln.DB{db}, nil, nil); err == nil || !strings.Contains(err.Error(), "per-constant") {
		t.Errorf("PLL on +x: %v, want a per-constant error", err)
	}
	if _, err := CountDB(m, db, "t.db"); err == nil || !strings.Contains(err.Error(), "per-constant") {
		t.Errorf("CountDB on +x: %v, want a per-constant error", err)
	}
	sm := parse(t, "person = {A}\nSmokes(person)\n*Smokes(x)\n")
	if _, err := CountDB(sm, mln.NewDB(sm), "empty"); err == nil || !strings.Contains(err.Error(), "starred atom *Smokes") {
		t.Errorf("CountDB on *Smokes: %v, want a starred-atom error", err)
	}
	ex, origin, err := mln.Expand(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	exDB, err := mlnfile.ReadDB(strings.NewReader(data), "t.db", ex)
	if err != nil {
		t.Fatal(err)
	}
	tied := parse(t, strings.Replace(src, "+x", "x", 1))
	tiedDB, err := mlnfile.ReadDB(strings.NewReader(data), "t.db", tied)
	if err != nil {
		t.Fatal(err)
	}
	dEx, err := CountDB(ex, exDB, "t.db")
	if err != nil {
		t.Fatal(err)
	}
	dTied, err := CountDB(tied, tiedDB, "t.db")
	if err != nil {
		t.Fatal(err)
	}
	sum := make([]float64, len(tied.Formulas))
	for k, c := range dEx.Counts {
		sum[origin[k]] += c
	}
	if !reflect.DeepEqual(sum, dTied.Counts) || !reflect.DeepEqual(dEx.Counts[:3], []float64{1, 0, 1}) {
		t.Errorf("expanded counts %v (summed %v), tied %v", dEx.Counts, sum, dTied.Counts)
	}
	// Equal weights: the same distribution, so the same log Z.
	w := []float64{0.7, 1.1}
	wEx := make([]float64, len(ex.Formulas))
	for k := range wEx {
		wEx[k] = w[origin[k]]
	}
	zEx, err := wfomcLogZ(ex, wEx, dEx.Sizes)
	if err != nil {
		t.Fatal(err)
	}
	zTied, err := wfomcLogZ(tied, w, dTied.Sizes)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(zEx-zTied) > 1e-12*zTied {
		t.Errorf("log Z expanded %.15g, tied %.15g", zEx, zTied)
	}
	// A satisfies the formula, B violates it, C satisfies it vacuously.
	for name, learnIt := range map[string]func() (*Result, error){
		"pll": func() (*Result, error) { return PLL(ex, []*mln.DB{exDB}, nil, nil) },
		"lwl": func() (*Result, error) { return LWL(ex, []*Data{dEx}, nil) },
	} {
		r, err := learnIt()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if wa, wb := r.Weights[0], r.Weights[1]; !(wa > 1 && wb < -1) {
			t.Errorf("%s: w(Smokes(A) => Cancer(A)) = %v, w(Smokes(B) => Cancer(B)) = %v; want clearly positive and negative", name, wa, wb)
		}
	}
}

func wfomcLogZ(m *mln.MLN, w []float64, sizes map[string]int64) (float64, error) {
	mod, err := wfomc.Compile(m, nil)
	if err != nil {
		return 0, err
	}
	r, err := mod.Evaluate(w, sizes)
	if err != nil {
		return 0, err
	}
	return r.LogZ, nil
}

func logSumExp(xs []float64) float64 {
	lse := math.Inf(-1)
	for _, x := range xs {
		lse = math.Max(lse, x) + math.Log1p(math.Exp(-math.Abs(lse-x)))
	}
	return lse
}

// checkPLLMaximum checks that moving any learned weight by ±1e-3 does not
// raise the objective (directly computed PLL with the N(0, 100²) prior).
func checkPLLMaximum(t *testing.T, m *mln.MLN, db *mln.DB, r *Result) {
	t.Helper()
	for _, h := range []float64{1e-3, -1e-3} {
		for j := range r.Weights {
			w := append([]float64(nil), r.Weights...)
			w[j] += h
			if v := directPLL(t, m, db, w, true) - sq(w)/2e4; v > r.Objective+1e-9 {
				t.Errorf("moving w_%d by %v raises the objective from %.12g to %.12g", j+1, h, r.Objective, v)
			}
		}
	}
}

// Random models with a mutually exclusive predicate: the grouped PLL
// objective equals the direct computation at random weights.
func TestPLLBlocksRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	atoms := []string{"Smokes(x)", "Smokes(y)", "Col(x, c)", "Col(y, c)", "Col(x, R)", "Col(y, G)", "Friends(x, y)", "Friends(y, x)", "Col(x, d)", "x = y", "c = d"}
	checked := 0
	for i := 0; i < 40; i++ {
		src := "person = {A, B, C}\ncolor = {R, G, Bl}\nSmokes(person)\nCol(person, color!)\nFriends(person, person)\n"
		nf := 1 + r.IntN(3)
		for f := 0; f < nf; f++ {
			body := ""
			for k := 0; k < 1+r.IntN(3); k++ {
				lit := atoms[r.IntN(len(atoms))]
				if r.IntN(2) == 0 {
					lit = "!(" + lit + ")"
				}
				if k == 0 {
					body = lit
				} else {
					body = "(" + body + ")" + []string{" v ", " ^ ", " => ", " <=> "}[r.IntN(4)] + lit
				}
			}
			src += fmt.Sprintf("%.2f %s\n", 2*r.Float64()-1, body)
		}
		m, err := mlnfile.Parse("r.mln", []byte(src))
		if err != nil {
			continue // e.g. x = y alone: no typed variable
		}
		var data strings.Builder
		for _, p := range []string{"A", "B", "C"} {
			fmt.Fprintf(&data, "Col(%s, %s)\n", p, []string{"R", "G", "Bl"}[r.IntN(3)])
			if r.IntN(2) == 0 {
				fmt.Fprintf(&data, "Smokes(%s)\n", p)
			}
			for _, q := range []string{"A", "B", "C"} {
				if r.IntN(3) == 0 {
					fmt.Fprintf(&data, "Friends(%s, %s)\n", p, q)
				}
			}
		}
		db, err := mlnfile.ReadDB(strings.NewReader(data.String()), "r.db", m)
		if err != nil {
			t.Fatal(err)
		}
		for _, equal := range []bool{true, false} {
			groups := map[string]*pllGroup{}
			if err := pllDeltas(m, db, "r.db", equal, groups); err != nil {
				t.Fatalf("%v\n%s", err, src)
			}
			w := make([]float64, len(m.Formulas))
			for j := range w {
				w[j] = 3*r.Float64() - 1.5
			}
			got, want := evalPLL(groups, w), directPLL(t, m, db, w, equal)
			if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
				t.Fatalf("equal %v, w %v: PLL %.15g, direct %.15g\n%s%s", equal, w, got, want, src, data.String())
			}
		}
		checked++
	}
	if checked < 25 {
		t.Fatalf("only %d random models checked", checked)
	}
}
