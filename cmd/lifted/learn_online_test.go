package main

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/online"
)

// sampleDBs writes n databases sampled (Gibbs, fixed seed) from the
// enriched smokers MLN's weights and returns their paths.
func sampleDBs(t *testing.T, mlnPath string, n int) []string {
	t.Helper()
	m, err := mlnfile.ParseFile(mlnPath)
	if err != nil {
		t.Fatal(err)
	}
	md, err := online.NewModel(m, nil, []string{"Friends", "Smokes", "Cancer", "Stress", "Treatment"})
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, len(m.Formulas))
	for i, f := range m.Formulas {
		w[i] = f.Weight
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var paths []string
	for i := range n {
		x, err := online.Sample(md, w, 100, rng)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(t.TempDir(), "d"+string(rune('0'+i))+".db")
		fh, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := online.WriteDB(fh, md, x, nil); err != nil {
			t.Fatal(err)
		}
		fh.Close()
		paths = append(paths, p)
	}
	return paths
}

func TestRunOnlineLearn(t *testing.T) {
	mlnPath := filepath.Join("..", "..", "experiments", "online", "smokers.mln")
	dbs := sampleDBs(t, mlnPath, 2)
	dir := t.TempDir()
	for _, method := range []string{"smd", "sgd", "scg", "lbfgs-bp"} {
		for _, pieces := range []string{"factor", "tree", "neighbourhood"} {
			if pieces != "factor" && (method == "scg" || method == "lbfgs-bp") {
				continue
			}
			o := &onlineFlags{c: online.Config{Pieces: pieces, Depth: 2, Discount: 0.9, BatchSize: 10, Step: 0.2, Passes: 0.5, Holdout: []string{dbs[1]}, Seed: 1, Lambda: 0.99, Mu: 0.1, Gamma: 0.9, EvalEvery: 0.1}, ne: []string{"Smokes", "Cancer", "Treatment"}, plot: filepath.Join(dir, method+pieces+plotExt(method)), log: filepath.Join(dir, method+pieces+".json")}
			out := filepath.Join(dir, method+pieces+".mln")
			r := onlineRun{Method: method, Input: mlnPath, Train: dbs[:1], Output: out, Quiet: true, MaxIter: 5, Tol: 1e-6}
			if err := runOnlineLearn(context.Background(), r.flags(o), os.Stdout); err != nil {
				t.Fatalf("%s %s: %v", method, pieces, err)
			}
			m, err := mlnfile.ParseFile(out)
			if err != nil {
				t.Fatalf("%s: learned MLN does not parse: %v", method, err)
			}
			if len(m.Formulas) != 6 {
				t.Errorf("%s: %d formulas in the learned MLN", method, len(m.Formulas))
			}
			b, err := os.ReadFile(o.log)
			if err != nil {
				t.Fatal(err)
			}
			var l online.Curve
			if err := json.Unmarshal(b, &l); err != nil {
				t.Fatal(err)
			}
			if len(l.Points) < 2 || l.Points[0].CMLL == nil {
				t.Errorf("%s: curve %+v", method, l.Points)
			}
			if len(l.TestLogLik) != 1 || l.TestLogLik[0] == nil {
				t.Errorf("%s: no exact test log-likelihood (%v)", method, l.TestLogLik)
			} else if *l.TestLogLik[0] >= 0 {
				t.Errorf("%s: exact test log-likelihood %v", method, *l.TestLogLik[0])
			}
			for i := 1; i < len(l.Points); i++ {
				if l.Points[i].Passes <= l.Points[i-1].Passes {
					t.Errorf("%s: passes not increasing: %v then %v", method, l.Points[i-1].Passes, l.Points[i].Passes)
				}
			}
			if method == "smd" && len(l.Points) < 4 {
				// five mini-batches per pass here: 0, 0.2, 0.4, 0.6
				t.Errorf("smd: only %d curve points", len(l.Points))
			}
			img, err := os.ReadFile(o.plot)
			switch {
			case err != nil:
				t.Errorf("%s: %v", method, err)
			case plotExt(method) == ".png" && !strings.HasPrefix(string(img), "\x89PNG"):
				t.Errorf("%s: %s is not a PNG", method, o.plot)
			case plotExt(method) == ".svg" && !strings.Contains(string(img), "<polyline"):
				t.Errorf("%s: no curve in the SVG", method)
			}
		}
	}
}

// plotExt gives some methods' runs PNG plots and the others SVG, to cover
// both, in a build with -tags plot; SVG (internal/svgplot) otherwise.
func plotExt(method string) string {
	if gonumPlots && (method == "sgd" || method == "scg") {
		return ".png"
	}
	return ".svg"
}

// TestRunOnlineLearnHardExist learns with SMD on an MLN with a hard formula
// and an EXIST formula: the hard formula is written back unchanged.
func TestRunOnlineLearnHardExist(t *testing.T) {
	dir := t.TempDir()
	mlnPath := filepath.Join(dir, "hard.mln")
	src := "person = {Anna, Bob, Carl, Dana}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n\n" +
		"1.5 Smokes(x) => Cancer(x)\nCancer(x) => Smokes(x).\n0.5 Smokes(x) => EXIST y Friends(x, y) ^ Smokes(y)\n"
	dbPath := filepath.Join(dir, "train.db")
	if err := os.WriteFile(mlnPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dbPath, []byte("Smokes(Anna)\nSmokes(Bob)\nCancer(Anna)\nFriends(Anna, Bob)\nFriends(Carl, Dana)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "learned.mln")
	o := &onlineFlags{c: online.Config{Pieces: "tree", Depth: 2, Discount: 0.9, BatchSize: 2, Step: 0.2, Passes: 2, Seed: 1, Lambda: 0.99, Mu: 0.1, Gamma: 0.9, EvalEvery: 0.1}, ne: []string{"Smokes", "Cancer"}}
	r := onlineRun{Method: "smd", Input: mlnPath, Train: []string{dbPath}, Output: out, Quiet: true}
	if err := runOnlineLearn(context.Background(), r.flags(o), os.Stdout); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\nCancer(x) => Smokes(x).\n") {
		t.Errorf("hard formula not written unchanged:\n%s", b)
	}
	m, err := mlnfile.ParseFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Formulas) != 3 || !m.Formulas[1].Hard || m.Formulas[0].Weight == 1.5 {
		t.Errorf("learned MLN:\n%s", b)
	}
	// Data contradicting the hard formula: a clear error.
	if err := os.WriteFile(dbPath, []byte("Cancer(Carl)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runOnlineLearn(context.Background(), r.flags(o), os.Stdout)
	if err == nil || !strings.Contains(err.Error(), `data contradict hard formula 2 "Cancer(x) => Smokes(x)"`) {
		t.Errorf("error %v", err)
	}
}

// Mutual exclusion reaches the online learners as a hard formula and a
// starred formula as its sign combinations; the learned model is written
// with the user's declarations, "!" included.
func TestRunOnlineLearnMutex(t *testing.T) {
	dir := t.TempDir()
	mlnPath := filepath.Join(dir, "mutex.mln")
	src := "person = {A, B, C, D}\ncolor = {R, G, Bl}\nSmokes(person)\nCol(person, color!)\nFriends(person, person)\n\n" +
		"Smokes(x) ^ Col(x, R)\nCol(x, c) ^ Friends(x, y) => Col(y, c)\n*Smokes(x) ^ Col(x, G)\n"
	dbPath := filepath.Join(dir, "train.db")
	if err := os.WriteFile(mlnPath, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dbPath, []byte("Smokes(A)\nCol(A, R)\nCol(B, G)\nCol(C, R)\nCol(D, Bl)\nFriends(A, B)\nFriends(B, C)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "learned.mln")
	o := &onlineFlags{c: online.Config{Pieces: "tree", Depth: 2, Discount: 0.9, BatchSize: 2, Step: 0.2, Passes: 2, Seed: 1, Lambda: 0.99, Mu: 0.1, Gamma: 0.9, EvalEvery: 0.1}, ne: []string{"Col"}}
	r := onlineRun{Method: "smd", Input: mlnPath, Train: []string{dbPath}, Output: out, Quiet: true}
	if err := runOnlineLearn(context.Background(), r.flags(o), os.Stdout); err != nil {
		t.Fatal(err)
	}
	m, err := mlnfile.ParseFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The starred formula is learned as its two sign combinations.
	if len(m.Formulas) != 4 || len(m.Pred("Col").MutexArgs) != 1 || m.Formulas[3].Text != "!Smokes(x) ^ Col(x,G)" {
		t.Errorf("learned MLN has %d formulas, Col %v:\n%s", len(m.Formulas), m.Pred("Col"), m)
	}
	// A block without a true atom in the data: an error naming the declaration.
	if err := os.WriteFile(dbPath, []byte("Col(A, R)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err = runOnlineLearn(context.Background(), r.flags(o), os.Stdout)
	if err == nil || !strings.Contains(err.Error(), "(from Col(person, color!))") || !strings.Contains(err.Error(), "o0 = B") {
		t.Errorf("error %v", err)
	}
}

// Per-constant formulas: the online learners learn one weight per
// constant of the training data; a holdout database with other constants
// of that type is refused.
func TestRunOnlineLearnPerConstant(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mlnPath := write("p.mln", "person = {A, B, C}\nSmokes(person)\nCancer(person)\nSmokes(+x) => Cancer(x)\n")
	train := write("train.db", "Smokes(A)\nCancer(A)\nSmokes(B)\n")
	out := filepath.Join(dir, "learned.mln")
	o := &onlineFlags{c: online.Config{Pieces: "factor", BatchSize: 1, Step: 0.2, Passes: 3, Seed: 1, Lambda: 0.99, Mu: 0.1, Gamma: 0.9, EvalEvery: 0.1}, ne: []string{"Cancer"}}
	r := onlineRun{Method: "smd", Input: mlnPath, Train: []string{train}, Output: out, Quiet: true}
	if err := runOnlineLearn(context.Background(), r.flags(o), os.Stdout); err != nil {
		t.Fatal(err)
	}
	m, err := mlnfile.ParseFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Formulas) != 3 || m.Formulas[0].Text != "Smokes(A) => Cancer(A)" || !(m.Formulas[0].Weight > 0 && m.Formulas[1].Weight < 0) {
		t.Errorf("learned:\n%s", m)
	}
	o.c.Holdout = []string{write("other.db", "Smokes(A)\nSmokes(E)\n")}
	err = runOnlineLearn(context.Background(), r.flags(o), os.Stdout)
	if err == nil || !strings.Contains(err.Error(), "per-constant weights need the same constants") {
		t.Errorf("holdout with other constants: %v", err)
	}
	o.c.Holdout = []string{write("same.db", "Smokes(C)\nCancer(C)\n")}
	if err := runOnlineLearn(context.Background(), r.flags(o), os.Stdout); err != nil {
		t.Errorf("holdout with the same constants: %v", err)
	}
}

// onlineRun is the learn flags a test sets.
type onlineRun struct {
	Method, Input, Output string
	Train                 []string
	Quiet                 bool
	MaxIter               int
	Tol, PriorStdDev      float64
}

// runOnlineLearn runs learn as with --max-iter and --prior-stddev given
// where the method takes them (scg, lbfgs-bp).
func runOnlineLearn(ctx context.Context, f *learnFlags, stdout io.Writer) error {
	var given []string
	if f.method == "scg" || f.method == "lbfgs-bp" {
		given = []string{"max-iter", "prior-stddev"}
	}
	return learnWith(ctx, f, given, stdout)
}

func (r onlineRun) flags(o *onlineFlags) *learnFlags {
	return &learnFlags{online: *o, method: r.Method, input: r.Input, train: r.Train, output: r.Output, quiet: r.Quiet,
		maxIter: r.MaxIter, tol: r.Tol, priorStdDev: r.PriorStdDev}
}

// TestLearnCountsBP: --counts bp runs the discriminative learner on BP's
// counts (said in the learned model's header), and --counts is refused
// with a method it does not apply to or an unknown source.
func TestLearnCountsBP(t *testing.T) {
	d := "../../examples/mln/wfomc/"
	out, errs, code := run(t, "learn", "--method", "dn", "--counts", "bp", "--ne", "Cancer", "-i", d+"smoking.mln", "-t", d+"smoking-train.db")
	// the example's network is small enough to enumerate: the counts are
	// exact, and the header says so
	if code != 0 || !strings.Contains(out, "diagonal Newton with exact counts") || !strings.Contains(errs, "exact counts (every database's network enumerated") {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	for _, args := range [][]string{
		{"--method", "lwl", "--counts", "bp"},
		{"--method", "dn", "--counts", "gibbs", "--ne", "Cancer"},
	} {
		_, errs, code := run(t, append([]string{"learn", "-i", d + "smoking.mln", "-t", d + "smoking-train.db"}, args...)...)
		if code == 0 || !strings.Contains(errs, "counts") {
			t.Errorf("%v: exit %d, stderr %s", args, code, errs)
		}
	}
}
