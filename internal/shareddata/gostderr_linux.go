//go:build linux

package shareddata

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// goStderr is the go command's stderr: the same open file (pidfd_getfd),
// else a terminal or pipe reopened through /proc (a regular file reopened
// there would have its own offset, and the go command's writes would
// overwrite the line), else nil.
func goStderr(pid int) *os.File {
	if pfd, err := unix.PidfdOpen(pid, 0); err == nil {
		fd, err := unix.PidfdGetfd(pfd, 2, 0)
		unix.Close(pfd)
		if err == nil {
			return os.NewFile(uintptr(fd), "go's stderr")
		}
	}
	f, err := os.OpenFile("/proc/"+strconv.Itoa(pid)+"/fd/2", os.O_WRONLY, 0)
	if err != nil {
		return nil
	}
	fi, err := f.Stat()
	if err != nil || fi.Mode()&(os.ModeCharDevice|os.ModeNamedPipe) == 0 {
		f.Close()
		return nil
	}
	return f
}
