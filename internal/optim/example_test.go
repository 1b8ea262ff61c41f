package optim_test

import (
	"context"
	"fmt"

	"github.com/lifted-dev/lifted/internal/optim"
)

// Minimise (x − 3)² + 10 (y + 1)², whose minimiser is (3, −1).
func ExampleMinimize() {
	f := func(x, grad []float64) (float64, error) {
		dx, dy := x[0]-3, x[1]+1
		grad[0], grad[1] = 2*dx, 20*dy
		return dx*dx + 10*dy*dy, nil
	}
	res, err := optim.Minimize(context.Background(), f, []float64{0, 0}, optim.Settings{GradTol: 1e-10, MaxIter: 100})
	if err != nil {
		panic(err)
	}
	fmt.Printf("x = (%.6f, %.6f), f < 1e-12: %v, converged: %v\n", res.X[0], res.X[1], res.F < 1e-12, res.Converged)
	fmt.Println(res.Reason())
	// Output:
	// x = (3.000000, -1.000000), f < 1e-12: true, converged: true
	// converged: gradient max-norm 5.4e-12 below the tolerance 1e-10
}
