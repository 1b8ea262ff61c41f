package count

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAccAgainstBig checks the counts' 64-bit fast path against big.Int on
// random products, sums and shifts that cross 2^64, and that a num handed
// out is never modified by later arithmetic.
func TestAccAgainstBig(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	operand := func() (num, *big.Int) {
		var b *big.Int
		switch r.IntN(4) {
		case 0:
			b = new(big.Int).SetUint64(uint64(r.IntN(4)))
		case 1:
			b = new(big.Int).SetUint64(r.Uint64() >> r.IntN(64))
		case 2:
			b = new(big.Int).SetUint64(^uint64(0) - uint64(r.IntN(3)))
		default:
			b = new(big.Int).Lsh(new(big.Int).SetUint64(r.Uint64()|1), uint(r.IntN(100)))
		}
		return numOf(b), new(big.Int).Set(b)
	}
	for range 2000 {
		var a acc
		a.small = 1
		want := big.NewInt(1)
		var handed []num
		var handedWant []*big.Int
		for range 1 + r.IntN(12) {
			switch r.IntN(3) {
			case 0:
				n, b := operand()
				a.mul(n)
				want.Mul(want, b)
				handed, handedWant = append(handed, n), append(handedWant, b)
			case 1:
				n, b := operand()
				a.add(n)
				want.Add(want, b)
				handed, handedWant = append(handed, n), append(handedWant, b)
			default:
				s := r.IntN(70)
				a.shl(s)
				want.Lsh(want, uint(s))
			}
			if got := a.toBig(); got.Cmp(want) != 0 {
				t.Fatalf("count %v, want %v", got, want)
			}
			if a.big != nil && a.big.IsUint64() && a.big.Uint64() == 0 {
				t.Fatal("a big count of zero")
			}
			if a.isZero() != (want.Sign() == 0) {
				t.Fatalf("isZero %v for %v", a.isZero(), want)
			}
		}
		for i, n := range handed {
			if n.toBig().Cmp(handedWant[i]) != 0 {
				t.Fatalf("operand %d changed to %v, was %v", i, n.toBig(), handedWant[i])
			}
		}
	}
}

// TestNthSmallest checks the quickselect of the failed-literal threshold
// against sorting, on arrays with many ties.
func TestNthSmallest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		n := 1 + r.IntN(200)
		a := make([]float64, n)
		span := 1 + r.IntN(n+5)
		for j := range a {
			a[j] = float64(r.IntN(span)) * 0.5
		}
		s := slices.Clone(a)
		slices.Sort(s)
		i := r.IntN(n)
		if got := nthSmallest(a, i); got != s[i] {
			t.Fatalf("nthSmallest(%v, %d) = %v, sorted %v", s, i, got, s[i])
		}
	}
}
