package lift

import "github.com/lifted-dev/lifted/fg"

// CanonicalOrder returns the order of t's positions that makes the table
// smallest (order[q] is the position of t placed at canonical position q) and
// the canonical table's key: two tables that differ only by the order of their
// positions get the same key. It is the order colour passing compares factors
// in; package lift/orbit colours factor nodes with it. Tables too large for the
// search (k!·|table| above 2^20) keep their own order.
func CanonicalOrder(t *fg.Table) (order []int32, key string) { return canonicalOrder(t) }

// SwapBlocks groups the positions of t that the table cannot tell apart:
// block[p] is the smallest position q such that swapping p and q leaves every
// entry unchanged (p itself if none). Every permutation within a block is a
// symmetry of the table.
func SwapBlocks(t *fg.Table) []int32 { return swapBlocks(t) }
