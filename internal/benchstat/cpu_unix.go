//go:build unix

package benchstat

import (
	"math"
	"syscall"
)

// CPUSeconds is the user and system CPU time of the process so far (all
// threads), NaN where it cannot be read.
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
