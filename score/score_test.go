package score

import (
	"math"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

const testMLN = `
person = {A, B}
Adv(person, person)
Prof(person)
1 Prof(x) => !Adv(x, y)
`

func testData(t *testing.T, db string) (*mln.MLN, *mln.DB) {
	t.Helper()
	m, err := mlnfile.Parse("t.mln", []byte(testMLN))
	if err != nil {
		t.Fatal(err)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "truth.db", m)
	if err != nil {
		t.Fatal(err)
	}
	return m, d
}

// The same answer in the three formats scores the same; the universe is
// every Adv atom over the truth's persons (A, B and C: 9), closed world.
func TestScoreFormats(t *testing.T) {
	m, truth := testData(t, "Adv(A,B)\nAdv(C,A)\nProf(B)\n")
	alchemy := "// comment\nAdv(A,A) 0.1\nAdv(A,B) 0.8\nAdv(A,C) 0.2\nAdv(B,A) 0.3\nAdv(B,B) 0\nAdv(B,C) 0\nAdv(C,A) 0.6\nAdv(C,B) 0.1\nAdv(C,C) 0.05\n"
	var tuffy, js strings.Builder
	js.WriteString(`{"task":"MAR","marginals":{`)
	for i, l := range strings.Split(strings.TrimSpace(alchemy), "\n")[1:] {
		f := strings.Fields(l)
		tuffy.WriteString(f[1] + "\t" + strings.Replace(f[0], ",", ", ", 1) + "\n")
		if i > 0 {
			js.WriteString(",")
		}
		js.WriteString(`"` + f[0] + `":` + f[1])
	}
	js.WriteString(`},"assignment":null}`)
	p := []float64{0.1, 0.8, 0.2, 0.3, 0, 0, 0.6, 0.1, 0.05}
	y := []bool{false, true, false, false, false, false, true, false, false}
	want := Compute(p, y, DefaultClip)
	// lifted's status comments after the probability are skipped
	annotated := strings.Replace(strings.Replace(alchemy, "Adv(A,B) 0.8\n", "Adv(A,B) 0.8 // mixed ±0.004\n", 1),
		"Adv(C,A) 0.6\n", "Adv(C,A) 0.6 // unresolved [0.400, 0.800]: the chains disagree, R-hat 1.2 (x)\n", 1)
	for _, c := range []struct{ format, text string }{{"alchemy", alchemy}, {"alchemy", annotated}, {"tuffy", tuffy.String()}, {"json", js.String()}} {
		a, err := ReadAnswer(strings.NewReader(c.text), c.format+".result")
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if a.Format != c.format {
			t.Errorf("read as %s, want %s", a.Format, c.format)
		}
		r, err := Score(m, truth, nil, a, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		if r.Overall != want || len(r.PerPred) != 1 || r.PerPred[0].Metrics != want || r.Listed != 9 || r.Missing != 0 {
			t.Errorf("%s: %+v, want %+v", c.format, r, want)
		}
		if !strings.Contains(r.Universe, "Adv (3 person × 3 person: 9)") {
			t.Errorf("universe %q", r.Universe)
		}
	}
}

// Atoms the answer leaves out get Options.Missing; the evidence's atoms
// and the truth's unknown ones are left out of the universe.
func TestScoreMissingEvidenceUnknown(t *testing.T) {
	m, truth := testData(t, "Adv(A,B)\n?Adv(B,B)\n")
	ev, err := mlnfile.ReadDB(strings.NewReader("!Adv(A,A)\n"), "ev.db", m)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ReadAnswer(strings.NewReader("0.75\tAdv(A, B)\n"), "tuffy.out")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Score(m, truth, ev, a, Options{Missing: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	// universe: Adv(A,B) 0.75 true, Adv(B,A) 0.5 false
	want := Compute([]float64{0.75, 0.5}, []bool{true, false}, DefaultClip)
	if r.Overall != want || r.Evidence != 1 || r.Unknown != 1 || r.Missing != 1 || r.Listed != 1 {
		t.Errorf("%+v, want %+v", r, want)
	}
	if _, err := Score(m, truth, ev, a, Options{Missing: math.NaN()}); err == nil || !strings.Contains(err.Error(), "Adv(B,A)") {
		t.Errorf("missing atom with Missing NaN: %v", err)
	}
}

func TestScoreErrors(t *testing.T) {
	m, truth := testData(t, "Adv(A,B)\n")
	for _, c := range []struct{ text, want string }{
		{"Adv(A,B) 0.5\nAdv(A,Z) 0.5\n", "r:2: constant \"Z\""},
		{"Adv(A,B) 0.5\nAdv(A, B) 0.2\n", "r:2: Adv(A,B) is listed twice"},
		{"Foo(A) 0.5\n", "r:1: unknown predicate"},
		{"Adv(A,B) 1.5\n", "r:1: want a probability"},
		{"Adv(A,B 0.5\n", "r:1: unclosed"},
		{"Adv(A,B) 0.5\n0.5\tAdv(B,A)\n", "r:2: a line in the tuffy format"},
	} {
		a, err := ReadAnswer(strings.NewReader(c.text), "r")
		if err == nil {
			_, err = Score(m, truth, nil, a, Options{})
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
}
