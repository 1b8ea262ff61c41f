package count

import (
	"math/big"
	"math/bits"
)

// num is a model count of the search: held in small while it fits in 64
// bits, else in big (never zero then). A num's big is read-only once the
// num has been returned or cached; acc builds new ones.
type num struct {
	small uint64
	big   *big.Int
}

func numOf(n *big.Int) num {
	if n.IsUint64() {
		return num{small: n.Uint64()}
	}
	return num{big: n}
}

func (n num) isZero() bool { return n.big == nil && n.small == 0 }

// toBig returns n as a big.Int the caller may modify.
func (n num) toBig() *big.Int {
	if n.big != nil {
		return new(big.Int).Set(n.big)
	}
	return new(big.Int).SetUint64(n.small)
}

// acc accumulates a count: products and sums of nums, without allocation
// while the count fits in 64 bits. Its big, once allocated, is its own.
type acc struct {
	num
	tmp big.Int // scratch for a small operand
}

// promote moves the count to a big.Int of its own.
func (a *acc) promote() {
	if a.big == nil {
		a.big = new(big.Int).SetUint64(a.small)
	}
}

func (a *acc) operand(n num) *big.Int {
	if n.big != nil {
		return n.big
	}
	return a.tmp.SetUint64(n.small)
}

// mul multiplies the count by n.
func (a *acc) mul(n num) {
	if n.isZero() || a.isZero() {
		a.small, a.big = 0, nil // a big count is never zero
		return
	}
	if a.big == nil && n.big == nil {
		hi, lo := bits.Mul64(a.small, n.small)
		if hi == 0 {
			a.small = lo
			return
		}
	}
	a.promote()
	a.big.Mul(a.big, a.operand(n))
}

// add adds n to the count.
func (a *acc) add(n num) {
	if a.big == nil && n.big == nil {
		sum, carry := bits.Add64(a.small, n.small, 0)
		if carry == 0 {
			a.small = sum
			return
		}
	}
	a.promote()
	a.big.Add(a.big, a.operand(n))
}

// shl multiplies the count by 2^s.
func (a *acc) shl(s int) {
	if a.isZero() {
		return
	}
	if a.big == nil && s < 64 && bits.LeadingZeros64(a.small) >= s {
		a.small <<= uint(s)
		return
	}
	a.promote()
	a.big.Lsh(a.big, uint(s))
}
