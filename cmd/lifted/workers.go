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

// The default is 1: the map/reduce rounds re-sign every node each round,
// while the single-core colour passing re-signs only the nodes next to a
// change, and on the grids of experiments/mapreduce the all-cores path was
// 2.6–21× slower on this project's 2-core machines. --workers 0 means one
// worker per core (GOMAXPROCS).
func (w *workersFlag) register(fl *pflag.FlagSet) {
	fl.IntVar(&w.n, "workers", 1, "colour passing as map/reduce on this many cores, 0 = one per core (the result does not depend on it; 1, the incremental single-core colour passing, is fastest on the models measured)")
}

// refiner returns the colour-passing refiner for the flag: nil (the
// incremental single-core lift.ColourPassing) for one worker (or the zero
// value, when the flag was never registered).
func (w *workersFlag) refiner() (lift.Refiner, error) {
	switch {
	case w.n < 0:
		return nil, usageError{fmt.Errorf("--workers must be at least 0, got %d", w.n)}
	case w.n == 0 && runtime.GOMAXPROCS(0) > 1:
		return lift.Parallel{Workers: runtime.GOMAXPROCS(0)}, nil
	case w.n <= 1:
		return nil, nil
	}
	return lift.Parallel{Workers: w.n}, nil
}
