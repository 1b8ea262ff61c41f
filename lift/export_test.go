package lift

// SetMinChunk sets the fewest dirty nodes per goroutine of the map step
// (so that tests run the goroutine path on small graphs) and returns a
// function that restores it.
func SetMinChunk(n int) (restore func()) {
	old := minChunk
	minChunk = n
	return func() { minChunk = old }
}
