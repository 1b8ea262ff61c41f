package learn

import (
	"math"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

func TestDBLogLikelihood(t *testing.T) {
	m, err := mlnfile.Parse("s.mln", []byte("person = {A, B}\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := mlnfile.ReadDB(strings.NewReader("Smokes(A)\nCancer(A)\nSmokes(C)\n"), "t.db", m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DBLogLikelihood(m, []float64{1.5}, db, "t.db")
	if err != nil {
		t.Fatal(err)
	}
	// Three people, two satisfy the formula; each person's four worlds
	// have weight e^1.5 except Smokes ∧ ¬Cancer.
	want := 2*1.5 - 3*math.Log(3*math.Exp(1.5)+1)
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("log-likelihood %.12g, want %.12g", got, want)
	}
}
