package maplp

import (
	"context"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/internal/gen"
)

// TestPDLPScale (MAPLP_SCALE=n) solves the ground LOCAL LP of an n×n grid
// with PDLP and reports its size and time.
func TestPDLPScale(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("MAPLP_SCALE"))
	if n == 0 {
		t.Skip("set MAPLP_SCALE=n to time PDLP on an n×n grid")
	}
	g := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), n)
	part, _ := None{}.Group(ctx, g, nil)
	m, _ := buildLocal(context.Background(), g, nil, part)
	start := time.Now()
	sol, err := PDLP{}.Solve(ctx, m.lp)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d LP variables, %d rows: %v in %d iterations, %v, value %.10g, violation %g", m.lp.NumCols(), m.lp.NumRows(), sol.Status, sol.Iterations, time.Since(start), sol.Value, m.lp.Violation(sol.X))
}
