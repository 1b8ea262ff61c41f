package wfomc

import (
	"context"
	"errors"
	"runtime"
	"testing"
)

// The work units of a run are the same whatever the number of processors
// (the sums over cell counts are split into chunks that several goroutines
// share), and a limit below them ends the context with a *WorkError as
// its cause and the run with the context's error; at the exact count the
// run finishes and Over is false. The certified window is turned off, so
// that the sum is summed term by term in 13 chunks.
func TestWorkLimit(t *testing.T) {
	windowOff = true
	defer func() { windowOff = false }()
	m := mustParse(t, "friends(person,person)\nsmokes(person)\ncancer(person)\n2 friends(x,y) ^ smokes(x) => smokes(y)\n1 smokes(x) => cancer(x)\n")
	w8 := []float64{2, 1}
	count := func(limit int64) (*Work, error) {
		ctx, w, cancel := WithWorkLimit(context.Background(), limit)
		defer cancel()
		mod, err := CompileContext(ctx, m, nil)
		if err == nil {
			_, err = mod.EvaluateContext(ctx, w8, map[string]int64{"person": 50000})
		}
		return w, err
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var used []int64
	for _, procs := range []int{1, 4} {
		runtime.GOMAXPROCS(procs)
		w, err := count(0)
		if err != nil || w.Over() {
			t.Fatalf("GOMAXPROCS %d: %v, over %v", procs, err, w.Over())
		}
		used = append(used, w.Used())
	}
	if used[0] != used[1] || used[0] < 10*chunk {
		t.Fatalf("work units with 1 and 4 processors: %v (want equal, and several chunks)", used)
	}
	if w, err := count(used[0]); err != nil || w.Over() || w.Used() != used[0] {
		t.Errorf("limit = the count: %v, over %v, used %d", err, w.Over(), w.Used())
	}
	ctx, w, cancel := WithWorkLimit(context.Background(), used[0]/2)
	defer cancel()
	mod, err := CompileContext(ctx, m, nil)
	if err == nil {
		_, err = mod.EvaluateContext(ctx, w8, map[string]int64{"person": 50000})
	}
	var we *WorkError
	if !errors.Is(err, context.Canceled) || !errors.As(context.Cause(ctx), &we) || we.Limit != used[0]/2 || !w.Over() || w.Used() >= used[0] {
		t.Errorf("half the work: %v (cause %v), over %v, used %d of %d", err, context.Cause(ctx), w.Over(), w.Used(), used[0])
	}
}
