package count

import (
	"context"
	"testing"

	"github.com/lifted-dev/lifted/cnf"
)

// cnfFromBytes decodes fuzz input into a formula over at most 12
// variables: the first byte gives the number of variables, then each byte
// is a literal (low bits: variable, bit 4: sign) and 0x80 ends a clause.
func cnfFromBytes(data []byte) *cnf.CNF {
	if len(data) == 0 {
		return &cnf.CNF{}
	}
	c := &cnf.CNF{NumVars: 1 + int(data[0])%12}
	var cl []int32
	for _, b := range data[1:] {
		if b&0x80 != 0 {
			c.Clauses = append(c.Clauses, cl)
			cl = nil
			continue
		}
		v := 1 + int32(b&0x0f)%int32(c.NumVars)
		if b&0x10 != 0 {
			v = -v
		}
		cl = append(cl, v)
	}
	if cl != nil {
		c.Clauses = append(c.Clauses, cl)
	}
	return c
}

func FuzzExact(f *testing.F) {
	f.Add([]byte{3, 0, 1, 0x80, 0x11, 0x12, 0x80, 2})
	f.Add([]byte{11, 0, 0x11, 0x80, 5, 6, 7, 0x80, 0x15, 0x16, 0x80, 0x80})
	f.Add([]byte{7, 1, 2, 3, 0x80, 0x11, 0x12, 0x80, 0x13, 4, 0x80, 0x14, 5, 6, 0x80})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := cnfFromBytes(data)
		want := bruteForce(c)
		for _, opts := range []Options{{}, {NoSATCheck: true, MaxCacheBytes: 1}} {
			got, _, err := ExactWithOptions(context.Background(), c, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !got.IsInt64() || got.Int64() != want {
				t.Fatalf("%+v: Exact = %v, brute force %d for %v", opts, got, want, c.Clauses)
			}
		}
	})
}
