package lift_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

func TestZZTiming(t *testing.T) {
	sz := os.Getenv("ZZ_SIZES")
	if sz == "" {
		t.Skip()
	}
	for _, s := range strings.Split(sz, ",") {
		n, _ := strconv.Atoi(s)
		g := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), n)
		var a, b []float64
		for range 3 {
			for k, rf := range []lift.Refiner{lift.ColourPassing{}, lift.Parallel{}} {
				runtime.GC()
				t0 := time.Now()
				if _, err := rf.Refine(context.Background(), g, nil, lift.Options{}); err != nil {
					t.Fatal(err)
				}
				d := time.Since(t0).Seconds()
				if k == 0 {
					a = append(a, d)
				} else {
					b = append(b, d)
				}
			}
		}
		slices.Sort(a)
		slices.Sort(b)
		fmt.Printf("%d: single %.4g all %.4g ratio %.3f\n", n, a[1], b[1], a[1]/b[1])
	}
}
