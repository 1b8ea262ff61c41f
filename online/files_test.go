package online

import (
	"context"
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
