package format

// SaveRegistry returns a function that restores the table of formats as it
// is now, so that a test may Register formats without affecting others.
func SaveRegistry() (restore func()) {
	formats.mu.Lock()
	saved := append([]Format(nil), formats.formats...)
	formats.mu.Unlock()
	return func() {
		formats.mu.Lock()
		formats.formats = saved
		formats.mu.Unlock()
	}
}
