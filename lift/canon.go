package lift

import (
	"encoding/binary"
	"math"

	"github.com/lifted-dev/lifted/fg"
)

// maxCanonWork bounds k!·|table| for the search of a table's canonical
// position order; larger tables keep their own order.
const maxCanonWork = 1 << 20

// canonicalOrder returns the order of t's positions that makes the table
// smallest: order[q] is the position of t placed at canonical position q, and
// key is the canonical table's bytes (dimensions, then entries as bits, last
// canonical position fastest).
//
// Two factors whose tables differ only by the order of their positions — a
// table and its transpose, as libDAI's .fg conversion produces when it sorts
// each factor's variables by label — then start with the same colour and
// compare their variables position by canonical position, so colour passing
// groups them as it would had they been written in the same order. The order
// is a function of the table alone, so factors written in the same order are
// compared exactly as before. Among equally small orders the first in
// lexicographic order wins, the identity first of all: those are symmetries
// of the table, and any one is correct.
func canonicalOrder(t *fg.Table) (order []int32, key string) {
	k := len(t.Dims)
	order = make([]int32, k)
	for i := range order {
		order[i] = int32(i)
	}
	best := permutedKey(nil, t, order)
	work := len(t.Values)
	for i := 2; i <= k && work <= maxCanonWork; i++ {
		work *= i
	}
	if work > maxCanonWork {
		return order, string(best)
	}
	perm := append([]int32(nil), order...)
	var cand []byte
	for nextPermutation(perm) {
		cand = permutedKey(cand[:0], t, perm)
		if string(cand) < string(best) {
			best = append(best[:0], cand...)
			copy(order, perm)
		}
	}
	return order, string(best)
}

// permutedKey appends the bytes of t with its positions reordered by order.
// Dimensions come first and compare as big-endian numbers, so tables with
// different shapes never tie.
func permutedKey(buf []byte, t *fg.Table, order []int32) []byte {
	k := len(order)
	for _, p := range order {
		buf = binary.BigEndian.AppendUint32(buf, uint32(t.Dims[p]))
	}
	if k == 0 {
		for _, x := range t.Values {
			buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(x))
		}
		return buf
	}
	// A mixed-radix counter over the canonical positions that tracks the
	// index into t.Values through t's own strides.
	stride := t.Strides()
	digit := make([]int32, k)
	idx := 0
	for range t.Values {
		buf = binary.BigEndian.AppendUint64(buf, math.Float64bits(t.Values[idx]))
		for q := k - 1; q >= 0; q-- {
			p := order[q]
			digit[q]++
			idx += stride[p]
			if digit[q] < t.Dims[p] {
				break
			}
			idx -= int(digit[q]) * stride[p]
			digit[q] = 0
		}
	}
	return buf
}

// swapBlocks groups positions that the table cannot tell apart: p and q are
// in one block when swapping them leaves every entry unchanged. Swaps that
// are symmetries generate every permutation within each block (if (p q) and
// (q r) are, so is (p r)), so a factor's message to a variable depends only
// on the multiset of its neighbours' messages within a block, and colour
// passing may compare a block's variable colours as a sorted list, as
// Symmetric mode does for a whole symmetric table. block[p] is the smallest
// position of p's block.
func swapBlocks(t *fg.Table) []int32 {
	k := len(t.Dims)
	block := make([]int32, k)
	for i := range block {
		block[i] = int32(i)
	}
	if k < 2 || len(t.Values) > maxCanonWork {
		return block
	}
	stride := t.Strides()
	for q := 1; q < k; q++ {
		for p := 0; p < q; p++ {
			if block[p] != int32(p) || t.Dims[p] != t.Dims[q] || !swapInvariant(t, stride, p, q) {
				continue
			}
			block[q] = int32(p)
			break
		}
	}
	return block
}

// IsSymmetric reports whether t is invariant under every permutation of its
// positions (tables of more than 2^20 entries are reported as not
// symmetric): the tables Options.Symmetric may declare.
func IsSymmetric(t *fg.Table) bool {
	for _, b := range swapBlocks(t) {
		if b != 0 {
			return false
		}
	}
	return true
}

// swapInvariant reports whether exchanging positions p and q leaves t's
// entries unchanged (bit for bit, as table identity is decided).
func swapInvariant(t *fg.Table, stride []int, p, q int) bool {
	d := int(t.Dims[p])
	for i := range t.Values {
		a, b := i/stride[p]%d, i/stride[q]%d
		if a >= b {
			continue
		}
		j := i + (b-a)*stride[p] - (b-a)*stride[q]
		if math.Float64bits(t.Values[i]) != math.Float64bits(t.Values[j]) {
			return false
		}
	}
	return true
}

// nextPermutation advances p to the next permutation in lexicographic order
// and reports false after the last one.
func nextPermutation(p []int32) bool {
	i := len(p) - 2
	for i >= 0 && p[i] >= p[i+1] {
		i--
	}
	if i < 0 {
		return false
	}
	j := len(p) - 1
	for p[j] <= p[i] {
		j--
	}
	p[i], p[j] = p[j], p[i]
	for l, r := i+1, len(p)-1; l < r; l, r = l+1, r-1 {
		p[l], p[r] = p[r], p[l]
	}
	return true
}
