package learn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// Run is Files (lwl, pll) or DiscFiles (dn) with the method's default
// iterations, plus the summary and the header of the written model.
func TestRunIsFilesAndDiscFiles(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.db")
	os.WriteFile(train, []byte("Smokes(A)\nCancer(A)\nSmokes(B)\n"), 0o644)
	src := "Smokes(person)\nCancer(person)\n0 Smokes(x) => Cancer(x)\n0 Smokes(x)\n"
	parse := func() *mln.MLN {
		m, err := mlnfile.Parse("s.mln", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	for _, method := range []string{"lwl", "pll"} {
		r := Run{Method: method, Train: []string{train}, PriorStdDev: 100, Tol: 1e-8}
		l, err := r.Learn(context.Background(), parse())
		if err != nil {
			t.Fatal(err)
		}
		_, want, err := Files(parse(), method, []string{train}, &Options{PriorStdDev: 100, MaxIter: 1000, GradTol: 1e-8})
		if err != nil {
			t.Fatal(err)
		}
		for j := range want.Weights {
			if l.Weights[j] != want.Weights[j] {
				t.Errorf("%s: weight %d = %v, Files %v", method, j, l.Weights[j], want.Weights[j])
			}
		}
		if !strings.HasPrefix(l.Summary, method+": ") || !strings.HasPrefix(l.Header, "Learned by lifted learn --method "+method+" from train.db\ntraining ") {
			t.Errorf("%s: summary %q header %q", method, l.Summary, l.Header)
		}
	}
	r := Run{Method: "dn", Train: []string{train}, PriorStdDev: 2, NE: []string{"Cancer"}, Seed: 3}
	l, err := r.Learn(context.Background(), parse())
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := DiscFiles(context.Background(), parse(), []string{train}, DiscOptions{NE: []string{"Cancer"}, PriorStdDev: 2, MaxIter: 100, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for j := range want.Weights {
		if l.Weights[j] != want.Weights[j] {
			t.Errorf("dn: weight %d = %v, DiscFiles %v", j, l.Weights[j], want.Weights[j])
		}
	}
	if !strings.HasPrefix(l.Header, "Learned by lifted learn --method dn --ne Cancer from train.db\n") {
		t.Errorf("dn header %q", l.Header)
	}
	if r.maxIter() != 0 || (&Run{Method: "lwl"}).maxIter() != 1000 || (&Run{Method: "dn", MaxIter: 7}).maxIter() != 7 {
		t.Error("default iterations: dn 0 (DiscOptions decides), L-BFGS 1000, given as given")
	}
	for _, bad := range []Run{{Method: "nope"}, {Method: "lwl", PriorStdDev: 0, Tol: 1e-8}, {Method: "pll", PriorStdDev: 1}} {
		if err := bad.Check(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// A run whose context ends (Ctrl-C) returns the weights of the last
// L-BFGS iteration, as Progress saw them, marked Interrupted, and a
// header that says so; before the first iteration the initial weights.
func TestLearnInterrupted(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.db")
	os.WriteFile(train, []byte("Smokes(A)\nCancer(A)\nSmokes(B)\nFriends(A,B)\nFriends(B,C)\nCancer(C)\n"), 0o644)
	src := "Smokes(person)\nCancer(person)\nFriends(person,person)\n0 Smokes(x) => Cancer(x)\n0 Smokes(x)\n0 Friends(x,y) ^ Smokes(x) => Smokes(y)\n"
	for _, method := range []string{"lwl", "pll"} {
		m, err := mlnfile.Parse("s.mln", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		var seen []float64
		r := Run{Method: method, Train: []string{train}, PriorStdDev: 100, Tol: 1e-12}
		r.Progress = func(stage string, done, total int64, detail string) {
			if strings.HasPrefix(detail, "L-BFGS iteration 2,") {
				cancel()
			}
		}
		l, err := r.Learn(ctx, m)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if !l.Interrupted || l.Iterations != 2 || !strings.Contains(l.Header, "INTERRUPTED") {
			t.Errorf("%s: interrupted %v after %d iterations, header %q", method, l.Interrupted, l.Iterations, l.Header)
		}
		// The same run stopped by MaxIter at 2 gives the same weights.
		m2, _ := mlnfile.Parse("s.mln", []byte(src))
		r2 := Run{Method: method, Train: []string{train}, PriorStdDev: 100, Tol: 1e-12, MaxIter: 2}
		want, err := r2.Learn(context.Background(), m2)
		if err != nil {
			t.Fatal(err)
		}
		seen = want.Weights
		for j := range seen {
			if l.Weights[j] != seen[j] {
				t.Errorf("%s: weight %d = %v, 2 iterations give %v", method, j, l.Weights[j], seen[j])
			}
		}
		cancel()
	}
}
