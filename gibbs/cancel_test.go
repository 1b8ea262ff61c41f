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

// Ctrl-C while the strongly coupled pairs are found (UW-CSE: 0.17 CPU s
// over 361,162 factors, seconds on a loaded machine, unpolled):
// NewPairsContext returns its context's error; uncancelled it finds what
// NewPairs finds.
func TestNewPairsContextCancels(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	for _, sc := range [][]int32{{0, 1}, {1, 2}} {
		if _, err := b.AddFactor(sc, []float64{20, 1, 1, 20}); err != nil {
			t.Fatal(err)
		}
	}
	g := b.Build()
	p, err := NewPairsContext(context.Background(), g, nil)
	if want := NewPairs(g, nil); err != nil || p.Len() != 2 || want.Len() != p.Len() {
		t.Fatalf("NewPairsContext: %v pairs, %v; NewPairs: %d pairs", p, err, want.Len())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := NewPairsContext(ctx, g, nil); !errors.Is(err, context.Canceled) || p != nil {
		t.Errorf("cancelled: %v, %v", p, err)
	}
}

// Ctrl-C while a chain is prepared (UW-CSE: about 40 ms of CPU per chain,
// eight chains at once, seconds on a loaded machine): NewChainContext
// returns its context's error.
func TestNewChainContextCancels(t *testing.T) {
	g := oddCycle(t, 5)
	x := []int32{0, 1, 0, 1, 1}
	if _, err := NewChainContext(context.Background(), g, nil, x); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if c, err := NewChainContext(ctx, g, nil, x); !errors.Is(err, context.Canceled) || c != nil {
		t.Errorf("cancelled: %v, %v", c, err)
	}
}
