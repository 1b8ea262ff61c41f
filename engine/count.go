package engine

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/count"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/suggest"
)

// CountOptions configure Count.
type CountOptions struct {
	// Method is "exact" (the exact count), "bpcount" (a lower bound by
	// BPCount on ground BP) or "lbpcount" (the same on lifted BP).
	Method string
	// BP are BPCount's options (bpcount, lbpcount; Lifted is set by
	// Method, and ChoiceSlack is lbpcount's only).
	BP count.BPCountOptions
	// PerStep adds every step's statistics to the figures and the text.
	PerStep bool
	// LimitHeap lets the exact counter set the runtime's memory limit
	// (for a process that runs one count; see count.Options).
	LimitHeap bool
	Progress  func(Progress)
}

// Count counts the models of c ("lifted count"). The Result's log Z is
// the natural log of the count (exact) or of its lower bound, with the
// counter's figures; text writes the answer as the command's text output.
func Count(ctx context.Context, c *cnf.CNF, o CountOptions) (res *Result, text func(io.Writer) error, err error) {
	progress := func(Progress) {}
	if o.Progress != nil {
		progress = o.Progress
	}
	res = &Result{Task: LogZ, Method: o.Method, Converged: true}
	switch o.Method {
	case "exact":
		start := time.Now()
		n, _, err := count.ExactWithOptions(ctx, c, count.Options{LimitHeap: o.LimitHeap, Progress: func(s count.Stats) {
			progress(Progress{Stage: "exact count", Detail: fmt.Sprintf("%d decisions, %d conflicts, %d cached components (%d MB)", s.Decisions, s.Conflicts, s.CacheEntries, s.CacheBytes>>20)})
		}})
		if err != nil {
			return nil, nil, err
		}
		secs := time.Since(start).Seconds()
		res.LogZ, res.LogZKind, res.Figures = count.Log10(n)*math.Ln10, infer.Exact, count.ExactFigures(n, secs)
		return res, func(w io.Writer) error { return count.WriteExactText(w, n, secs) }, nil
	case "bpcount", "lbpcount":
	default:
		return nil, nil, requestErrorf("unknown --method %q (want exact, bpcount or lbpcount)%s", o.Method, suggest.Hint(o.Method, []string{"exact", "bpcount", "lbpcount"}))
	}
	opt := o.BP
	opt.Lifted = o.Method == "lbpcount"
	if !opt.Lifted {
		opt.ChoiceSlack = 0
	}
	opt.Progress = func(p count.BPCountProgress) {
		progress(Progress{Stage: o.Method, Done: int64(p.Trial), Total: int64(opt.Trials),
			Detail: fmt.Sprintf("trial %d of %d, step %d, %d variables in open clauses", p.Trial+1, opt.Trials, p.Step, p.Open)})
	}
	r, err := count.BPCount(ctx, c, opt)
	if err != nil {
		return nil, nil, err
	}
	res.LogZ, res.LogZKind, res.Figures = r.LowerBoundLog10*math.Ln10, infer.LowerBound, count.BoundFigures(r, o.PerStep)
	return res, func(w io.Writer) error { return count.WriteBoundText(w, r, o.PerStep) }, nil
}
