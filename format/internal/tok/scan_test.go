package tok

import (
	"errors"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestParseFloatMatchesStrconv(t *testing.T) {
	fixed := []string{"0", "-0", "+0", "1", "0.1", ".5", "5.", "1e5", "1E-5", "1e+22", "1e23", "1e-22",
		"123456789012345", "1234567890123456", "0.000000000000000000000001", "9.974182", "1.000000",
		"3.59545e-05", "1e400", "1e-400", "-1e-400", "007", "0.0", "1e0001", "4.9e-324", "1.7976931348623157e308"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		var b []byte
		if rng.IntN(4) == 0 {
			b = append(b, '-')
		}
		b = strconv.AppendUint(b, rng.Uint64N(1<<uint(rng.IntN(60)+1)), 10)
		if rng.IntN(2) == 0 {
			p := rng.IntN(len(b) + 1)
			b = append(b[:p], append([]byte{'.'}, b[p:]...)...)
		}
		if rng.IntN(3) == 0 {
			b = append(b, 'e')
			b = strconv.AppendInt(b, int64(rng.IntN(70)-35), 10)
		}
		fixed = append(fixed, string(b))
	}
	for _, s := range fixed {
		want, err := strconv.ParseFloat(s, 64)
		got, ok := ParseFloat([]byte(s))
		if (err == nil || errors.Is(err, strconv.ErrRange)) != ok {
			t.Errorf("%q: ok=%v, strconv error %v", s, ok, err)
			continue
		}
		if ok && math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("%q: got %v (%x), strconv %v (%x)", s, got, math.Float64bits(got), want, math.Float64bits(want))
		}
	}
}

func TestParseFloatRejects(t *testing.T) {
	for _, s := range []string{"", ".", "-", "+", "e5", "1e", "1e+", "1.2.3", "inf", "-Inf", "nan", "0x1p3", "1_000", "1,5", "--1", "1e5.5"} {
		if v, ok := ParseFloat([]byte(s)); ok {
			t.Errorf("%q parsed as %v", s, v)
		}
	}
}

func TestParseInt(t *testing.T) {
	for _, tt := range []struct {
		s  string
		v  int64
		ok bool
	}{
		{"0", 0, true}, {"-0", 0, true}, {"+7", 7, true}, {"123", 123, true},
		{"9223372036854775807", math.MaxInt64, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false}, {"18446744073709551616", 0, false},
		{"", 0, false}, {"-", 0, false}, {"1.0", 0, false}, {"1e3", 0, false}, {"0x10", 0, false},
	} {
		v, ok := ParseInt([]byte(tt.s))
		if v != tt.v || ok != tt.ok {
			t.Errorf("%q: %d, %v; want %d, %v", tt.s, v, ok, tt.v, tt.ok)
		}
	}
}

func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"0.1", "-1e-5", "1234567890123456789", "1e23", ".e1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseFloat([]byte(s))
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			t.Fatalf("%q accepted as %v; strconv says %v", s, got, err)
		}
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%q: got %v, strconv %v", s, got, want)
		}
	})
}
