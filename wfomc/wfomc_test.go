package wfomc

import (
	"fmt"
	"math"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/internal/shareddata"
)

// friendsSmokers is Forclift's FriendsSmokerModel (factor weights 2 and 1.2)
// written as an MLN: a factor "2 if the clause holds, 1 if not" is the
// weight ln 2.
const friendsSmokers = `person = {Guy, Luc, Bert}
smokes(person)
cancer(person)
friends(person, person)
0.6931471805599453 !smokes(x) v cancer(x)
0.1823215567939546 !friends(x,y) v smokes(x) v !smokes(y)
0.1823215567939546 !friends(x,y) v !smokes(x) v smokes(y)
`

// fsClosedForm returns log Z and its gradient for friendsSmokers with
// weights w at domain size n, from the closed form (summing over the number
// k of smokers; the pair factors depend only on who smokes):
//
//	Z = Σ_k C(n,k) (e^w1+1)^k (2e^w1)^(n−k) (2e^(w2+w3))^(k²+(n−k)²)
//	      · (e^w2(1+e^w3))^(k(n−k)) · (e^w3(1+e^w2))^(k(n−k)).
func fsClosedForm(w [3]float64, n int64) (float64, [3]float64) {
	e1, e2, e3 := math.Exp(w[0]), math.Exp(w[1]), math.Exp(w[2])
	maxL := math.Inf(-1)
	var ls []float64
	var gs [][3]float64
	for k := int64(0); k <= n; k++ {
		lc, _ := math.Lgamma(float64(n + 1))
		a, _ := math.Lgamma(float64(k + 1))
		b, _ := math.Lgamma(float64(n - k + 1))
		same := float64(k*k + (n-k)*(n-k))
		diff := float64(k * (n - k))
		fk, fnk := float64(k), float64(n-k)
		l := lc - a - b + fk*math.Log(e1+1) + fnk*(math.Ln2+w[0]) + same*(math.Ln2+w[1]+w[2]) +
			diff*(w[1]+math.Log1p(e3)) + diff*(w[2]+math.Log1p(e2))
		g := [3]float64{
			fk*e1/(e1+1) + fnk,
			same + diff + diff*e2/(1+e2),
			same + diff*e3/(1+e3) + diff,
		}
		ls = append(ls, l)
		gs = append(gs, g)
		maxL = math.Max(maxL, l)
	}
	z := 0.0
	var g [3]float64
	for i, l := range ls {
		p := math.Exp(l - maxL)
		z += p
		for j := range g {
			g[j] += p * gs[i][j]
		}
	}
	for j := range g {
		g[j] /= z
	}
	return maxL + math.Log(z), g
}

func TestForcliftFriendsSmokers(t *testing.T) {
	m := mustParse(t, friendsSmokers)
	mod, err := Compile(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Forclift's TestFriendsSmoker.
	for _, c := range []struct {
		n    int64
		want float64
	}{{3, 15.11455938018598}, {10, 121.80653199663033}, {100, 10716.532380061839}} {
		r, err := mod.Evaluate(weightsOf(m), map[string]int64{"person": c.n})
		if err != nil {
			t.Fatal(err)
		}
		if !near(r.LogZ, c.want, 1e-13) {
			t.Errorf("n = %d: log Z = %.17g, Forclift %.17g", c.n, r.LogZ, c.want)
		}
	}
}

func TestFriendsSmokersClosedFormLargeN(t *testing.T) {
	m := mustParse(t, strings.Replace(friendsSmokers, "person = {Guy, Luc, Bert}\n", "", 1))
	mod, err := Compile(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int64{1, 2, 7, 1000, 100000}
	if !testing.Short() {
		sizes = append(sizes, 1000000)
	}
	for _, w := range [][3]float64{{0.6931471805599453, 0.1823215567939546, 0.1823215567939546}, {-1.5, 0.7, -0.3}} {
		for _, n := range sizes {
			r, err := mod.Evaluate(w[:], map[string]int64{"person": n})
			if err != nil {
				t.Fatal(err)
			}
			lz, g := fsClosedForm(w, n)
			// Both sides are double-precision sums of up to n+1 terms of
			// size up to 10^12: agreement to ~1e-13 relative is the most
			// either can claim.
			if !near(r.LogZ, lz, 1e-13) {
				t.Errorf("w = %v, n = %d: log Z = %.17g, closed form %.17g", w, n, r.LogZ, lz)
			}
			for j := range g {
				if !near(r.ExpectedCounts[j], g[j], 1e-11) {
					t.Errorf("w = %v, n = %d: E[n_%d] = %.17g, closed form %.17g", w, n, j+1, r.ExpectedCounts[j], g[j])
				}
			}
		}
	}
}

func TestBimodalLargeN(t *testing.T) {
	// With weight 2, Friends(x,y) ^ Smokes(x) => Smokes(y) makes almost all
	// mass sit on "nobody smokes" and "everybody smokes", two terms whose
	// logs are about 2.7·10^12 and equal by symmetry (Smokes ↔ !Smokes,
	// Friends transposed). P(Smokes(Anna)) = 1/2 exactly; a rounding error of
	// 10^−4 in either log (single-double products k·log r) would show.
	m := mustParse(t, "person = {Anna, Bob}\nSmokes(person)\nFriends(person, person)\n2 Friends(x,y) ^ Smokes(x) => Smokes(y)\n")
	q, err := ParseQuery(m, "Smokes(Anna)")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := Compile(m, &Options{Queries: []Query{q}})
	if err != nil {
		t.Fatal(err)
	}
	sizes := []int64{10, 1000, 100000}
	if !testing.Short() {
		sizes = append(sizes, 1000000)
	}
	for _, n := range sizes {
		r, err := mod.Evaluate([]float64{2}, map[string]int64{"person": n})
		if err != nil {
			t.Fatal(err)
		}
		// Closed form: cells Smokes / !Smokes, each of weight 2e^w (Friends(x,x)
		// free, the diagonal grounding true); pair weights (2e^w)² for equal
		// and (1+e^w)·2e^w for different smokers.
		w, fn := 2.0, float64(n)
		maxL := math.Inf(-1)
		var ls, gs []float64
		for k := int64(0); k <= n; k++ {
			a, _ := math.Lgamma(fn + 1)
			b, _ := math.Lgamma(float64(k + 1))
			c, _ := math.Lgamma(float64(n - k + 1))
			same := float64(k*(k-1)/2 + (n-k)*(n-k-1)/2)
			mix := float64(k * (n - k))
			ls = append(ls, a-b-c+fn*(math.Ln2+w)+same*2*(math.Ln2+w)+mix*(math.Log1p(math.Exp(w))+math.Ln2+w))
			gs = append(gs, fn+2*same+mix*(1+1/(1+math.Exp(-w))))
			maxL = math.Max(maxL, ls[len(ls)-1])
		}
		z, e := 0.0, 0.0
		for i := range ls {
			p := math.Exp(ls[i] - maxL)
			z += p
			e += p * gs[i]
		}
		if lz := maxL + math.Log(z); !near(r.LogZ, lz, 1e-14) || !near(r.ExpectedCounts[0], e/z, 1e-12) {
			t.Errorf("n = %d: log Z = %.17g, E = %.17g; closed form %.17g, %.17g", n, r.LogZ, r.ExpectedCounts[0], lz, e/z)
		}
		if math.Abs(r.Marginals[0]-0.5) > 1e-12 {
			t.Errorf("n = %d: P(Smokes(Anna)) = %.17g, want 1/2", n, r.Marginals[0])
		}
	}
}

func TestForcliftFriendsSmokersWithEvidence(t *testing.T) {
	// Forclift's FriendsSmokerModel(n, {guy, luc, bert}, {friends(guy,luc),
	// smokes(luc)}): the evidence atoms are unit clauses.
	m := mustParse(t, friendsSmokers)
	ev := []Literal{{"friends", []string{"Guy", "Luc"}, true}, {"smokes", []string{"Luc"}, true}}
	mod, err := Compile(m, &Options{Evidence: ev})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int64
		want float64
	}{{3, 13.493571492290151}, {10, 119.89286177478779}, {100, 10698.228003257838}} {
		r, err := mod.Evaluate(weightsOf(m), map[string]int64{"person": c.n})
		if err != nil {
			t.Fatal(err)
		}
		if !near(r.LogZ, c.want, 1e-13) {
			t.Errorf("n = %d: log Z = %.17g, Forclift %.17g", c.n, r.LogZ, c.want)
		}
	}
	checkAgainstBrute(t, "friends-smokers with evidence", m, weightsOf(m), map[string]int64{"person": 3}, ev,
		[]string{"cancer(Luc)", "smokes(Guy)", "friends(Luc,Guy)"}, nil)
}

func TestForcliftFriendsmokerMLN(t *testing.T) {
	m, err := mlnfile.ParseFile(shareddata.Need(t, "mln", "smokers", "forclift", "friendsmoker.mln"))
	if err != nil {
		t.Fatal(err)
	}
	var qs []Query
	for _, s := range []string{"friends(Guy,Nima)", "smokes(Guy)", "friends(Nima,Nima)"} {
		q, err := ParseQuery(m, s)
		if err != nil {
			t.Fatal(err)
		}
		qs = append(qs, q)
	}
	mod, err := Compile(m, &Options{Queries: qs})
	if err != nil {
		t.Fatal(err)
	}
	r, err := mod.Evaluate(weightsOf(m), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !near(r.LogZ, 68.63908810719217, 1e-13) {
		t.Errorf("log Z = %.17g, Forclift 68.63908810719217", r.LogZ)
	}
	// Forclift prints 0.4580488556024473, 0.49999999999999906 and
	// 0.49999999999999906; the last two are exactly 1/2 by symmetry.
	for i, want := range []float64{0.4580488556024473, 0.5, 0.5} {
		if math.Abs(r.Marginals[i]-want) > 1e-12 {
			t.Errorf("P(%s) = %.17g, want %.17g", qs[i].Text, r.Marginals[i], want)
		}
	}
}

func TestExistentialClosedForm(t *testing.T) {
	// ∀x ∃y F(x,y): every row of the relation is non-empty, so
	// Z = (2^n − 1)^n; the expected number of true F atoms is
	// n · n·2^(n−1)/(2^n − 1).
	m := mustParse(t, "t = {A}\nF(t, t)\nEXIST y F(x,y).\n0 F(x,y)\n")
	mod, err := Compile(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int64{1, 2, 3, 10, 60, 500} {
		r, err := mod.Evaluate([]float64{0, 0}, map[string]int64{"t": n})
		if err != nil {
			t.Fatal(err)
		}
		fn := float64(n)
		want := fn * (fn*math.Ln2 + math.Log(-math.Expm1(-fn*math.Ln2)))
		if !near(r.LogZ, want, 1e-12) {
			t.Errorf("n = %d: log Z = %.17g, want %.17g (%.1f digits lost)", n, r.LogZ, want, r.DigitsLost)
		}
		wantCount := fn * fn / 2 / -math.Expm1(-fn*math.Ln2)
		if !near(r.ExpectedCounts[1], wantCount, 1e-11) {
			t.Errorf("n = %d: E[#F] = %.17g, want %.17g", n, r.ExpectedCounts[1], wantCount)
		}
	}
}

func TestFeaturesAgainstBruteForce(t *testing.T) {
	cases := []struct {
		name  string
		src   string
		sizes map[string]int64
		ev    []Literal
		qs    []string
	}{
		{"two types", "person = {A}\ncourse = {C}\nProf(person)\nTeaches(person, course)\nHard(course)\n" +
			"1.2 Teaches(p,c) => Prof(p)\n-0.7 Teaches(p,c) ^ Hard(c)\n0.3 EXIST c Teaches(p,c)\n",
			map[string]int64{"person": 3, "course": 2}, nil, []string{"Prof(A)", "Teaches(A,C)"}},
		{"hard existential and universal", "t = {A}\nP(t)\nR(t,t)\nEXIST y R(x,y) ^ P(y).\n0.5 FORALL y R(x,y) => P(x)\n-1 P(x)\n",
			map[string]int64{"t": 3}, nil, []string{"P(A)"}},
		{"nullary and constants", "t = {A, B}\nRain\nWet(t)\nR(t,t)\n1.5 Rain => Wet(x)\n-0.4 Wet(A) ^ R(A,x)\n0.8 R(x,B) v Rain\nWet(B) v Rain.\n",
			map[string]int64{"t": 3}, []Literal{{"Wet", []string{"E1_t"}, false}}, []string{"Rain", "R(A,B)", "Wet(E1_t)", "R(E1_t,E1_t)"}},
		{"unary evidence blocks", "t = {A}\nS(t)\nC(t)\nF(t,t)\n0.9 S(x) => C(x)\n0.4 F(x,y) ^ S(x) => S(y)\n",
			map[string]int64{"t": 4}, []Literal{{"S", []string{"A"}, true}, {"S", []string{"E1_t"}, true}, {"C", []string{"E2_t"}, false}},
			[]string{"C(A)", "S(E3_t)", "F(A,E1_t)", "F(E1_t,E2_t) ^ C(E1_t)"}},
		{"equality", "t = {A}\nF(t,t)\n0.7 F(x,y) ^ x != y\n-0.2 F(x,y) <=> F(y,x)\n", map[string]int64{"t": 3}, nil, []string{"F(A,A)"}},
		{"three anonymous constants in a query", "t = {A}\nF(t,t)\n0.7 F(x,y) => F(y,x)\n", map[string]int64{"t": 3}, nil,
			[]string{"F(A,E1_t) ^ F(E1_t,E2_t)"}},
	}
	for _, c := range cases {
		m := mustParse(t, c.src)
		checkAgainstBrute(t, c.name, m, weightsOf(m), c.sizes, c.ev, c.qs, nil)
	}
}

func TestCountEvidence(t *testing.T) {
	m := mustParse(t, "t = {A}\nS(t)\nC(t)\nF(t,t)\n0.9 S(x) => C(x)\n0.4 F(x,y) ^ S(x) => S(y)\n-0.3 C(A)\n")
	n := int64(3)
	for count := int64(0); count <= 2; count++ {
		mod, err := Compile(m, &Options{Counts: []CountEvidence{{"S", count}}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := mod.Evaluate(weightsOf(m), map[string]int64{"t": n})
		if err != nil {
			t.Fatal(err)
		}
		// A is named by a formula; the others are anonymous.
		want := brute(m, weightsOf(m), map[string]int64{"t": n}, nil, nil, func(w *bruteWorld, x uint64) bool {
			k := int64(0)
			for _, e := range w.dom[0][1:] {
				if x>>w.atomID["S("+e+")"]&1 == 1 {
					k++
				}
			}
			return k == count
		})
		if !near(got.LogZ, want.logZ, 1e-9) {
			t.Errorf("count %d: log Z = %.15g, brute force %.15g", count, got.LogZ, want.logZ)
		}
		for j := range want.counts {
			if !near(got.ExpectedCounts[j], want.counts[j], 1e-9) {
				t.Errorf("count %d: E[n_%d] = %.15g, brute force %.15g", count, j+1, got.ExpectedCounts[j], want.counts[j])
			}
		}
	}
}

func TestPowerRule(t *testing.T) {
	// Ternary predicates: not FO2, but p occurs in every atom (at position 1
	// of TaughtBy and 0 of Prof, Busy).
	src := "person = {A}\ncourse = {C}\nquarter = {Q}\nTaughtBy(course, person, quarter)\nProf(person)\nBusy(person, quarter)\n" +
		"1.1 TaughtBy(c,p,q) => Prof(p)\n-0.6 TaughtBy(c,p,q) ^ Busy(p,q)\n0.4 EXIST c TaughtBy(c,p,q)\n"
	m := mustParse(t, src)
	sizes := map[string]int64{"person": 2, "course": 2, "quarter": 2}
	checkAgainstBrute(t, "power rule", m, weightsOf(m), sizes, nil, []string{"Prof(A)", "TaughtBy(C,A,Q)"}, nil)
	mod, err := Compile(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Lifted: large domains are cheap.
	if _, err := mod.Evaluate(weightsOf(m), map[string]int64{"person": 100000, "course": 300, "quarter": 12}); err != nil {
		t.Fatal(err)
	}
}

func TestBeyondFO2(t *testing.T) {
	src := "t = {A}\nF(t,t)\n0.5 F(x,y) ^ F(y,z) => F(x,z)\n"
	m := mustParse(t, src)
	_, err := Compile(m, nil)
	if err == nil {
		t.Fatal("transitivity compiled without the ground fallback")
	}
	for _, want := range []string{"formula 1", "F(x,y) ^ F(y,z) => F(x,z)", "x, y, z", "--allow-ground"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	checkAgainstBrute(t, "ground fallback", m, weightsOf(m), map[string]int64{"t": 3}, nil, []string{"F(A,A)"}, &Options{AllowGround: true})
	// The FO2 part of a model stays lifted next to a ground component.
	m2 := mustParse(t, src+"P(t)\n1.3 P(x) ^ P(y)\n")
	checkAgainstBrute(t, "mixed", m2, weightsOf(m2), map[string]int64{"t": 2}, nil, nil, &Options{AllowGround: true})
	mod, err := Compile(m, &Options{AllowGround: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Evaluate(weightsOf(m), map[string]int64{"t": 10}); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("ground fallback at n = 10: error %v, want a clear refusal", err)
	}
}

func TestErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"t = {A}\nP(t)\n1 P(+x)\n", "per-constant"},
		{"t = {A}\nP(t, c!)\nc = {R, G}\n1 P(x, R)\n", "mutually exclusive"},
	} {
		m := mustParse(t, c.src)
		if _, err := Compile(m, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want one mentioning %q", c.src, err, c.want)
		}
	}
	m := mustParse(t, "t = {A}\nP(t)\nP(x).\n!P(A).\n")
	mod, err := Compile(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mod.Evaluate(weightsOf(m), nil); err == nil || !strings.Contains(err.Error(), "no model") && !strings.Contains(err.Error(), "never hold") {
		t.Errorf("unsatisfiable model: error %v", err)
	}
	if _, err := mod.Evaluate(weightsOf(m), map[string]int64{"t": 0}); err == nil {
		t.Errorf("domain smaller than its named constants: no error")
	}
	if _, err := ParseQuery(m, "P(x)"); err == nil || !strings.Contains(err.Error(), "not ground") {
		t.Errorf("query with a variable: error %v", err)
	}
}

func BenchmarkFriendsSmokers(b *testing.B) {
	m, err := mlnfile.Parse("fs.mln", []byte(friendsSmokers))
	if err != nil {
		b.Fatal(err)
	}
	mod, err := Compile(m, nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int64{1000, 100000, 1000000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := mod.Evaluate(weightsOf(m), map[string]int64{"person": n}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
