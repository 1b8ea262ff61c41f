package wfomc

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// Progress is how far a compilation or an evaluation is, in work units:
// compiling counts the cell-pair weights computed (Total 0: not known in
// advance); evaluating counts the terms of the sums over cell counts, of
// Total known so far (atom counting announces the sums of each count as it
// reaches them, so Total can grow).
type Progress struct {
	Phase       string // "compiling" or "evaluating"
	Done, Total int64
	Elapsed     time.Duration
}

// Detail describes the progress in words.
func (p Progress) Detail() string {
	if p.Phase == "compiling" {
		return fmt.Sprintf("%d cell-pair weights computed", p.Done)
	}
	return "terms of the sums over cell counts"
}

type progressKey struct{}

// meter collects the work of one compilation or evaluation, from several
// goroutines, and reports it at most every interval.
type meter struct {
	f        func(Progress)
	interval time.Duration
	start    time.Time
	phase    atomic.Pointer[string]
	done     atomic.Int64
	total    atomic.Int64
	mu       sync.Mutex
	last     time.Time
}

// WithProgress returns a context under which CompileContext,
// EvaluateContext and RunFileContext report their progress to f, at most
// every interval (and once at the end of each phase). f is called from the
// computing goroutines, one call at a time; it must be quick.
func WithProgress(ctx context.Context, interval time.Duration, f func(Progress)) context.Context {
	m := &meter{f: f, interval: interval, start: time.Now()}
	m.last = m.start
	return context.WithValue(ctx, progressKey{}, m)
}

func meterOf(ctx context.Context) *meter {
	m, _ := ctx.Value(progressKey{}).(*meter)
	return m
}

// begin starts a phase: its counts restart.
func (m *meter) begin(phase string) {
	if m == nil {
		return
	}
	m.phase.Store(&phase)
	m.done.Store(0)
	m.total.Store(0)
}

func (m *meter) addTotal(n int64) {
	if m != nil {
		m.total.Add(n)
	}
}

// add counts n units of work done and reports when the interval is over.
func (m *meter) add(n int64) {
	if m == nil {
		return
	}
	m.done.Add(n)
	now := time.Now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if now.Sub(m.last) < m.interval {
		return
	}
	m.last = now
	m.report(now)
}

// end reports the phase as it ends.
func (m *meter) end() {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.report(time.Now())
}

func (m *meter) report(now time.Time) {
	phase := ""
	if p := m.phase.Load(); p != nil {
		phase = *p
	}
	done, total := m.done.Load(), m.total.Load()
	if total > 0 && done > total {
		done = total // the estimate of the terms is an upper bound of compositions; never past 100%
	}
	m.f(Progress{Phase: phase, Done: done, Total: total, Elapsed: now.Sub(m.start)})
}
