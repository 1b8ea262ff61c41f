package lift

import (
	"syscall"
	"unsafe"
)

// adviseHuge asks the kernel to back the whole 4 KiB pages of the size
// bytes at p with huge pages (madvise MADV_HUGEPAGE, before they are
// first touched). Errors are ignored: it is advice.
func adviseHuge(p unsafe.Pointer, size uintptr) {
	const madvHugepage = 14
	lo := (uintptr(p) + 4095) &^ 4095
	hi := (uintptr(p) + size) &^ 4095
	if hi > lo {
		syscall.Syscall(syscall.SYS_MADVISE, lo, hi-lo, madvHugepage)
	}
}
