package main

import (
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// The baselines' cells on a 3-person area worked by hand.
func TestPairFeatures(t *testing.T) {
	m, err := mlnfile.Parse("m.mln", []byte(`student(person)
professor(person)
advisedBy(person, person)
publication(title, person)
ta(course, person, quarter)
taughtBy(course, person, quarter)
`))
	if err != nil {
		t.Fatal(err)
	}
	db, err := mlnfile.ReadDB(strings.NewReader(`student(S)
professor(P)
professor(Q)
publication(T1, S)
publication(T1, P)
ta(C, S, W)
taughtBy(C, Q, W)
advisedBy(S, P)
`), "area.db", m)
	if err != nil {
		t.Fatal(err)
	}
	// persons in order of appearance: S, P, Q; pairs (x, y), y fastest
	cells, ys := pairFeatures(m, db, true)
	// (S,P): student-professor 1 + co-authored 2 = 3, true; (S,Q): 1 + TA
	// 4 = 5; (P,S): co-authored only, 2
	if want := []int{0, 3, 5, 2, 0, 0, 0, 0, 0}; !equal(cells, want) || !ys[1] || ys[2] {
		t.Errorf("lookup cells %v, want %v; truth %v", cells, want, ys)
	}
	cells, _ = pairFeatures(m, db, false)
	// type cells: student(x) + 2·professor(y)
	if want := []int{1, 3, 3, 0, 2, 2, 0, 2, 2}; !equal(cells, want) {
		t.Errorf("type cells %v, want %v", cells, want)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestConvergence(t *testing.T) {
	for _, c := range []struct{ log, want string }{
		{"lifted: [1.0 s] x\nlifted: dn: 5 iterations, 6 evaluations, 31.4 s (iteration limit, weights averaged over the last 3 iterations; started from (x (y)))\n", "no: iteration limit, weights averaged over the last 3 iterations"},
		{"lifted: dn: 0 iterations, 1 evaluations, 0.000 s (converged; started from the x (9 L-BFGS iterations))\n", "yes"},
		{"nothing\n", "?"},
	} {
		if got := convergence(c.log); got != c.want {
			t.Errorf("%q: %q, want %q", c.log, got, c.want)
		}
	}
}
