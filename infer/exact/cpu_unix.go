//go:build unix

package exact

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user + system) the process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return time.Since(processStart)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
