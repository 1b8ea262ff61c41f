package lift

import (
	"os"
	"unsafe"
)

// Colour passing reads the colours and edges of the nodes next to a change,
// which on a large graph lie far apart: on an n×n grid, the nodes of a
// round's frontier are a row apart, so every one of them costs a TLB miss
// per array with 4 KiB pages once the arrays outgrow the TLB's reach (a few
// MiB). The arrays it reads in every round are therefore allocated by
// largeSlice, which asks the kernel (Linux: madvise MADV_HUGEPAGE, honoured
// when transparent huge pages are "always" or "madvise") to back them with
// 2 MiB pages; the graph's own edge arrays are copied into such arrays
// (largeClone). This costs no time on small graphs (nothing under
// hugeMin bytes is advised or copied) and, on a 1826×1826 grid (10^7
// factors), saves about a quarter of colour passing's CPU time
// (experiments/colourpassing/RESULTS.md). LIFTED_HUGEPAGES=0 in the
// environment turns it off (the arrays are then those of make, and the
// graph's arrays are shared).

// hugeMin is the smallest array given huge pages: two of them.
const hugeMin = 4 << 20

// hugeOff reports whether LIFTED_HUGEPAGES=0 turns huge pages off.
func hugeOff() bool { return os.Getenv("LIFTED_HUGEPAGES") == "0" }

// largeSlice returns make([]T, n), advised to be backed by huge pages when
// it spans at least hugeMin bytes.
func largeSlice[T any](n int) []T {
	s := make([]T, n)
	var z T
	if size := uintptr(n) * unsafe.Sizeof(z); size >= hugeMin && !hugeOff() {
		adviseHuge(unsafe.Pointer(unsafe.SliceData(s)), size)
	}
	return s
}

// largeClone returns a copy of s in an array from largeSlice when s spans
// at least hugeMin bytes (copied on up to workers goroutines), and s itself
// otherwise (the caller only reads it).
func largeClone[T any](s []T, workers int) []T {
	var z T
	if uintptr(len(s))*unsafe.Sizeof(z) < hugeMin || hugeOff() {
		return s
	}
	c := largeSlice[T](len(s))
	parRange(workers, len(s), func(lo, hi int) { copy(c[lo:hi], s[lo:hi]) })
	return c
}
