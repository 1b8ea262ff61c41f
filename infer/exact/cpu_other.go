//go:build !unix

package exact

import "time"

// processCPU is, where the CPU time is not available, the wall time since
// the package was loaded.
func processCPU() time.Duration { return time.Since(processStart) }
