package optim

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"gonum.org/v1/gonum/optimize"
)

// Settings configure Minimize. The zero value runs without iteration limit
// and stops only by gonum's own tests (a gradient of max-norm below 1e-12, or
// a line search that cannot progress).
type Settings struct {
	// GradTol stops the run at an iteration whose gradient has max-norm
	// below it (gonum's Settings.GradientThreshold; 0: not used).
	GradTol float64
	// FuncAbsTol, FuncRelTol and FuncIters stop the run when FuncIters
	// iterations in a row lower the best value f_best found so far by no
	// more than FuncRelTol·max(|f|, |f_best|) + FuncAbsTol (gonum's
	// FunctionConverge). FuncIters 0 turns this test off; gonum's default
	// when no test is given is FuncAbsTol 1e-10, FuncRelTol 0, FuncIters 100.
	FuncAbsTol float64
	FuncRelTol float64
	FuncIters  int
	// MaxIter bounds the iterations (gonum's major iterations, the
	// starting point counting as the first); 0 means no bound.
	MaxIter int
	// Progress, if set, is called after every iteration that does not end
	// the run — the starting point being iteration 1 — with the iteration's
	// number, point and value. x is valid only during the call. A non-nil
	// error stops the run at once, and Minimize returns it.
	Progress func(iter int, x []float64, f float64) error
}

// Stop says why a run that no error stopped ended.
type Stop int

const (
	// GradientConverged: the gradient's max-norm fell below GradTol.
	GradientConverged Stop = iota
	// ValueConverged: FuncIters iterations in a row lowered f by no more
	// than the tolerances (FuncAbsTol, FuncRelTol).
	ValueConverged
	// IterationLimit: MaxIter iterations were done.
	IterationLimit
	// NoProgress: the line search could not find a point that lowers f
	// along L-BFGS's direction. At a minimum reached to machine precision
	// this is how runs end whose tolerances are tighter than the
	// objective's rounding error; the gradient norm tells whether the
	// point is (nearly) stationary.
	NoProgress
)

// Result is the outcome of a run that no error stopped.
type Result struct {
	// X and F are the last accepted point and its value (the best point:
	// L-BFGS accepts only points that lower f).
	X []float64
	F float64
	// GradNorm is the max-norm of the gradient at X.
	GradNorm float64
	// Iterations counts gonum's major iterations, the starting point
	// included; Evaluations counts the calls of f (distinct points).
	Iterations  int
	Evaluations int
	// Stop says why the run ended.
	Stop Stop
	// Status is the name of gonum's termination status: GradientThreshold,
	// FunctionConvergence, IterationLimit, or Failure when L-BFGS itself gave
	// up, with the reason in MethodErr.
	Status string
	// MethodErr is why L-BFGS gave up, when it did: typically a line search
	// that can no longer lower f, which ends most runs that have converged
	// to machine precision.
	MethodErr error
	// Converged reports whether the run stopped because a convergence test
	// held: the gradient below GradTol (Stop GradientConverged) or no
	// progress in f by the value test (ValueConverged).
	Converged bool

	settings Settings
}

// Reason says in words why the run stopped, with the gradient's max-norm
// at the returned point:
//
//	converged: gradient max-norm 3.2e-09 below the tolerance 1e-08
//	converged: objective changed by at most 1e-10·max(|f|, |f_best|) + 1e-10 in each of the last 10 iterations (gradient max-norm 2.1e-05)
//	stopped at the iteration limit of 1000 (gradient max-norm 0.0031)
//	line search could not lower the objective further (gradient max-norm 4.5e-07): linesearch: no change in location after Linesearcher step
func (r *Result) Reason() string {
	g := strconv.FormatFloat(r.GradNorm, 'g', 2, 64)
	switch r.Stop {
	case GradientConverged:
		return fmt.Sprintf("converged: gradient max-norm %s below the tolerance %g", g, r.settings.GradTol)
	case ValueConverged:
		return fmt.Sprintf("converged: objective changed by at most %g·max(|f|, |f_best|) + %g in each of the last %d iterations (gradient max-norm %s)",
			r.settings.FuncRelTol, r.settings.FuncAbsTol, r.settings.FuncIters, g)
	case IterationLimit:
		return fmt.Sprintf("stopped at the iteration limit of %d (gradient max-norm %s)", r.Iterations, g)
	}
	s := fmt.Sprintf("line search could not lower the objective further (gradient max-norm %s)", g)
	if r.MethodErr != nil {
		s += ": " + r.MethodErr.Error()
	}
	return s
}

// Minimize minimises f from x0 by gonum's L-BFGS with the More–Thuente line
// search. f returns the value at x and writes the gradient into grad (of
// len(x), zeroed before each call); it must not keep x or grad. f is called
// at most once per point: gonum asks for the value and the gradient at the
// same point in turn, and a point equal (bit for bit) to the last one
// evaluated gets the stored answer. f and Progress are never called
// concurrently.
//
// The first error f returns ends the run, and Minimize returns it; so do an
// error from Progress, and the context's error when ctx is cancelled (checked
// before the first evaluation and after every one; an evaluation in progress
// sees the cancellation only if f watches ctx). The Result is nil exactly
// when the error is non-nil.
func Minimize(ctx context.Context, f func(x, grad []float64) (float64, error), x0 []float64, s Settings) (*Result, error) {
	var (
		stopErr  error // the error that ends the run
		evals    int
		lastX    []float64
		lastF    float64
		lastGrad []float64
	)
	eval := func(x []float64) (float64, []float64) {
		if lastX != nil && sameBits(lastX, x) {
			return lastF, lastGrad
		}
		if stopErr != nil {
			return math.NaN(), make([]float64, len(x))
		}
		g := make([]float64, len(x))
		evals++
		v, err := f(x, g)
		if err != nil {
			stopErr = err
			return math.NaN(), make([]float64, len(x))
		}
		lastX = append(lastX[:0], x...)
		lastF, lastGrad = v, g
		return v, g
	}
	problem := optimize.Problem{
		Func: func(x []float64) float64 { v, _ := eval(x); return v },
		Grad: func(grad, x []float64) { _, g := eval(x); copy(grad, g) },
		// gonum calls Status before the first evaluation and after every one.
		Status: func() (optimize.Status, error) {
			if stopErr == nil {
				stopErr = ctx.Err()
			}
			if stopErr != nil {
				return optimize.Failure, stopErr
			}
			return optimize.NotTerminated, nil
		},
	}
	iter := 0
	settings := &optimize.Settings{
		GradientThreshold: s.GradTol,
		MajorIterations:   s.MaxIter,
		Converger:         &optimize.FunctionConverge{Absolute: s.FuncAbsTol, Relative: s.FuncRelTol, Iterations: s.FuncIters},
		Recorder: recorder(func(loc *optimize.Location) error {
			iter++
			if s.Progress == nil {
				return nil
			}
			if err := s.Progress(iter, loc.X, loc.F); err != nil {
				stopErr = err
				return err
			}
			return nil
		}),
	}
	out, err := optimize.Minimize(problem, x0, settings, &optimize.LBFGS{Linesearcher: &optimize.MoreThuente{}})
	if stopErr != nil {
		return nil, stopErr
	}
	if out == nil {
		return nil, err
	}
	res := &Result{X: out.X, F: out.F, Iterations: out.Stats.MajorIterations, Evaluations: evals,
		Status: out.Status.String(), MethodErr: err, settings: s}
	grad := out.Gradient
	if grad == nil || (lastX != nil && sameBits(lastX, out.X)) {
		_, grad = eval(out.X) // stored unless out.X was never evaluated
	}
	for _, v := range grad {
		res.GradNorm = math.Max(res.GradNorm, math.Abs(v))
	}
	switch out.Status {
	case optimize.GradientThreshold:
		res.Stop, res.Converged = GradientConverged, true
	case optimize.FunctionConvergence:
		res.Stop, res.Converged = ValueConverged, true
	case optimize.IterationLimit:
		res.Stop = IterationLimit
	default:
		res.Stop = NoProgress
	}
	return res, nil
}

// sameBits reports whether a and b hold the same float64 values bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// recorder is an optimize.Recorder that calls itself at every major
// iteration gonum records (gonum does not record the one that ends the run).
type recorder func(loc *optimize.Location) error

func (recorder) Init() error { return nil }

func (r recorder) Record(loc *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op == optimize.MajorIteration {
		return r(loc)
	}
	return nil
}
