package wfomc

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"
)

// TestEvaluateContextCancels evaluates friends-and-smokers at n = 2³⁰: a
// sum of about 10⁹ terms, minutes of work (0.15 s per 10⁶ terms). Under a
// deadline the evaluation stops and returns context.DeadlineExceeded soon
// after it, with its worker goroutines gone. The certified window
// (window.go) answers this model in milliseconds, so it is turned off: what
// is tested is the plain sum's cancellation.
func TestEvaluateContextCancels(t *testing.T) {
	windowOff = true
	defer func() { windowOff = false }()
	m := mustParse(t, friendsSmokers)
	mod, err := Compile(m, &Options{MaxTerms: 2e10}) // 1.07e9 terms: beyond the default
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int64{"person": 1 << 30}
	before := runtime.NumGoroutine()
	for _, budget := range []time.Duration{0, 50 * time.Millisecond, 300 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		start := time.Now()
		res, err := mod.EvaluateContext(ctx, weightsOf(m), sizes)
		late := time.Since(start) - budget
		cancel()
		if res != nil || !errors.Is(err, context.DeadlineExceeded) || err != context.DeadlineExceeded {
			t.Fatalf("budget %v: got %v, %v; want no result and context.DeadlineExceeded, unwrapped", budget, res, err)
		}
		// The stop itself takes microseconds; the slack is for a loaded machine.
		if late > time.Second {
			t.Errorf("budget %v: returned %v after the deadline", budget, late)
		}
		t.Logf("budget %v: returned %v after the deadline", budget, late)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after: workers left running", before, after)
	}
	// A cancellation, too, and the model still evaluates afterwards.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := mod.EvaluateContext(ctx, weightsOf(m), sizes); err != context.Canceled {
		t.Errorf("cancelled: error %v, want context.Canceled", err)
	}
	want, err := mod.Evaluate(weightsOf(m), map[string]int64{"person": 1000})
	if err != nil {
		t.Fatal(err)
	}
	got, err := mod.EvaluateContext(context.Background(), weightsOf(m), map[string]int64{"person": 1000})
	if err != nil || got.LogZ != want.LogZ {
		t.Errorf("EvaluateContext = %v, %v; Evaluate = %v", got, err, want.LogZ)
	}
}

// TestCompileContextCancels compiles a model whose evidence names many
// constants of a binary predicate: shattering them out takes long. Under a
// deadline Compile stops and returns context.DeadlineExceeded.
func TestCompileContextCancels(t *testing.T) {
	m := mustParse(t, friendsSmokers)
	var ev []Literal
	for i := 0; i < 40; i++ {
		ev = append(ev, Literal{Pred: "friends", Args: []string{"A" + string(rune('a'+i%26)) + string(rune('a'+i/26)), "B" + string(rune('a'+i%26)) + string(rune('a'+i/26))}, Value: true})
	}
	opt := &Options{Evidence: ev}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	mod, err := CompileContext(ctx, m, opt)
	elapsed := time.Since(start)
	t.Logf("compile: %v, %v", elapsed, err)
	if err == nil {
		t.Skip("compiled within the deadline; the model is not slow enough here")
	}
	if mod != nil || err != context.DeadlineExceeded {
		t.Fatalf("got %v, %v; want no model and context.DeadlineExceeded", mod, err)
	}
	if elapsed > 100*time.Millisecond+time.Second {
		t.Errorf("returned after %v", elapsed)
	}
}
