//go:build !linux

package lift

import "unsafe"

// adviseHuge does nothing outside Linux.
func adviseHuge(unsafe.Pointer, uintptr) {}
