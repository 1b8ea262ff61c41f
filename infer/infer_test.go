package infer_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// chain builds a binary chain of n variables with one shared pairwise table
// and a prior on the first variable: a tree, so BP is exact.
func chain(n int) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	if _, err := b.AddFactor([]int32{0}, []float64{1, 3}); err != nil {
		panic(err)
	}
	for i := int32(0); i+1 < int32(n); i++ {
		if _, err := b.AddFactor([]int32{i, i + 1}, []float64{4, 1, 2, 3}); err != nil {
			panic(err)
		}
	}
	return b.Build()
}

func TestRegistryHasBP(t *testing.T) {
	for _, name := range []string{"lbp", "bp"} {
		m, ok := infer.Lookup(name)
		if !ok {
			t.Fatalf("%s not registered", name)
		}
		if m.Lifted != (name == "lbp") {
			t.Errorf("%s: Lifted = %v", name, m.Lifted)
		}
		for _, task := range []infer.Task{infer.Marginals, infer.MAP, infer.PartitionFunction} {
			if !m.Supports(task) {
				t.Errorf("%s does not support %v", name, task)
			}
		}
	}
}

func TestNewErrors(t *testing.T) {
	_, _, err := infer.New("nope", nil)
	var ue *infer.UnknownMethodError
	if !errors.As(err, &ue) {
		t.Fatalf("unknown method: got %v", err)
	}
	_, _, err = infer.New("bp", infer.Properties{"colour": "x"})
	var pe *infer.PropertyError
	if !errors.As(err, &pe) || pe.Name != "colour" {
		t.Fatalf("unknown property: got %v", err)
	}
	cases := []struct {
		props infer.Properties
		name  string
	}{
		{infer.Properties{"schedule": "random"}, "schedule"},
		{infer.Properties{"damping": "1"}, "damping"},
		{infer.Properties{"damping": "x"}, "damping"},
		{infer.Properties{"tol": "-1"}, "tol"},
		{infer.Properties{"max-iter": "0"}, "max-iter"},
		{infer.Properties{"max-iter": "1.5"}, "max-iter"},
	}
	for _, c := range cases {
		_, _, err := infer.New("lbp", c.props)
		if !errors.As(err, &pe) || pe.Name != c.name {
			t.Errorf("%v: got %v", c.props, err)
		}
	}
	if _, _, err := infer.New("lbp", infer.Properties{"schedule": "seq", "damping": "0.5", "tol": "1e-6", "max-iter": "7"}); err != nil {
		t.Fatal(err)
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("registering bp again did not panic")
		}
	}()
	infer.Register(infer.Method{Name: "bp", New: func(infer.Properties) (infer.Algorithm, error) { return nil, nil }})
}

// TestRunExactOnTree checks the whole path (registry, compression, BP,
// Answer) against enumeration on a tree, ground and lifted, for marginals,
// log Z and MAP.
func TestRunExactOnTree(t *testing.T) {
	g := chain(7)
	ev := fg.Evidence{-1, -1, -1, 1, -1, -1, -1}
	ex := brute.Solve(g, ev)
	for _, name := range []string{"bp", "lbp"} {
		for _, sched := range []string{"flood", "seq"} {
			alg, m, err := infer.New(name, infer.Properties{"schedule": sched, "tol": "1e-12"})
			if err != nil {
				t.Fatal(err)
			}
			ans, err := infer.Run(context.Background(), alg, g, ev, infer.Options{Lifted: m.Lifted})
			if err != nil {
				t.Fatal(err)
			}
			if !ans.Converged || ans.LogZKind != infer.Estimate || ans.Task != infer.Marginals {
				t.Fatalf("%s/%s: converged %v, log Z kind %v, task %v", name, sched, ans.Converged, ans.LogZKind, ans.Task)
			}
			if math.Abs(ans.LogZ-ex.LogZ) > 1e-9 {
				t.Errorf("%s/%s: log Z %v, exact %v", name, sched, ans.LogZ, ex.LogZ)
			}
			for v, want := range ex.Marginals {
				for x := range want {
					if d := math.Abs(ans.Marginal(v)[x] - want[x]); d > 1e-9 {
						t.Fatalf("%s/%s: variable %d: %v, exact %v", name, sched, v, ans.Marginal(v), want)
					}
				}
			}
			st := ans.Stats
			if st.Variables != 7 || st.Factors != 7 || st.Clusternodes != ans.Graph.NumNodes() || st.BPIterations < 1 || st.Messages < 1 || !st.Converged {
				t.Errorf("%s/%s: stats %+v", name, sched, st)
			}
			if m.Lifted && st.ColorIter < 1 {
				t.Errorf("%s: no colour passing reported", name)
			}
			mp, err := infer.Run(context.Background(), alg, g, ev, infer.Options{Lifted: m.Lifted, Query: infer.Query{Task: infer.MAP}})
			if err != nil {
				t.Fatal(err)
			}
			if ex.MAPUnique {
				for v := range ex.MAP {
					if mp.Assignment[v] != ex.MAP[v] {
						t.Fatalf("%s/%s: MAP %v, exact %v", name, sched, mp.Assignment, ex.MAP)
					}
				}
			}
			if mp.LogZKind != infer.NoLogZ {
				t.Errorf("MAP answer claims a log Z")
			}
		}
	}
}

// TestLiftedEqualsGroundThroughSeam runs both registered BP methods through
// infer.Run on planted-symmetry graphs: the answers agree at every variable.
func TestLiftedEqualsGroundThroughSeam(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 7))
		piece := gen.Random(r, 3+r.IntN(3), 3+r.IntN(4), 3, 0.1)
		g, ev := gen.Copies(r, piece, 2+r.IntN(5), r.IntN(3))
		var ans [2]*infer.Answer
		var errs [2]error
		for i, name := range []string{"bp", "lbp"} {
			alg, m, err := infer.New(name, infer.Properties{"tol": "1e-11", "max-iter": "5000"})
			if err != nil {
				t.Fatal(err)
			}
			ans[i], errs[i] = infer.Run(context.Background(), alg, g, ev, infer.Options{Lifted: m.Lifted})
		}
		if (errs[0] == nil) != (errs[1] == nil) {
			t.Fatalf("seed %d: ground error %v, lifted error %v", seed, errs[0], errs[1])
		}
		if errs[0] != nil {
			continue // contradictory evidence or zeros BP cannot normalise: the same for both
		}
		if !ans[0].Converged || !ans[1].Converged {
			continue
		}
		if ans[1].Stats.Clusternodes > ans[0].Stats.Clusternodes {
			t.Fatalf("seed %d: lifted has more clusternodes", seed)
		}
		for v := range g.NumVars() {
			a, b := ans[0].Marginal(v), ans[1].Marginal(v)
			for x := range a {
				if math.Abs(a[x]-b[x]) > 1e-8 {
					t.Fatalf("seed %d variable %d: ground %v lifted %v", seed, v, a, b)
				}
			}
		}
	}
}

func TestProgressAndCancel(t *testing.T) {
	g := chain(30)
	calls := 0
	alg := bp.New(bp.DefaultOptions())
	_, err := infer.Run(context.Background(), alg, g, nil, infer.Options{Query: infer.Query{Progress: func(p infer.Progress) {
		calls++
		if p.Iteration != calls {
			t.Fatalf("progress iteration %d at call %d", p.Iteration, calls)
		}
	}}})
	if err != nil || calls == 0 {
		t.Fatalf("err %v, %d progress calls", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := infer.Run(ctx, alg, g, nil, infer.Options{Lifted: true, Colour: lift.Options{}}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
}
