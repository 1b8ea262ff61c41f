package gibbs

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/fg"
)

// oddCycle is an unsatisfiable graph: n (odd) binary variables in a cycle
// of hard "differ" factors, which WalkSAT searches for MaxFlips·n moves
// before it gives up.
func oddCycle(t *testing.T, n int) *fg.Graph {
	t.Helper()
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	for i := range n {
		if _, err := b.AddFactor([]int32{int32(i), int32((i + 1) % n)}, []float64{0, 1, 1, 0}); err != nil {
			t.Fatal(err)
		}
	}
	return b.Build()
}

// Ctrl-C during a chain's start-up: StartContext and StartAtContext poll
// their context during the WalkSAT search and return its error, instead
// of searching on (here 10^7 moves, seconds) until they give up.
func TestStartContextCancels(t *testing.T) {
	g := oddCycle(t, 10001)
	x := make([]int32, g.NumVars())
	if err := StartContext(context.Background(), oddCycle(t, 5), nil, x[:5], rand.New(rand.NewPCG(1, 1))); !errors.As(err, new(*UnsatError)) {
		t.Fatalf("a small odd cycle: %v, want an UnsatError", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, start := range map[string]func(context.Context, *fg.Graph, fg.Evidence, []int32, *rand.Rand) error{"StartContext": StartContext, "StartAtContext": StartAtContext} {
		t0 := time.Now()
		err := start(ctx, g, nil, x, rand.New(rand.NewPCG(1, 2)))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with an ended context: %v, want context.Canceled", name, err)
		}
		if took := time.Since(t0); took > time.Second {
			t.Errorf("%s returned after %v", name, took)
		}
	}
}
