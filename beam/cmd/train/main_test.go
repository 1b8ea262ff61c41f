package main

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lifted-dev/lifted/beam/internal/listflag"
	"github.com/lifted-dev/lifted/beam/internal/testbin"
	"github.com/lifted-dev/lifted/online"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

func runPrism(_ context.Context, p *beam.Pipeline) error { return ptest.Run(p) }

// A model with per-constant weights (+x) and starred atoms, which the
// trainer expands as lifted learn does.
const model = `
person = {A, B, C, D}
Smokes(person)
Cancer(person)
Friends(person, person)

1.5 Smokes(+x) => Cancer(x)
1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)
0.2 *Smokes(x) ^ *Cancer(x)
`

const trainDB = `
Friends(A, B)
Friends(B, A)
Friends(B, C)
Friends(C, D)
Smokes(A)
Smokes(B)
Cancer(A)
Cancer(B)
Smokes(D)
`

const holdoutDB = `
Friends(A, C)
Friends(C, A)
Smokes(A)
Smokes(C)
Cancer(C)
`

func readCurve(t *testing.T, path string) *online.Curve {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c online.Curve
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return &c
}

// The trainer with every mini-batch a Beam job on Prism learns lifted
// learn's weights (1e-9) with the same flags: per-constant weights and
// starred atoms expanded, no --ne (every predicate predicted) or --ne,
// --holdout with its test CMLL curve (--log, --eval-every), --workers,
// for sgd and smd.
func TestTrainEqualsLiftedLearn(t *testing.T) {
	lifted := testbin.Lifted(t)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mlnPath, tr, ho := write("s.mln", model), write("train.db", trainDB), write("holdout.db", holdoutDB)
	for i, c := range []config{
		{method: "sgd", pieces: "factor", batchSize: 9, step: 0.3, seed: 5, evalEvery: 0.5},
		{method: "smd", pieces: "tree", batchSize: 12, step: 0.2, seed: 7, evalEvery: 0.25, ne: listflag.Comma{"Smokes", "Cancer"}, workers: 2},
	} {
		c.input, c.trainDB, c.holdout = mlnPath, listflag.Comma{tr}, listflag.Comma{ho}
		c.depth, c.discount, c.passes, c.lambda, c.mu, c.gamma, c.quiet = 2, 0.9, 1, 0.99, 0.1, 0.9, true
		wantLog, gotLog := filepath.Join(dir, c.method+"-lifted.json"), filepath.Join(dir, c.method+"-beam.json")
		args := []string{"learn", "--method", c.method, "-i", c.input, "-t", tr, "--holdout", ho, "--pieces", c.pieces,
			"--batch-size", itoa(c.batchSize), "--step", ftoa(c.step), "--seed", itoa(int(c.seed)), "--eval-every", ftoa(c.evalEvery),
			"--log", wantLog, "-o", filepath.Join(dir, "lifted.mln"), "--quiet"}
		if len(c.ne) > 0 {
			args = append(args, "--ne", strings.Join(c.ne, ","))
		}
		if c.workers > 0 {
			args = append(args, "--workers", itoa(c.workers))
		} else {
			c.workers = 1
		}
		if out, err := exec.Command(lifted, args...).CombinedOutput(); err != nil {
			t.Fatalf("lifted %v: %v\n%s", args, err, out)
		}
		c.log, c.output = gotLog, filepath.Join(dir, "beam.mln")
		if i == 0 {
			c.plot = filepath.Join(dir, "curve.svg")
		}
		if err := run(context.Background(), &c, runPrism); err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		want, got := readCurve(t, wantLog), readCurve(t, gotLog)
		if len(got.Points) != len(want.Points) || len(want.Points) < 3 || len(got.Formulas) != len(want.Formulas) || len(want.Formulas) != 9 {
			t.Fatalf("%s: %d curve points and %d formulas, lifted learn %d and %d", c.method, len(got.Points), len(got.Formulas), len(want.Points), len(want.Formulas))
		}
		for k, p := range want.Points {
			q := got.Points[k]
			if q.Passes != p.Passes || q.CMLL == nil || p.CMLL == nil || math.Abs(*q.CMLL-*p.CMLL) > 1e-9 {
				t.Fatalf("%s: point %d: passes %v CMLL %v, lifted learn %v %v", c.method, k, q.Passes, q.CMLL, p.Passes, p.CMLL)
			}
			for j := range p.Weights {
				if math.Abs(q.Weights[j]-p.Weights[j]) > 1e-9 {
					t.Fatalf("%s: point %d (pass %v): w[%d] = %v, lifted learn %v", c.method, k, p.Passes, j, q.Weights[j], p.Weights[j])
				}
			}
		}
		t.Logf("%s: %d points, final weights %v, final test CMLL %v", c.method, len(got.Points), got.Points[len(got.Points)-1].Weights, *got.Points[len(got.Points)-1].CMLL)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "curve.svg")); err != nil || !strings.Contains(string(b), "<svg") {
		t.Fatalf("--plot: %v", err)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func ftoa(x float64) string { b, _ := json.Marshal(x); return string(b) }
