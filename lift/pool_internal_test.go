package lift

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Every task of every job runs exactly once, whether the helpers are
// spinning (jobs back to back), parked (jobs further apart than poolSpin)
// or in between; the pool's helpers exit when it is closed.
func TestWorkPoolRunsEveryTaskOnce(t *testing.T) {
	workers := min(4, runtime.GOMAXPROCS(0))
	if workers < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2")
	}
	before := runtime.NumGoroutine()
	p := newWorkPool(workers)
	if p == nil {
		t.Skip("pool off (LIFTED_SPIN=0)")
	}
	for job := range 300 {
		tasks := 1 + job%13
		counts := make([]atomic.Int32, tasks)
		runTasks(p, workers, tasks, func(i int) {
			counts[i].Add(1)
			if job%7 == 0 {
				time.Sleep(10 * time.Microsecond)
			}
		})
		for i := range counts {
			if c := counts[i].Load(); c != 1 {
				t.Fatalf("job %d: task %d ran %d times", job, i, c)
			}
		}
		if job%50 == 49 {
			time.Sleep(3 * poolSpin) // let the helpers park
		}
	}
	p.close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after close, %d before", n, before)
	}
}

// No pool for one worker, or for more workers than GOMAXPROCS.
func TestWorkPoolOnlyWithinGOMAXPROCS(t *testing.T) {
	if p := newWorkPool(1); p != nil {
		t.Fatal("pool for one worker")
	}
	if p := newWorkPool(runtime.GOMAXPROCS(0) + 1); p != nil {
		p.close()
		t.Fatal("pool for more workers than GOMAXPROCS")
	}
}
