package wfomc

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

const fiveUnary = `A(p)
B(p)
C(p)
D(p)
E(p)
F(p,p)
G(p,p)
1.2 F(x,y) ^ A(x) => B(y)
0.7 G(x,y) ^ B(x) => C(y)
0.3 F(x,y) ^ C(x) => D(y)
0.9 G(x,y) ^ D(x) => E(y)
0.4 F(x,y) ^ E(x) => A(y)
`

// TestProgressWorkUnits: compiling reports cell-pair weights, evaluating
// the terms of the cell sum against their total, never past it, and ends
// with all of them done.
func TestProgressWorkUnits(t *testing.T) {
	m := mustParse(t, fiveUnary)
	var mu sync.Mutex
	var got []Progress
	ctx := WithProgress(context.Background(), 0, func(p Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	mod, err := CompileContext(ctx, m, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mod.EvaluateContext(ctx, weightsOf(m), map[string]int64{"p": 10}); err != nil { // C(17,7) terms (condition.go)
		t.Fatal(err)
	}
	var compiling, evaluating int
	var last Progress
	for _, p := range got {
		switch p.Phase {
		case "compiling":
			compiling++
		case "evaluating":
			evaluating++
			if p.Total <= 0 || p.Done > p.Total || p.Done < last.Done {
				t.Errorf("evaluating: %+v after %+v", p, last)
			}
			last = p
		default:
			t.Errorf("phase %q", p.Phase)
		}
	}
	if compiling == 0 || evaluating == 0 || last.Done != last.Total || last.Total < 1000 {
		t.Errorf("%d compiling and %d evaluating reports, the last %+v; want thousands of terms, all done", compiling, evaluating, last)
	}
}

// TestMaxTermsRefusesAtOnce: a sum predicted beyond Options.MaxTerms is
// refused before it starts, with its size.
func TestMaxTermsRefusesAtOnce(t *testing.T) {
	m := mustParse(t, fiveUnary)
	mod, err := Compile(m, &Options{MaxTerms: 1e4})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = mod.Evaluate(weightsOf(m), map[string]int64{"p": 20}) // C(27,7) = 888030 terms (condition.go)
	var te *TermsError
	if !errors.As(err, &te) || te.Terms < 8e5 || te.Limit != 1e4 || time.Since(start) > time.Second {
		t.Fatalf("got %v after %v; want a TermsError at once", err, time.Since(start))
	}
	if _, err := mod.Evaluate(weightsOf(m), map[string]int64{"p": 2}); err != nil {
		t.Errorf("p = 2 (36 terms): %v", err)
	}
}

// TestRunFileContextCancelled: a run whose context is cancelled stops
// within milliseconds with a StoppedError that unwraps to
// context.Canceled, in compilation and in evaluation.
func TestRunFileContextCancelled(t *testing.T) {
	m := mustParse(t, fiveUnary)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := RunFileContext(ctx, m, FileOptions{Domains: []string{"p=60"}})
	var se *StoppedError
	if !errors.As(err, &se) || !errors.Is(err, context.Canceled) || se.Phase != "compiling" {
		t.Errorf("cancelled before: %v", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	var once sync.Once
	var at time.Time
	ctx = WithProgress(ctx, 0, func(p Progress) {
		if p.Phase == "evaluating" && p.Done > 0 {
			once.Do(func() { at = time.Now(); cancel() })
		}
	})
	_, err = RunFileContext(ctx, m, FileOptions{Domains: []string{"p=60"}}) // C(67,7) = 8.7·10^8 terms: minutes
	if !errors.As(err, &se) || !errors.Is(err, context.Canceled) || se.Phase != "evaluating" {
		t.Fatalf("cancelled while evaluating: %v", err)
	}
	if d := time.Since(at); d > 500*time.Millisecond {
		t.Errorf("stopped %v after the cancellation", d)
	}
}
