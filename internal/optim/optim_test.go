package optim

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// quadratic is Σ a_i (x_i − c_i)², minimised at c.
func quadratic(a, c []float64) func(x, grad []float64) (float64, error) {
	return func(x, grad []float64) (float64, error) {
		v := 0.0
		for i := range x {
			d := x[i] - c[i]
			v += a[i] * d * d
			grad[i] = 2 * a[i] * d
		}
		return v, nil
	}
}

// rosenbrock is (1 − x)² + 100 (y − x²)², minimised at (1, 1).
func rosenbrock(x, grad []float64) (float64, error) {
	a, b := 1-x[0], x[1]-x[0]*x[0]
	grad[0] = -2*a - 400*x[0]*b
	grad[1] = 200 * b
	return a*a + 100*b*b, nil
}

func TestQuadratic(t *testing.T) {
	a := []float64{1, 10, 0.5, 3}
	c := []float64{3, -1, 0.25, 7}
	res, err := Minimize(context.Background(), quadratic(a, c), []float64{0, 0, 0, 0}, Settings{GradTol: 1e-9})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c {
		if math.Abs(res.X[i]-c[i]) > 1e-8 {
			t.Errorf("x[%d] = %v, want %v", i, res.X[i], c[i])
		}
	}
	if !res.Converged || res.Stop != GradientConverged || res.Status != "GradientThreshold" || res.MethodErr != nil ||
		!strings.HasPrefix(res.Reason(), "converged: gradient max-norm ") || !strings.Contains(res.Reason(), "below the tolerance 1e-09") {
		t.Errorf("stopped by %q (converged %v, %v)", res.Reason(), res.Converged, res.MethodErr)
	}
	// The gradient norm is the max-norm of the gradient at X: 2 a_i (x_i − c_i).
	want := 0.0
	for i := range c {
		want = math.Max(want, math.Abs(2*a[i]*(res.X[i]-c[i])))
	}
	if res.GradNorm != want || res.GradNorm >= 1e-9 {
		t.Errorf("GradNorm %v, want %v (below the tolerance)", res.GradNorm, want)
	}
	if res.F > 1e-15 {
		t.Errorf("f = %v at the minimum", res.F)
	}
}

func TestRosenbrock(t *testing.T) {
	calls := 0
	var last []float64
	f := func(x, grad []float64) (float64, error) {
		calls++
		if slices.Equal(x, last) {
			t.Errorf("evaluated %v twice in a row", x)
		}
		last = slices.Clone(x)
		for _, g := range grad {
			if g != 0 {
				t.Fatal("grad not zeroed")
			}
		}
		return rosenbrock(x, grad)
	}
	var iters []int
	var values []float64
	res, err := Minimize(context.Background(), f, []float64{-1.2, 1}, Settings{GradTol: 1e-10, MaxIter: 1000,
		Progress: func(iter int, x []float64, v float64) error {
			iters = append(iters, iter)
			values = append(values, v)
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.X[0]-1) > 1e-8 || math.Abs(res.X[1]-1) > 1e-8 || !res.Converged {
		t.Errorf("got %v (%s), want [1 1]", res.X, res.Reason())
	}
	if res.Evaluations != calls {
		t.Errorf("%d evaluations reported, f called %d times", res.Evaluations, calls)
	}
	// Progress sees every iteration but the one that ends the run; the
	// starting point is iteration 1, at f(−1.2, 1) = 24.2.
	if len(iters) != res.Iterations-1 || iters[0] != 1 || math.Abs(values[0]-24.2) > 1e-12 {
		t.Fatalf("progress at iterations %v (values %v), %d iterations", iters, values, res.Iterations)
	}
	for i := 1; i < len(iters); i++ {
		if iters[i] != i+1 || values[i] > values[i-1] {
			t.Errorf("iteration %d: %d, f %v after %v", i+1, iters[i], values[i], values[i-1])
		}
	}
}

func TestStops(t *testing.T) {
	// The iteration limit counts the starting point.
	res, err := Minimize(context.Background(), rosenbrock, []float64{-1.2, 1}, Settings{MaxIter: 5})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "IterationLimit" || res.Stop != IterationLimit || res.Iterations != 5 || res.Converged {
		t.Errorf("MaxIter 5: %s after %d iterations", res.Reason(), res.Iterations)
	}
	g := make([]float64, 2)
	rosenbrock(res.X, g)
	if gn := math.Max(math.Abs(g[0]), math.Abs(g[1])); res.GradNorm != gn ||
		res.Reason() != "stopped at the iteration limit of 5 (gradient max-norm "+strconv.FormatFloat(gn, 'g', 2, 64)+")" {
		t.Errorf("MaxIter 5: %q, gradient max-norm %v, want %v", res.Reason(), res.GradNorm, gn)
	}
	// The value test: from f = 24.2 at (−1.2, 1), Rosenbrock's first
	// iterations reach 4.225 and then 4.127, a decrease of less than 1 (and
	// of less than 10 % of f), which ends the run with FuncIters 1.
	for _, s := range []Settings{{FuncAbsTol: 1, FuncIters: 1}, {FuncRelTol: 0.1, FuncIters: 1}} {
		res, err = Minimize(context.Background(), rosenbrock, []float64{-1.2, 1}, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != "FunctionConvergence" || res.Stop != ValueConverged || !res.Converged || res.Iterations != 3 || math.Abs(res.F-4.127) > 1e-3 ||
			!strings.HasPrefix(res.Reason(), "converged: objective changed by at most ") || !strings.HasSuffix(res.Reason(), "(gradient max-norm "+strconv.FormatFloat(res.GradNorm, 'g', 2, 64)+")") {
			t.Errorf("%+v: %s after %d iterations at f = %v", s, res.Reason(), res.Iterations, res.F)
		}
	}
	// With FuncIters 0 the value test is off.
	res, err = Minimize(context.Background(), rosenbrock, []float64{-1.2, 1}, Settings{FuncAbsTol: 1, GradTol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "GradientThreshold" {
		t.Errorf("FuncIters 0: %s", res.Reason())
	}
	// A gradient that points the wrong way: no line search succeeds, and
	// L-BFGS's error is reported, not returned.
	wrong := func(x, grad []float64) (float64, error) {
		grad[0] = -2 * x[0]
		return x[0] * x[0], nil
	}
	res, err = Minimize(context.Background(), wrong, []float64{1}, Settings{GradTol: 1e-8})
	if err != nil {
		t.Fatal(err)
	}
	// At x = 1 the reported gradient is −2: its max-norm is 2.
	if res.Status != "Failure" || res.Stop != NoProgress || res.MethodErr == nil || res.Converged || res.GradNorm != 2 ||
		res.Reason() != "line search could not lower the objective further (gradient max-norm 2): "+res.MethodErr.Error() ||
		!strings.Contains(res.Reason(), "linesearch") {
		t.Errorf("wrong gradient: %q", res.Reason())
	}
}

func TestEvaluationError(t *testing.T) {
	bad := errors.New("model broke")
	calls := 0
	f := func(x, grad []float64) (float64, error) {
		calls++
		if calls == 4 {
			return 0, bad
		}
		return rosenbrock(x, grad)
	}
	res, err := Minimize(context.Background(), f, []float64{-1.2, 1}, Settings{})
	if err != bad || res != nil {
		t.Errorf("got %v, %v; want the evaluation's error", res, err)
	}
	if calls != 4 {
		t.Errorf("f called %d times, want none after the error", calls)
	}
	// At the starting point.
	calls = 0
	f0 := func(x, grad []float64) (float64, error) { calls++; return 0, bad }
	if res, err := Minimize(context.Background(), f0, []float64{1, 2}, Settings{}); err != bad || res != nil || calls != 1 {
		t.Errorf("error at x0: %v, %v after %d calls", res, err, calls)
	}
}

func TestProgressError(t *testing.T) {
	stop := errors.New("enough")
	calls, atStop := 0, 0
	f := func(x, grad []float64) (float64, error) { calls++; return rosenbrock(x, grad) }
	res, err := Minimize(context.Background(), f, []float64{-1.2, 1}, Settings{Progress: func(iter int, _ []float64, _ float64) error {
		if iter == 3 {
			atStop = calls
			return stop
		}
		return nil
	}})
	if err != stop || res != nil {
		t.Errorf("got %v, %v; want Progress's error", res, err)
	}
	if calls != atStop {
		t.Errorf("%d evaluations after Progress failed", calls-atStop)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	f := func(x, grad []float64) (float64, error) { calls++; return rosenbrock(x, grad) }
	if res, err := Minimize(ctx, f, []float64{-1.2, 1}, Settings{}); !errors.Is(err, context.Canceled) || res != nil || calls != 0 {
		t.Errorf("cancelled before the start: %v, %v after %d evaluations", res, err, calls)
	}
	// Cancelled during the run (by the fifth evaluation): no evaluation after it.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	calls = 0
	g := func(x, grad []float64) (float64, error) {
		calls++
		if calls == 5 {
			cancel()
		}
		return rosenbrock(x, grad)
	}
	if res, err := Minimize(ctx, g, []float64{-1.2, 1}, Settings{}); !errors.Is(err, context.Canceled) || res != nil || calls != 5 {
		t.Errorf("cancelled during the run: %v, %v after %d evaluations", res, err, calls)
	}
}
