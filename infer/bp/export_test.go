package bp

// SequentialRule runs the sequential rule of CheckError (SequentialZ) on
// values drawn by next.
func SequentialRule(n int, global, reject float64, next func() float64) (mean, hi float64, k int, accepted, refused bool) {
	o, _ := sequential(n, global, reject, func() (float64, error) { return next(), nil })
	return o.mean, o.hi, o.k, o.accepted, o.refused
}
