package lbg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/mln"
)

// rst is the paper's R, S, T example (Section 3).
const rst = `t = {A, B}
R(t, t)
S(t, t)
T(t, t)
0.7 R(x, y) v S(y, z)
-1.1 S(y, z) v T(z, u)
`

// sac is the paper's smoker-asthma-cancer MLN (M2 of Section 5), with a
// hard formula and a formula with a constant added.
const sac = `person = {Anna, Bob, Carl}
Smokes(person)
Asthma(person)
Cancer(person)
Friends(person, person)
1.2 Asthma(x) => !Smokes(x)
0.8 Asthma(x) ^ Friends(x, y) => !Smokes(y)
1.5 Smokes(x) => Cancer(x)
-0.4 Friends(Anna, y) ^ Smokes(y)
Cancer(x) => Smokes(x) v Asthma(x).
`

const sacDB = `Smokes(Bob)
!Asthma(Carl)
Friends(Anna, Bob)
`

// parse reads an MLN and its evidence and the formulas' weights.
func parse(t *testing.T, src, db string) (*mln.MLN, *mln.DB, []float64) {
	t.Helper()
	m, err := mlnfile.Parse("t.mln", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "t.db", m)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, len(m.Formulas))
	for j, f := range m.Formulas {
		w[j] = f.Weight
	}
	return m, d, w
}

// groundTruth grounds m independently (all predicates open-world unless
// closed) and returns the graph and, per variable, its state atom in md.
func groundTruth(t *testing.T, md *Model, m *mln.MLN, db *mln.DB) (*fg.Graph, []int) {
	t.Helper()
	var ow []string
	for _, p := range m.Preds {
		ow = append(ow, p.Name)
	}
	gr, err := ground.Ground(context.Background(), m, db, ground.Options{OpenWorld: ow, MaxArity: 20})
	if err != nil {
		t.Fatal(err)
	}
	atom := make([]int, gr.Graph.NumVars())
	for v := range atom {
		i, ok := md.Index(gr.AtomName(int32(v)))
		if !ok {
			t.Fatalf("no state atom for %s", gr.AtomName(int32(v)))
		}
		atom[v] = i
	}
	return gr.Graph, atom
}

// logWeight is the log weight of the world x (state atoms) on g.
func logWeight(g *fg.Graph, atom []int, x []int8) float64 {
	s := 0.0
	for f := range g.NumFactors() {
		tb := g.Table(f)
		st := tb.Strides()
		j := 0
		for p, u := range g.Scope(f) {
			j += st[p] * int(x[atom[u]])
		}
		s += math.Log(tb.Values[j])
	}
	return s
}

// groundConditional enumerates the joint conditional distribution of the
// cluster's unknown atoms (those that are variables of g, in order) given
// the rest of x.
func groundConditional(g *fg.Graph, atom []int, x []int8, vars []int) []float64 {
	y := append([]int8(nil), x...)
	lw := make([]float64, 1<<len(vars))
	mx := math.Inf(-1)
	for s := range lw {
		for k, a := range vars {
			y[a] = int8(s >> k & 1)
		}
		lw[s] = logWeight(g, atom, y)
		mx = max(mx, lw[s])
	}
	z := 0.0
	for s := range lw {
		lw[s] = math.Exp(lw[s] - mx)
		z += lw[s]
	}
	for s := range lw {
		lw[s] /= z
	}
	return lw
}

// liftedJoint is the cluster's joint conditional as LBG samples it: the
// atoms of its classes independent with their class's probability.
func liftedJoint(t *testing.T, ch *Chain, ci int, vars []int) []float64 {
	classes, probs, err := ch.Conditional(ci)
	if err != nil {
		t.Fatal(err)
	}
	p := map[int]float64{}
	for k, c := range classes {
		for _, a := range c {
			p[a] = probs[k]
		}
	}
	out := make([]float64, 1<<len(vars))
	for s := range out {
		q := 1.0
		for k, a := range vars {
			if s>>k&1 == 1 {
				q *= p[a]
			} else {
				q *= 1 - p[a]
			}
		}
		out[s] = q
	}
	return out
}

// clusterVars lists the unknown atoms of cluster ci that are variables of
// the independent grounding; the others (atoms no ground formula keeps)
// must have probability ½.
func clusterVars(t *testing.T, md *Model, ch *Chain, ci int, atom []int) []int {
	isVar := map[int]bool{}
	for _, a := range atom {
		isVar[a] = true
	}
	classes, probs, err := ch.Conditional(ci)
	if err != nil {
		t.Fatal(err)
	}
	var vars []int
	for k, c := range classes {
		for _, a := range c {
			if isVar[a] {
				vars = append(vars, a)
			} else if probs[k] != 0.5 {
				t.Errorf("%s: P = %v, but no ground formula keeps it", md.Name(a), probs[k])
			}
		}
	}
	return vars
}

type testModel struct{ name, src, db string }

func testModels() []testModel {
	ms := []testModel{{"rst", rst, ""}, {"smoker-asthma-cancer", sac, sacDB}}
	r := rand.New(rand.NewPCG(11, 3))
	for i := range 30 {
		src, db := gen.SmallMLN(r, gen.MLNShape{Formulas: 3, HardOneIn: 4})
		ms = append(ms, testModel{fmt.Sprintf("random %d", i), src, db})
	}
	// existentials, a universal and "!" blocks with hard rules (the
	// clusters that mention them are ground; the others stay lifted)
	for _, em := range exactModels() {
		ms = append(ms, testModel{em.name, em.src, em.db})
	}
	return ms
}

// TestConditionalExact: for every lifted cluster of several models, given
// several blankets (the worlds of a running chain), the conditional
// distribution LBG samples from equals, on every joint state of the
// cluster's atoms, the ground conditional of those atoms given the rest,
// by enumeration on an independent grounding, to 1e-9.
func TestConditionalExact(t *testing.T) {
	checked, models := 0, 0
	for _, tm := range testModels() {
		m, db, w := parse(t, tm.src, tm.db)
		md, err := Compile(context.Background(), m, db, nil, w, Options{NoMerge: true})
		if errors.Is(err, ground.ErrContradiction) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tm.name, err)
		}
		g, atom := groundTruth(t, md, m, db)
		rng := rand.New(rand.NewPCG(1, 2))
		ch, err := md.NewChain(rng)
		if err != nil {
			continue // hard formulas unsatisfiable given the evidence
		}
		found := false
		for range 4 {
			if err := ch.Sweep(rng, nil); err != nil {
				t.Fatalf("%s: %v", tm.name, err)
			}
			for ci, c := range md.Clusters {
				if !c.Lifted {
					continue
				}
				vars := clusterVars(t, md, ch, ci, atom)
				if len(vars) > 12 {
					continue
				}
				want := groundConditional(g, atom, ch.World(), vars)
				got := liftedJoint(t, ch, ci, vars)
				for s := range want {
					if d := math.Abs(got[s] - want[s]); d > 1e-9 {
						t.Fatalf("%s, cluster %s, state %b: lifted %.12f, ground %.12f", tm.name, c, s, got[s], want[s])
					}
				}
				checked++
				found = true
			}
		}
		if found {
			models++
		}
	}
	t.Logf("%d cluster conditionals on %d models equal enumeration", checked, models)
	if models < 15 {
		t.Errorf("only %d models had a lifted cluster", models)
	}
}

// TestDrawChiSquare: the joint states LBG draws for a cluster, redrawn
// many times from one blanket, pass a chi-square test at the 1% level
// against the enumerated ground conditional (fixed seed).
func TestDrawChiSquare(t *testing.T) {
	const draws = 20000
	tested := 0
	for _, tm := range testModels()[:12] {
		m, db, w := parse(t, tm.src, tm.db)
		md, err := Compile(context.Background(), m, db, nil, w, Options{NoMerge: true})
		if errors.Is(err, ground.ErrContradiction) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		g, atom := groundTruth(t, md, m, db)
		rng := rand.New(rand.NewPCG(7, 8))
		ch, err := md.NewChain(rng)
		if err != nil {
			continue
		}
		if err := ch.Sweep(rng, nil); err != nil {
			t.Fatal(err)
		}
		for ci, c := range md.Clusters {
			if !c.Lifted {
				continue
			}
			vars := clusterVars(t, md, ch, ci, atom)
			if len(vars) == 0 || len(vars) > 5 {
				continue
			}
			want := groundConditional(g, atom, ch.World(), vars)
			chi, df, bad := drawChiSquare(t, ch, rng, ci, vars, want, draws)
			if bad >= 0 {
				t.Fatalf("%s %s: impossible state %b drawn", tm.name, c, bad)
			}
			if df < 1 {
				continue
			}
			crit := distuv.ChiSquared{K: float64(df)}.Quantile(0.99)
			if chi > crit {
				t.Errorf("%s %s: chi-square %.2f > %.2f (df %d)", tm.name, c, chi, crit, df)
			}
			tested++
		}
	}
	t.Logf("%d clusters passed", tested)
	if tested < 5 {
		t.Errorf("only %d clusters tested", tested)
	}
}

// TestRSTQuadratic: on the paper's R,S,T MLN Algorithm 2 builds the
// paper's clustering 2, {R,S} and {T}, both lifted, nothing is grounded, and the schematic time of a sweep (Algorithm 2's
// T, the work of the count messages' elimination plus one pass over the
// atoms) grows as n² — doubling n multiplies it by 4 — while the ground
// formulas grow as n³; the largest message is over one variable (n
// entries).
func TestRSTQuadratic(t *testing.T) {
	cost := func(n int) (float64, *Model) {
		c := make([]string, n)
		for i := range c {
			c[i] = fmt.Sprintf("C%d", i)
		}
		src := strings.Replace(rst, "{A, B}", "{"+strings.Join(c, ", ")+"}", 1)
		m, db, w := parse(t, src, "")
		md, err := Compile(context.Background(), m, db, nil, w, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if md.LiftedClusters() != 2 || len(md.Clusters) != 2 || md.Graph() != nil {
			t.Fatalf("n = %d: clusters %s, grounded %v", n, md.Describe(), md.Graph() != nil)
		}
		total := 0.0
		for _, c := range md.Clusters {
			total += c.Time
			plans := c.plans
			if c.multi != nil {
				plans = slices.Concat(c.multi.ua, c.multi.ub, c.multi.pair)
			}
			for _, pl := range plans {
				for _, st := range pl.steps {
					if len(st.out) > 1 {
						t.Errorf("a message over %d variables", len(st.out))
					}
				}
			}
		}
		return total, md
	}
	t1, _ := cost(20)
	t2, _ := cost(40)
	if r := t2 / t1; r < 3.9 || r > 4.1 {
		t.Errorf("schematic sweep time grows by %.2f when n doubles, want 4", r)
	}
}

// TestClusterGraph: Algorithm 2 merges R and S under the default bounds
// at n = 10 (the lifted {R,S}: one sub-problem per y, all identical, costs less
// than R and S apart — the paper's clustering 2) but not T (a cluster of
// three is ground, O(n³) against O(n²)), merges them all when the bounds
// allow it (every pair shares a formula through S); on smokers the self-joined Smokes is ground, and it is merged with
// the atoms it shares formulas with only when the bounds allow (a ground
// merge costs more than the lifted clusters it absorbs).
func TestClusterGraph(t *testing.T) {
	m, db, w := parse(t, strings.Replace(rst, "{A, B}", "{A, B, C, D, E, F, G, H, I, J}", 1), "")
	md, err := Compile(context.Background(), m, db, nil, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := md.Describe(); got != "{R,S} lifted; {T} lifted" {
		t.Errorf("default bounds, n = 10: %s", got)
	}
	m, db, w = parse(t, rst, "")
	md, err = Compile(context.Background(), m, db, nil, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := md.Describe(); got != "{R} lifted; {S} lifted; {T} lifted" {
		t.Errorf("default bounds, n = 2 (a sub-problem's cost is not yet below the messages saved): %s", got)
	}
	md, err = Compile(context.Background(), m, db, nil, w, Options{NoMerge: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := md.Describe(); got != "{R} lifted; {S} lifted; {T} lifted" {
		t.Errorf("no merge: %s", got)
	}
	md, err = Compile(context.Background(), m, db, nil, w, Options{Alpha: 1e18, Beta: 1e18})
	if err != nil {
		t.Fatal(err)
	}
	if len(md.Clusters) != 1 || md.LiftedClusters() != 0 || len(md.Clusters[0].Preds) != 3 || md.Graph() == nil {
		t.Errorf("loose bounds: %s", md.Describe())
	}
	const smokers = `person = {A, B, C}
Smokes(person)
Cancer(person)
Friends(person, person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)
`
	m, db, w = parse(t, smokers, "")
	md, err = Compile(context.Background(), m, db, nil, w, Options{NoMerge: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := md.Describe(); got != "{Smokes} ground (Smokes occurs 2 times in formula 1 (a self-join: its groundings are not independent)); {Cancer} lifted; {Friends} lifted" {
		t.Errorf("one atom per cluster: %s", got)
	}
	md2, err := Compile(context.Background(), m, db, nil, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if md2.Describe() != md.Describe() {
		t.Errorf("default bounds merged: %s", md2.Describe())
	}
	md, err = Compile(context.Background(), m, db, nil, w, Options{Alpha: 1e18, Beta: 1e18})
	if err != nil {
		t.Fatal(err)
	}
	if got := md.Describe(); got != "{Smokes,Cancer,Friends} ground (Smokes occurs 2 times in formula 1 (a self-join: its groundings are not independent))" {
		t.Errorf("loose bounds: %s", got)
	}
}

// TestNoGround: with Options.NoGround, Compile grounds nothing where every
// cluster is lifted and no formula is hard, and refuses with
// ErrNeedsGrounding where a cluster is ground or a formula hard; Offset
// inverts Atom.
func TestNoGround(t *testing.T) {
	m, db, w := parse(t, rst, "")
	md, err := Compile(context.Background(), m, db, nil, w, Options{NoGround: true})
	if err != nil || md.Graph() != nil {
		t.Fatalf("all lifted: %v, graph %v", err, md.Graph() != nil)
	}
	for i := range md.NumAtoms() {
		if p, args := md.Atom(i); md.Offset(p, args) != i {
			t.Fatalf("Offset(Atom(%d)) = %d", i, md.Offset(p, args))
		}
	}
	if _, err := Compile(context.Background(), m, db, nil, w, Options{NoGround: true, Alpha: 1e18, Beta: 1e18}); !errors.Is(err, ErrNeedsGrounding) {
		t.Errorf("a ground cluster: %v", err)
	}
	m, db, w = parse(t, rst+"R(x, y) v T(x, y).\n", "")
	if _, err := Compile(context.Background(), m, db, nil, w, Options{NoGround: true}); !errors.Is(err, ErrNeedsGrounding) {
		t.Errorf("a hard formula: %v", err)
	}
}

// drawChiSquare draws cluster ci draws times and returns the chi-square
// statistic of the joint states of atoms against want (states expected
// fewer than 5 times pooled) with its degrees of freedom; bad is a drawn
// state of probability 0 (−1: none).
func drawChiSquare(t *testing.T, ch *Chain, rng *rand.Rand, ci int, atoms []int, want []float64, draws int) (chi float64, df, bad int) {
	t.Helper()
	counts := make([]float64, len(want))
	for range draws {
		if err := ch.Draw(rng, ci, nil); err != nil {
			t.Fatal(err)
		}
		s := 0
		for k, a := range atoms {
			s |= int(ch.World()[a]) << k
		}
		counts[s]++
	}
	df = -1
	pe, po := 0.0, 0.0
	for s, p := range want {
		e := p * float64(draws)
		if e < 5 {
			if p == 0 && counts[s] > 0 {
				return 0, 0, s
			}
			pe += e
			po += counts[s]
			continue
		}
		chi += (counts[s] - e) * (counts[s] - e) / e
		df++
	}
	if pe >= 5 {
		chi += (po - pe) * (po - pe) / pe
		df++
	}
	return chi, df, -1
}
