package wfomc

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// ruleUse counts the components of a compiled model by how they are
// computed.
type ruleUse struct{ fo2, power, atom, ground int }

func (u *ruleUse) walk(lv *level) {
	for _, c := range lv.comps {
		switch c := c.(type) {
		case *fo2Wrap:
			u.fo2++
		case *powerComp:
			u.power++
			u.walk(c.lv)
		case *atomComp:
			u.atom++
			u.walk(c.lv)
		case *groundComp:
			u.ground++
		}
	}
}

func rulesOf(mod *Model) ruleUse {
	var u ruleUse
	u.walk(mod.top)
	return u
}

func TestAtomCountingBasic(t *testing.T) {
	for _, c := range []struct {
		src   string
		sizes map[string]int64
		qs    []string
		atoms int // atom counting components at least
	}{
		{"t = {A}\nP(t)\nQ(t,t,t)\nR(t,t)\n0.7 P(x) ^ Q(x,y,z) => R(y,z)\n", map[string]int64{"t": 2}, []string{"P(A)", "R(A,A)"}, 1},
		{"t = {A}\nu = {B}\nP(t)\nQ(t,u,u)\nR(u,u)\n0.7 P(x) ^ Q(x,y,z) => R(y,z)\n-1.2 P(x)\n", map[string]int64{"t": 3, "u": 2}, []string{"P(A)", "R(B,B)"}, 1},
		// Quantifiers over the counted type, equality, a hard formula.
		{"t = {A}\nP(t)\nQ(t,t,t)\nR(t,t)\n0.7 P(x) ^ Q(x,y,z) => R(y,z)\n-0.4 EXIST z (Q(x,y,z) ^ !(x = z))\nFORALL x (P(x) => Q(x,y,y)).\n", map[string]int64{"t": 2}, []string{"P(A)", "Q(A,A,A)"}, 1},
		// The term k = 0 has no world (Z_0 = 0).
		{"t = {A}\nu = {B}\nP(t)\nQ(t,u,u)\nR(u,u)\n0.7 P(x) ^ Q(x,y,z) => R(y,z)\nEXIST x P(x).\n0.3 EXIST y (R(y,z) ^ Q(x,y,z))\n", map[string]int64{"t": 3, "u": 2}, []string{"P(A)", "R(B,B)"}, 1},
		// Nested: P1 counted over t, then P2 over u.
		{"t = {A}\nu = {B}\nP1(t)\nP2(u)\nF(t,u,u)\nG(u)\n0.5 P1(x) ^ P2(z) ^ F(x,y,z) => G(y)\n-0.8 P2(y) v G(y)\n", map[string]int64{"t": 2, "u": 2}, []string{"P2(B)", "G(B)"}, 2},
	} {
		m := mustParse(t, c.src)
		mod, err := Compile(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		u := rulesOf(mod)
		if u.atom < c.atoms {
			t.Errorf("%s: atom counting used %d times, want %d (%+v)", c.src, u.atom, c.atoms, u)
		}
		checkAgainstBrute(t, c.src, m, weightsOf(m), c.sizes, nil, c.qs, nil)
	}
}

// randomAtomCountMLN writes a random MLN with formulas over three logical
// variables x (type t), y and z (type u, or t in the one-type variant)
// whose atoms other than the unary ones over x (and z) share y at a fixed
// position, so that the power rule needs the unary atoms counted first,
// next to FO2 formulas sharing the unary predicates.
func randomAtomCountMLN(r *rand.Rand) (src string, sizes map[string]int64) {
	var b strings.Builder
	oneType := r.IntN(4) == 0
	sizes = map[string]int64{}
	u := "u"
	if oneType {
		u = "t"
		b.WriteString("t = {A}\n")
		sizes["t"] = int64(1 + r.IntN(2))
	} else {
		b.WriteString("t = {A}\nu = {B}\n")
		sizes["t"] = int64(1 + r.IntN(4))
		sizes["u"] = int64(1 + r.IntN(2))
	}
	fmt.Fprintf(&b, "P(t)\nQ(t,%s,%s)\nR(%s,%s)\n", u, u, u, u)
	atoms3 := []string{"P(x)", "P(x)", "Q(x,y,z)", "Q(x,y,z)", "R(y,z)", "R(y,y)", "y = z"}
	atoms2 := []string{"P(x)", "P(w)"}
	if r.IntN(2) == 0 {
		b.WriteString("S(t)\n")
		atoms3 = append(atoms3, "S(x)")
		atoms2 = append(atoms2, "S(x)", "S(w)")
	}
	if r.IntN(3) == 0 {
		fmt.Fprintf(&b, "T(%s)\n", u)
		atoms3 = append(atoms3, "T(y)")
		if r.IntN(2) == 0 {
			atoms3 = append(atoms3, "T(z)")
		}
	}
	if oneType && r.IntN(2) == 0 {
		atoms3 = append(atoms3, "P(y)", "P(z)")
	}
	if !oneType && sizes["t"] <= 2 && r.IntN(2) == 0 {
		b.WriteString("E(t,t)\n")
		atoms2 = append(atoms2, "E(x,w)", "E(w,x)", "x = w")
	}
	clause := func(atoms []string, k int) string {
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
		return body
	}
	emit := func(body string) {
		if r.IntN(7) == 0 {
			fmt.Fprintf(&b, "%s.\n", body)
		} else {
			fmt.Fprintf(&b, "%.3f %s\n", -2+4*r.Float64(), body)
		}
	}
	// At least one formula with P(x) and Q(x,y,z).
	first := fmt.Sprintf("%sP(x) %s %sQ(x,y,z)", []string{"", "!"}[r.IntN(2)], []string{"v", "^", "=>"}[r.IntN(3)], []string{"", "!"}[r.IntN(2)])
	if r.IntN(2) == 0 {
		first = paren(first) + []string{" v ", " => ", " ^ "}[r.IntN(3)] + []string{"R(y,z)", "!R(y,z)", "T(y)"}[r.IntN(2)]
	}
	emit(first)
	for i := r.IntN(3); i > 0; i-- {
		body := clause(atoms3, 1+r.IntN(3))
		switch r.IntN(8) {
		case 0:
			if strings.Contains(body, "z") && !strings.Contains(body, "R(") {
				body = "EXIST z " + paren(body)
			}
		case 1:
			if strings.Contains(body, "z") && !strings.Contains(body, "R(") {
				body = "FORALL z " + paren(body)
			}
		}
		emit(body)
	}
	for i := r.IntN(3); i > 0; i-- {
		emit(clause(atoms2, 1+r.IntN(3)))
	}
	return b.String(), sizes
}

func TestAtomCountingRandomAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	models := 240
	if testing.Short() {
		models = 60
	}
	checked, lifted, rejected, four, nested, quant, oneType, withQ, withEv, splitRefused, other := 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
	for i := 0; i < models; i++ {
		src, sizes := randomAtomCountMLN(r)
		m, err := mlnfile.Parse("random.mln", []byte(src))
		if err != nil {
			continue
		}
		mod, err := Compile(m, nil)
		if err != nil {
			if !strings.Contains(err.Error(), "atom counting") || !strings.Contains(err.Error(), "--allow-ground") {
				t.Errorf("model %d: unclear error %v", i, err)
			}
			rejected++
			continue
		}
		u := rulesOf(mod)
		if u.atom == 0 {
			other++ // FO2 or the power rule alone
			continue
		}
		lifted++
		w := newBruteWorld(m, sizes)
		if len(w.atoms) > 20 || len(w.atoms) > 16 && i%4 != 0 {
			continue
		}
		var ev []Literal
		var qs []string
		if r.IntN(2) == 0 {
			ev, qs = randomEvidence(r, w)
			// Unary evidence splits the types, where the rules do not
			// apply, and a query's constants are named, which may take the
			// model out of their reach: then the model is checked without
			// them.
			compiles := func(ev []Literal, qs []string) bool {
				opt := &Options{Evidence: ev}
				for _, q := range qs {
					pq, err := ParseQuery(m, q)
					if err != nil {
						t.Fatal(err)
					}
					opt.Queries = append(opt.Queries, pq)
				}
				_, err := Compile(m, opt)
				if err != nil && len(ev) > 0 && strings.Contains(err.Error(), "evidence splits") {
					splitRefused++
				}
				return err == nil
			}
			if !compiles(ev, qs) {
				ev = nil
				if !compiles(nil, qs) {
					qs = nil
				}
			}
		}
		want := brute(m, weightsOf(m), sizes, ev, qs, nil)
		if want.logZ != want.logZ || want.logZ < -1e300 {
			continue
		}
		checkAgainstBrute(t, fmt.Sprintf("model %d (sizes %v, evidence %v, queries %v)", i, sizes, ev, qs), m, weightsOf(m), sizes, ev, qs, nil)
		checked++
		if sizes["t"] == 4 {
			four++
		}
		if u.atom > 1 {
			nested++
		}
		if strings.Contains(src, "EXIST") || strings.Contains(src, "FORALL") {
			quant++
		}
		if _, ok := sizes["u"]; !ok {
			oneType++
		}
		if len(qs) > 0 {
			withQ++
		}
		if len(ev) > 0 {
			withEv++
		}
	}
	t.Logf("%d random models: %d lifted by atom counting, %d by FO2 or the power rule alone, %d rejected; %d checked against brute force "+
		"(%d with |t| = 4, %d with nested atom counting, %d with quantifiers, %d over one type, %d with queries, %d with evidence; "+
		"evidence refused with a clear error %d times)",
		models, lifted, other, rejected, checked, four, nested, quant, oneType, withQ, withEv, splitRefused)
	if checked < models/3 {
		t.Fatalf("only %d of %d random models checked", checked, models)
	}
}

// closedFormPQR is log Z, with its derivatives in w and v, of
// w: P(x) ^ Q(x,y,z) => R(y,z), v: P(x) with |x| = n, |y| = |z| = m: with
// P true on k elements, each pair (y,z) contributes (2e^w)^k + (1+e^w)^k
// and each (x,y,z) with P(x) false 2e^w.
func closedFormPQR(n, m int64, w, v float64) (logZ, dw, dv float64) {
	type tm struct{ l, dw, dv float64 }
	var ts []tm
	mx := math.Inf(-1)
	m2 := float64(m * m)
	for k := int64(0); k <= n; k++ {
		lc, _ := math.Lgamma(float64(n + 1))
		a, _ := math.Lgamma(float64(k + 1))
		b, _ := math.Lgamma(float64(n - k + 1))
		lc -= a + b
		fk := float64(k)
		la := fk * (math.Ln2 + w)
		lb := fk * math.Log1p(math.Exp(w))
		hi, lo := max(la, lb), min(la, lb)
		lsum := hi + math.Log1p(math.Exp(lo-hi))
		pa := math.Exp(la - lsum)
		l := lc + v*fk + float64(n-k)*m2*(math.Ln2+w) + m2*lsum
		d := float64(n-k)*m2 + m2*(fk*pa+fk*(1-pa)*math.Exp(w)/(1+math.Exp(w)))
		ts = append(ts, tm{l, d, fk})
		mx = max(mx, l)
	}
	s := 0.0
	for _, t := range ts {
		p := math.Exp(t.l - mx)
		s += p
		dw += p * t.dw
		dv += p * t.dv
	}
	return mx + math.Log(s), dw / s, dv / s
}

func TestAtomCountingClosedForm(t *testing.T) {
	const two = "t = {A}\nu = {B}\nP(t)\nQ(t,u,u)\nR(u,u)\n%.17g P(x) ^ Q(x,y,z) => R(y,z)\n%.17g P(x)\n"
	const one = "t = {A}\nP(t)\nQ(t,t,t)\nR(t,t)\n%.17g P(x) ^ Q(x,y,z) => R(y,z)\n%.17g P(x)\n"
	// balanced is a weight of P(x) that about cancels the pull of the
	// three-variable formula towards k = n (w < 0), so that the number of
	// elements satisfying P is spread out and every term matters.
	balanced := func(w float64, m int64) float64 {
		return -float64(m*m)*math.Log((1+math.Exp(w))/(2*math.Exp(w))) + 0.2
	}
	for _, c := range []struct {
		src    string
		n, m   int64
		w, v   float64
		spread bool
	}{
		{one, 50, 50, 0.7, -0.3, false},
		{one, 50, 50, -0.2, 0.1, false},
		{two, 50, 3, -0.5, balanced(-0.5, 3), true},
		{two, 50, 30, 0.7, -0.3, false},
		{two, 1000, 2, -0.5, balanced(-0.5, 2), true},
		{two, 1000, 100, 0.7, -0.3, false},
	} {
		m := mustParse(t, fmt.Sprintf(c.src, c.w, c.v))
		mod, err := Compile(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		sizes := map[string]int64{"t": c.n}
		if c.src == two {
			sizes["u"] = c.m
		}
		start := time.Now()
		got, err := mod.Evaluate(weightsOf(m), sizes)
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		lz, dw, dv := closedFormPQR(c.n, c.m, c.w, c.v)
		if !near(got.LogZ, lz, 1e-9) || !near(got.ExpectedCounts[0], dw, 1e-9) || !near(got.ExpectedCounts[1], dv, 1e-9) {
			t.Errorf("n = %d, m = %d: log Z %.15g, E %v; closed form %.15g, [%.15g %.15g]", c.n, c.m, got.LogZ, got.ExpectedCounts, lz, dw, dv)
		}
		if c.spread && (dv < 2 || dv > float64(c.n)-2) {
			t.Errorf("n = %d, m = %d: E[#P] = %g is not spread out", c.n, c.m, dv)
		}
		t.Logf("n = %d, m = %d: log Z = %.12g, E[#P] = %.6g, in %v (%+v)", c.n, c.m, got.LogZ, dv, el, rulesOf(mod))
	}
}

// TestAtomCountingWithFO2Part checks a model whose three-variable formula
// shares P with an FO2 part against a second decomposition: the FO2 part
// is evaluated by the cell algorithm under count evidence (exactly k
// elements satisfy P: C(n,k)·Z_FO2,k), the three-variable part by its
// closed form, and the two are combined by hand.
func TestAtomCountingWithFO2Part(t *testing.T) {
	const n = 50
	for _, c := range []struct {
		m      int64 // |u|; 0: y and z are of type t
		w3, vP float64
	}{
		{0, 0.7, -0.3},
		{2, -0.5, -4 * math.Log((1+math.Exp(-0.5))/(2*math.Exp(-0.5)))},
	} {
		u, m := "u", c.m
		decl := "t = {A}\nu = {B}\n"
		sizes := map[string]int64{"t": n, "u": m}
		if m == 0 {
			u, m, decl, sizes = "t", n, "t = {A}\n", map[string]int64{"t": n}
		}
		fo2Src := fmt.Sprintf("%.17g P(x)\n1.1 P(x) ^ E(x,w) => P(w)\n-0.4 E(x,w) ^ E(w,x)\n", c.vP)
		full := mustParse(t, fmt.Sprintf("%sP(t)\nE(t,t)\nQ(t,%s,%s)\nR(%s,%s)\n%.17g P(x) ^ Q(x,y,z) => R(y,z)\n%s", decl, u, u, u, u, c.w3, fo2Src))
		mod, err := Compile(full, nil)
		if err != nil {
			t.Fatal(err)
		}
		if u := rulesOf(mod); u.atom != 1 {
			t.Errorf("rules %+v", u)
		}
		start := time.Now()
		got, err := mod.Evaluate(weightsOf(full), sizes)
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(start)
		fo2 := mustParse(t, "t = {A}\nP(t)\nE(t,t)\n"+fo2Src)
		type tm struct {
			l float64
			e []float64 // expected counts of the four formulas
		}
		var ts []tm
		mx := math.Inf(-1)
		for k := int64(0); k <= n; k++ {
			mk, err := Compile(fo2, &Options{Counts: []CountEvidence{{Pred: "P", Count: k}}})
			if err != nil {
				t.Fatal(err)
			}
			r, err := mk.Evaluate(weightsOf(fo2), map[string]int64{"t": n})
			if err != nil {
				t.Fatal(err)
			}
			// Z_3(k) and its derivative: the closed form's term at k alone.
			fk := float64(k)
			la, lb := fk*(math.Ln2+c.w3), fk*math.Log1p(math.Exp(c.w3))
			hi, lo := max(la, lb), min(la, lb)
			lsum := hi + math.Log1p(math.Exp(lo-hi))
			pa := math.Exp(la - lsum)
			m2 := float64(m * m)
			l3 := float64(n-k)*m2*(math.Ln2+c.w3) + m2*lsum
			d3 := float64(n-k)*m2 + m2*(fk*pa+fk*(1-pa)*math.Exp(c.w3)/(1+math.Exp(c.w3)))
			l := r.LogZ + l3 // every Q and R atom is in Z_3
			ts = append(ts, tm{l, []float64{d3, r.ExpectedCounts[0], r.ExpectedCounts[1], r.ExpectedCounts[2]}})
			mx = max(mx, l)
		}
		s := 0.0
		want := make([]float64, 4)
		for _, x := range ts {
			p := math.Exp(x.l - mx)
			s += p
			for j := range want {
				want[j] += p * x.e[j]
			}
		}
		lz := mx + math.Log(s)
		if !near(got.LogZ, lz, 1e-9) {
			t.Errorf("|u| = %d: log Z %.15g, second decomposition %.15g", c.m, got.LogZ, lz)
		}
		for j := range want {
			want[j] /= s
			if !near(got.ExpectedCounts[j], want[j], 1e-9) {
				t.Errorf("|u| = %d: E[n_%d] = %.15g, second decomposition %.15g", c.m, j+1, got.ExpectedCounts[j], want[j])
			}
		}
		t.Logf("n = %d, |u| = %d: log Z = %.12g, E[#P] = %.6g, in %v", n, m, got.LogZ, got.ExpectedCounts[1], el)
	}
}

func TestAtomCountingRejects(t *testing.T) {
	// Transitivity stays out of reach with unary predicates around it.
	src := "t = {A}\nP(t)\nS(t)\nU(t)\nF(t,t)\n0.5 P(x) ^ F(x,y) ^ F(y,z) => F(x,z)\n1 S(x) ^ U(y) => F(x,y)\n-1 P(x) v U(x)\n"
	m := mustParse(t, src)
	start := time.Now()
	_, err := Compile(m, nil)
	if err == nil {
		t.Fatal("transitivity compiled")
	}
	for _, want := range []string{"formula 1", "x, y, z", "atom counting", "--allow-ground"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	t.Logf("rejected in %v: %v", time.Since(start), err)
	// Counting Smokes does not help: Friends(x,y) and Friends(y,z) share
	// no variable at one position.
	sf := mustParse(t, "person = {A}\nSmokes(person)\nFriends(person,person)\n1.2 Smokes(x) ^ Friends(x,y) ^ Friends(y,z) => Smokes(z)\n")
	if _, err := Compile(sf, nil); err == nil || !strings.Contains(err.Error(), "atom counting") {
		t.Errorf("Smokes(x) ^ Friends(x,y) ^ Friends(y,z) => Smokes(z): error %v", err)
	}
	// The ground fallback still applies to the whole component.
	checkAgainstBrute(t, "ground fallback", m, weightsOf(m), map[string]int64{"t": 2}, nil, nil, &Options{AllowGround: true})
}
