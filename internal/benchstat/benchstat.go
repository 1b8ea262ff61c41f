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

// Slope is the least-squares slope of y on x (the exponent of a growth
// when both are logarithms); NaN with fewer than two distinct x.
func Slope(x, y []float64) float64 {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(y))
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	if sxx == 0 {
		return math.NaN()
	}
	return sxy / sxx
}
