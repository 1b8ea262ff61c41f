package exact_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
)

// TestAutoCancelsWFOMC gives auto a model that wfomc compiles slowly
// (evidence names 40 pairs of constants of a binary predicate, which are
// shattered out) and a budget of 200 ms: Choose falls back soon after the
// budget, and the wfomc run has stopped by then instead of going on in
// the background.
func TestAutoCancelsWFOMC(t *testing.T) {
	src := `smokes(person)
cancer(person)
friends(person, person)
0.7 !smokes(x) v cancer(x)
0.2 !friends(x,y) v smokes(x) v !smokes(y)
`
	var db strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&db, "friends(A%d, B%d)\n", i, i)
	}
	m := model(t, "slow", []byte(src), []byte(db.String()), "cancer")
	lbp, _, err := infer.New("lbp", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	a := &exact.Auto{LBP: lbp, Budget: 200 * time.Millisecond}
	start := time.Now()
	ch, err := a.Choose(context.Background(), m, infer.Query{Task: infer.Marginals})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s after %v: %s", ch.Name, elapsed, ch.Reason)
	if ch.Name == "wfomc" {
		t.Skip("wfomc finished within the budget; the model is not slow enough here")
	}
	if !strings.Contains(ch.Reason, "did not finish within its budget") {
		t.Errorf("reason %q", ch.Reason)
	}
	if elapsed > a.Budget+time.Second {
		t.Errorf("Choose returned %v after a budget of %v", elapsed, a.Budget)
	}
	// The wfomc goroutine has returned (Choose waited for it); give the
	// scheduler a moment to retire it.
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before Choose, %d after: the wfomc run goes on", before, after)
	}
}
