package wfomc

import (
	"context"
	"fmt"
	"sync/atomic"
)

// Work counts the work units of compilations and evaluations run under
// the context of WithWorkLimit: the steps of compilation's long loops
// (shattering, splitting, building cells), the cell-pair weights, the
// steps of the sums over cell counts and the ground worlds enumerated,
// each weighed so that a unit is about 0.1 µs of one core (StepUnits,
// TickUnits, PairUnits, WorldUnits). The count of a run is the same
// whatever the machine's load and the number of processors, so a limit
// in units decides the same way on every run.
type Work struct {
	limit  int64
	used   atomic.Int64
	fired  atomic.Bool
	cancel context.CancelCauseFunc
}

// WorkError is the cause of a context that WithWorkLimit ended: the runs
// under it did more than Limit work units.
type WorkError struct{ Limit int64 }

func (e *WorkError) Error() string {
	return fmt.Sprintf("wfomc did more than its %d work units", e.Limit)
}

// The weights of the work units: measured on one core of the development
// machine (a unit is about 0.1 µs), so that a limit in units bounds the
// time of a run whatever part of wfomc it spends it in.
const (
	StepUnits  = 1  // a step of a sum over cell counts (about 85 ns)
	TickUnits  = 8  // a step of compilation's long loops (0.6 to 0.9 µs)
	PairUnits  = 10 // a cell-pair weight (about 1 µs)
	WorldUnits = 20 // a ground world enumerated (about 2 µs)
)

type workKey struct{}

// WithWorkLimit returns a context under which CompileContext,
// EvaluateContext and RunFileContext count their work units in w, and
// which ends, with a *WorkError as its cause (context.Cause), once they
// have done more than limit (limit <= 0: no limit, the units are only
// counted). The runs then stop as they do on any end of the context. A
// run that finished may have passed the limit in its last units: Over
// says so, and a caller that wants the same decision on every run asks it
// rather than whether the context ended. cancel releases the context.
func WithWorkLimit(parent context.Context, limit int64) (ctx context.Context, w *Work, cancel context.CancelFunc) {
	ctx, cc := context.WithCancelCause(parent)
	w = &Work{limit: limit, cancel: cc}
	return context.WithValue(ctx, workKey{}, w), w, func() { cc(context.Canceled) }
}

func workOf(ctx context.Context) *Work {
	w, _ := ctx.Value(workKey{}).(*Work)
	return w
}

// Used is the number of work units counted so far.
func (w *Work) Used() int64 { return w.used.Load() }

// Over reports whether more than the limit has been counted.
func (w *Work) Over() bool { return w.limit > 0 && w.used.Load() > w.limit }

// spend counts n units and ends the context once past the limit.
func (w *Work) spend(n int64) {
	if w == nil || n <= 0 {
		return
	}
	if w.used.Add(n) > w.limit && w.limit > 0 && w.fired.CompareAndSwap(false, true) {
		w.cancel(&WorkError{Limit: w.limit})
	}
}

// Spend counts n work units in the Work of ctx (WithWorkLimit's; none:
// nothing is counted), ending the context once past its limit, and
// reports whether the limit is passed. It is for work done on wfomc's
// behalf outside its own loops, such as the scan of the query atoms that
// infer/exact makes before asking wfomc, so that a scan of millions of
// atoms stops at the share as the computation does.
func Spend(ctx context.Context, n int64) bool {
	w := workOf(ctx)
	w.spend(n)
	return w != nil && w.Over()
}
