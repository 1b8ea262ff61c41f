//go:build !unix

package benchstat

import "math"

// CPUSeconds is the CPU time of the process; NaN: not read on this system.
func CPUSeconds() float64 { return math.NaN() }
