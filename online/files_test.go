package online

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/pos"
)

// LearnFiles is LoadData then Learn, with the lines and the header the
// command prints; without --ne on fully observed data it says so first.
func TestLearnFilesIsLoadDataAndLearn(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	input := write("s.mln", "person = {A, B, C}\nSmokes(person)\nCancer(person)\n0 Smokes(x) => Cancer(x)\n")
	train := write("train.db", "Smokes(A)\nCancer(A)\n!Smokes(B)\nCancer(B)\nSmokes(C)\n!Cancer(C)\n")
	test := write("test.db", "Smokes(A)\nCancer(A)\n!Smokes(B)\n!Cancer(B)\n!Smokes(C)\nCancer(C)\n")
	c := Config{Method: "sgd", Train: []string{train}, Holdout: []string{test}, Pieces: "factor", Depth: 2,
		Discount: 0.9, BatchSize: 10, Step: 0.2, Passes: 1, EvalEvery: 0.5, Seed: 1, Workers: 1, Shards: 1}
	var notes []string
	warned := false
	res, err := LearnFiles(context.Background(), input, []string{"Cancer"}, c, func([]*pos.Error) { warned = true }, func(s string) { notes = append(notes, s) })
	if err != nil {
		t.Fatal(err)
	}
	d, err := LoadData(input, c.Train, c.Holdout, []string{"Cancer"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Learn(context.Background(), d, c)
	if err != nil {
		t.Fatal(err)
	}
	for j := range want.Weights {
		if res.Weights[j] != want.Weights[j] {
			t.Errorf("weight %d = %v, LoadData+Learn %v", j, res.Weights[j], want.Weights[j])
		}
	}
	if !warned || len(notes) != 0 {
		t.Errorf("warn called %v, notes %q (want the parser's warnings only)", warned, notes)
	}
	last := res.Lines[len(res.Lines)-1]
	if !strings.HasPrefix(last, "sgd: "+want.Summary) || res.Header != "Learned by lifted learn --method sgd from train.db\n"+want.Summary {
		t.Errorf("lines %q header %q", res.Lines, res.Header)
	}
	if _, err := LearnFiles(context.Background(), input, nil, c, nil, func(s string) { notes = append(notes, s) }); err != nil {
		t.Fatal(err)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "no --ne") {
		t.Errorf("generative run: notes %q", notes)
	}
}

// A run whose context ends keeps the weights it reached: cancelled right
// after pass 1 (smd, sgd) or iteration 3 (scg, lbfgs-bp), Learn returns,
// marked Interrupted, the weights of the same run stopped there by its
// limits (Passes 1, MaxIter 3).
func TestLearnInterruptedKeepsWeights(t *testing.T) {
	dir := t.TempDir()
	input := filepath.Join(dir, "s.mln")
	train := filepath.Join(dir, "train.db")
	var db strings.Builder
	for i := range 12 {
		fmt.Fprintf(&db, "Friends(P%d, P%d)\n", i, (i+1)%12)
		if i%3 != 0 {
			fmt.Fprintf(&db, "Smokes(P%d)\n", i)
		}
		if i%4 == 0 {
			fmt.Fprintf(&db, "Cancer(P%d)\n", i)
		}
	}
	if err := os.WriteFile(input, []byte("Friends(person, person)\nSmokes(person)\nCancer(person)\n0 Smokes(x) => Cancer(x)\n0 Smokes(x) ^ Friends(x,y) => Smokes(y)\n0 Cancer(x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(train, []byte(db.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := LoadData(input, []string{train}, nil, []string{"Smokes", "Cancer"})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"sgd", "smd", "scg", "lbfgs-bp"} {
		c := Config{Method: method, Train: []string{train}, Pieces: "factor", Depth: 2, Discount: 0.9, BatchSize: 5,
			Step: 0.2, Passes: 1, EvalEvery: 0.1, Seed: 1, Workers: 1, Shards: 1, MaxIter: 3, Tol: 1e-12, PriorStdDev: 2}
		want, err := Learn(context.Background(), d, c)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		c.Passes, c.MaxIter = 50, 1000
		c.Progress = func(done, total int64, _ string) {
			if method == "sgd" || method == "smd" {
				if done >= 1000 {
					cancel() // after the last mini-batch of pass 1
				}
			} else if done >= 3 {
				cancel()
			}
		}
		got, err := Learn(ctx, d, c)
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if !got.Interrupted || !strings.HasPrefix(got.Summary, "INTERRUPTED after ") {
			t.Errorf("%s: interrupted %v, summary %q", method, got.Interrupted, got.Summary)
		}
		if len(got.Weights) != len(want.Weights) {
			t.Fatalf("%s: %d weights, want %d", method, len(got.Weights), len(want.Weights))
		}
		for j := range want.Weights {
			if got.Weights[j] != want.Weights[j] {
				t.Errorf("%s: weight %d = %v after the interrupt, %v stopped by the limit (%s)", method, j, got.Weights[j], want.Weights[j], got.Summary)
			}
		}
	}
}
