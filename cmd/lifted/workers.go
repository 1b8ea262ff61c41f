package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/lift"
)

// workersFlag is --workers of infer, map and compress: colour passing with
// its map step on that many cores (lift.Parallel). The result does not
// depend on it: the partition, rounds and class ids are those of one worker.
type workersFlag struct{ n int }

// The default is 0, one worker per core (GOMAXPROCS): lift.Parallel is the
// incremental refinement of the single-core colour passing with the
// signing of large steps spread over the cores, never slower than one
// worker on the grids of experiments/mapreduce.
func (w *workersFlag) register(fl *pflag.FlagSet) {
	fl.IntVar(&w.n, "workers", 0, "colour passing on this many cores; the default 0 = one per core (the result does not depend on it; 1 = the single-core colour passing)")
}

// refiner returns the colour-passing refiner for the flag: nil (the
// incremental single-core lift.ColourPassing) for one worker (or the zero
// value, when the flag was never registered, or one core).
func (w *workersFlag) refiner() (lift.Refiner, error) {
	n := w.n
	if n == 0 {
		n = runtime.GOMAXPROCS(0)
	}
	switch {
	case w.n < 0:
		return nil, usageError{fmt.Errorf("--workers must be at least 0, got %d", w.n)}
	case n <= 1:
		return nil, nil
	}
	return lift.Parallel{Workers: n}, nil
}
