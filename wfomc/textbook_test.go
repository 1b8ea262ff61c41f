package wfomc

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// Textbook models (testdata/*.mln; where each comes from is in its header).

func parseFile(t *testing.T, path string) *mln.MLN {
	t.Helper()
	m, err := mlnfile.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// dbLiterals reads an Alchemy .db file as evidence literals.
func dbLiterals(t *testing.T, m *mln.MLN, path string) []Literal {
	t.Helper()
	db, err := mlnfile.ReadDBFiles(m, path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Literal
	for _, a := range db.Atoms {
		if a.Truth == mln.Unknown {
			continue
		}
		p := m.Preds[a.Pred]
		args := make([]string, len(a.Args))
		for i, x := range a.Args {
			args[i] = db.Domain(p.ArgTypes[i])[x]
		}
		out = append(out, Literal{Pred: p.Name, Args: args, Value: a.Truth == mln.True})
	}
	return out
}

// TestMultinomial: Alchemy's multinomial (each throw has exactly one face)
// at small domains against brute force, with queries on constants that
// name elements of both types and evidence that names constants; and the
// closed form at 20 throws: Z = 6^20 and P(Outcome(t,f)) = 1/6.
func TestMultinomial(t *testing.T) {
	m := parseFile(t, "testdata/multinomial.mln")
	src, err := os.ReadFile("testdata/multinomial.mln")
	if err != nil {
		t.Fatal(err)
	}
	qs := []string{"Outcome(1,1)", "Outcome(2,3)", "Outcome(1,1) ^ Outcome(2,1)", "Outcome(1,1) ^ Outcome(1,2)", "Outcome(2,1) v !Outcome(1,3)"}
	for _, throws := range []int64{2, 3} {
		for _, faces := range []int64{3, 4} {
			// The declared ranges, cut down to the small domain.
			small := strings.Replace(string(src), "{1,...,20}", fmt.Sprintf("{1,...,%d}", throws), 1)
			small = strings.Replace(small, "{1,...,6}", fmt.Sprintf("{1,...,%d}", faces), 1)
			m := mustParse(t, small)
			name := fmt.Sprintf("multinomial %d×%d", throws, faces)
			checkAgainstBrute(t, name, m, weightsOf(m), nil, nil, qs, nil)
			checkAgainstBrute(t, name+" evidence", m, weightsOf(m), nil,
				[]Literal{{Pred: "Outcome", Args: []string{"1", "2"}, Value: false}, {Pred: "Outcome", Args: []string{"2", "2"}, Value: true}}, qs, nil)
		}
	}
	var queries []Query
	for _, q := range []string{"Outcome(1,1)", "Outcome(20,6)", "Outcome(7,3)", "Outcome(1,1) ^ Outcome(2,1)"} {
		pq, err := ParseQuery(m, q)
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, pq)
	}
	mod, err := Compile(m, &Options{Queries: queries})
	if err != nil {
		t.Fatal(err)
	}
	res, err := mod.Evaluate(weightsOf(m), nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := 20 * math.Log(6); !near(res.LogZ, want, 1e-12) {
		t.Errorf("log Z = %.15g, want 20 ln 6 = %.15g", res.LogZ, want)
	}
	for i, want := range []float64{1. / 6, 1. / 6, 1. / 6, 1. / 36} {
		if math.Abs(res.Marginals[i]-want) > 1e-12 {
			t.Errorf("P(%s) = %.15g, want %.15g", queries[i].Text, res.Marginals[i], want)
		}
	}
	// Lifted: a million throws of a 100-faced die.
	res, err = mod.Evaluate(weightsOf(m), map[string]int64{"throw": 1000000, "face": 100})
	if err != nil {
		t.Fatal(err)
	}
	if want := 1e6 * math.Log(100); !near(res.LogZ, want, 1e-12) || math.Abs(res.Marginals[0]-0.01) > 1e-12 {
		t.Errorf("10^6 throws, 100 faces: log Z = %.15g (want %.15g), P = %.15g", res.LogZ, want, res.Marginals[0])
	}
}

// TestRoman: "Does Marcus hate Caesar?" with its evidence made closed-world
// (as LoMRF runs it): three named persons, so every one of its 39 ground
// atoms is nullary (18 fixed by evidence), against brute force over the 21
// open atoms. The open-world evidence (roman.db: 35 open atoms) must compile
// and agree with the closed-world run where the two must agree.
func TestRoman(t *testing.T) {
	src, err := os.ReadFile("testdata/roman.mln")
	if err != nil {
		t.Fatal(err)
	}
	// The persons of the evidence, declared so that brute force grounds
	// over them too (wfomc names them from the evidence either way).
	m := mustParse(t, "person = {Marcus, Markus, Caesar}\n"+string(src))
	qs := []string{"Hate(Marcus,Caesar)", "Hate(Caesar,Marcus)", "Hate(Marcus,Marcus)", "Hate(Caesar,Caesar)", "Loyal(Markus,Caesar)", "Roman(Markus) ^ Hate(Markus,Markus)"}
	cwa := dbLiterals(t, m, "testdata/roman-cwa.db")
	if testing.Short() {
		qs = qs[:2]
	}
	checkAgainstBrute(t, "roman (closed world)", m, weightsOf(m), nil, cwa, qs, nil)
	for _, db := range []string{"testdata/roman.db", "testdata/roman-cwa.db"} {
		var queries []Query
		for _, q := range qs {
			pq, err := ParseQuery(m, q)
			if err != nil {
				t.Fatal(err)
			}
			queries = append(queries, pq)
		}
		mod, err := Compile(m, &Options{Evidence: dbLiterals(t, m, db), Queries: queries})
		if err != nil {
			t.Fatalf("%s: %v", db, err)
		}
		res, err := mod.Evaluate(weightsOf(m), nil)
		if err != nil {
			t.Fatalf("%s: %v", db, err)
		}
		// Hate(Marcus,Marcus) only meets !Hate(x,x) (weight 1) and the
		// clause Roman(Marcus) => Loyal(Marcus,Caesar) v Hate(Marcus,Caesar),
		// which it does not enter: P = 1/(1+e).
		if want := 1 / (1 + math.E); len(qs) > 2 && math.Abs(res.Marginals[2]-want) > 1e-12 {
			t.Errorf("%s: P(Hate(Marcus,Marcus)) = %.15g, want 1/(1+e) = %.15g", db, res.Marginals[2], want)
		}
		t.Logf("%s: log Z = %.12g, marginals %v", db, res.LogZ, res.Marginals)
	}
}

// TestNullaryLimitMessage: a component whose ground part is too wide is
// refused with the predicted size and what would lower it.
func TestNullaryLimitMessage(t *testing.T) {
	// 30 named constants, and a closed formula over all their P atoms at
	// once (through a query over all of them).
	var consts, conj []string
	for i := 0; i < 30; i++ {
		consts = append(consts, fmt.Sprintf("C%d", i))
		conj = append(conj, fmt.Sprintf("P(C%d)", i))
	}
	m := mustParse(t, "t = {"+strings.Join(consts, ",")+"}\nP(t)\n0.5 P(x)\n")
	q, err := ParseQuery(m, strings.Join(conj, " v "))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(m, &Options{Queries: []Query{q}})
	if err == nil {
		t.Fatal("a query over 30 ground atoms compiled")
	}
	for _, want := range []string{"30 ground atoms", "at most 18"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestNullaryInterfaceLimit: named constants whose atoms the cells of the
// anonymous elements depend on are enumerated; too many free ones are
// refused with the prediction, and evidence on them brings them in range.
func TestNullaryInterfaceLimit(t *testing.T) {
	var consts []string
	for i := 0; i < 20; i++ {
		consts = append(consts, fmt.Sprintf("C%d", i))
	}
	m := mustParse(t, "t = {"+strings.Join(consts, ",")+"}\nP(t)\n0.5 P(x) ^ P(y)\n0.2 P(C0)\n")
	// 0.2 P(C0) names C0, the queries (three constants each) C1 to C18.
	var ev []Literal
	var queries []Query
	for i := 1; i < 20; i += 3 {
		q, err := ParseQuery(m, fmt.Sprintf("P(C%d) ^ P(C%d) ^ P(C%d)", i, i+1, min(i+2, 19)))
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, q)
	}
	_, err := Compile(m, &Options{Queries: queries})
	if err == nil {
		t.Fatal("2^20 interface assignments compiled")
	}
	for _, want := range []string{"of them occur in formulas over anonymous elements", "so the cells of the anonymous elements depend on 2^19", "at most 65536"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
	for i := 0; i < 12; i++ {
		ev = append(ev, Literal{Pred: "P", Args: []string{fmt.Sprintf("C%d", i)}, Value: i%3 == 0})
	}
	if _, err := Compile(m, &Options{Queries: queries, Evidence: ev}); err != nil {
		t.Errorf("with 12 of the 20 fixed by evidence: %v", err)
	}
}

// TestManyNamedConstants: per-constant formulas (as mln.Expand writes
// +x over 30 persons) and a binary predicate over the same 30 named
// persons: an anonymous element would have 63 unary and reflexive atoms
// (beyond cells), but with every element named the component is one ground
// factor graph of 960 nullary atoms, summed out by elimination; against the
// closed form. With an anonymous element Evaluate refuses, saying why.
func TestManyNamedConstants(t *testing.T) {
	var names []string
	var b strings.Builder
	for i := 0; i < 30; i++ {
		names = append(names, fmt.Sprintf("P%d", i))
	}
	fmt.Fprintf(&b, "person = {%s}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n0.8 Smokes(x)\n0.5 Friends(x,y) ^ Smokes(x)\n", strings.Join(names, ","))
	for _, p := range names {
		fmt.Fprintf(&b, "1.5 Smokes(%s) => Cancer(%s)\n", p, p)
	}
	m := mustParse(t, b.String())
	var queries []Query
	for _, q := range []string{"Cancer(P3)", "Friends(P1,P2)", "Smokes(P4)"} {
		pq, err := ParseQuery(m, q)
		if err != nil {
			t.Fatal(err)
		}
		queries = append(queries, pq)
	}
	mod, err := Compile(m, &Options{Queries: queries})
	if err != nil {
		t.Fatal(err)
	}
	res, err := mod.Evaluate(weightsOf(m), nil)
	if err != nil {
		t.Fatal(err)
	}
	// One person a, by the value of Smokes(a): its Cancer atom and its 30
	// Friends(a,b) atoms.
	e := math.Exp
	smokes := e(0.8) * (e(1.5) + 1) * math.Pow(1+e(0.5), 30)
	not := 2 * e(1.5) * math.Pow(2, 30)
	person := smokes + not
	if want := 30 * math.Log(person); !near(res.LogZ, want, 1e-12) {
		t.Errorf("log Z = %.15g, want %.15g", res.LogZ, want)
	}
	ps := smokes / person
	for i, want := range []float64{
		(smokes*e(1.5)/(e(1.5)+1) + not/2) / person,
		ps*e(0.5)/(1+e(0.5)) + (1-ps)/2,
		ps,
	} {
		if math.Abs(res.Marginals[i]-want) > 1e-12 {
			t.Errorf("P(%s) = %.15g, want %.15g", queries[i].Text, res.Marginals[i], want)
		}
	}
	if _, err := mod.Evaluate(weightsOf(m), map[string]int64{"person": 31}); err == nil || !strings.Contains(err.Error(), "only domain sizes without anonymous elements") {
		t.Errorf("31 persons: error %v, want a refusal naming the cause", err)
	}
}
