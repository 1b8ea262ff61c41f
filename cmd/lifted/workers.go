package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/lift"
)

// workersFlag is --workers of infer, map and compress: colour passing as
// map/reduce on that many cores (lift.Parallel). The result does not depend
// on it: the partition and class ids are those of one worker.
type workersFlag struct{ n int }

func (w *workersFlag) register(fl *pflag.FlagSet) {
	fl.IntVar(&w.n, "workers", runtime.GOMAXPROCS(0), "colour passing on this many cores (map/reduce over parts of the graph; the result does not depend on it)")
}

// refiner returns the colour-passing refiner for the flag: nil (the
// incremental single-core lift.ColourPassing) for one worker (or the zero
// value, when the flag was never registered).
func (w *workersFlag) refiner() (lift.Refiner, error) {
	switch {
	case w.n < 0:
		return nil, usageError{fmt.Errorf("--workers must be at least 1, got %d", w.n)}
	case w.n <= 1:
		return nil, nil
	}
	return lift.Parallel{Workers: w.n}, nil
}
