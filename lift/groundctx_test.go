package lift

import (
	"context"
	"errors"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// laterCtx is a context whose Err says Canceled from its n-th call on.
type laterCtx struct {
	context.Context
	n, calls int
}

func (c *laterCtx) Err() error {
	if c.calls++; c.calls >= c.n {
		return context.Canceled
	}
	return nil
}

// GroundContext (the ground path's counted graph: seconds on millions of
// factors) polls its context while it builds the slots, and returns its
// error: one that ends after the first poll stops it inside the loop.
func TestGroundContextPolls(t *testing.T) {
	b := fg.NewBuilder()
	n := 3 * pollEvery
	b.AddVars(n+1, 2)
	for i := range n {
		if _, err := b.AddFactor([]int32{int32(i), int32(i + 1)}, []float64{1, 2, 3, float64(i%7 + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	g := b.Build()
	if _, err := GroundContext(context.Background(), g, nil); err != nil {
		t.Fatal(err)
	}
	ctx := &laterCtx{Context: context.Background(), n: 2}
	if c, err := GroundContext(ctx, g, nil); !errors.Is(err, context.Canceled) || c != nil {
		t.Fatalf("a context that ends during the build: %v, %v", c != nil, err)
	}
	if ctx.calls != 2 {
		t.Errorf("%d polls, want 2 (before the build and at its first poll)", ctx.calls)
	}
}
