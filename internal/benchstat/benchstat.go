// Package benchstat holds the small statistics that the measuring programs
// under experiments/ share.
package benchstat

import (
	"math"
	"slices"
)

// Median is the median of x (the mean of the two middle values when their
// number is even), NaN when x is empty. x is not changed.
func Median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
