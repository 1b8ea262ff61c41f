package mlnfile

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"
)

// largeDomainModel is friends and smokers with a declared domain of n
// people, P0 … P(n-1), and evidence on 3 of them (issue 14: parsing such a
// declaration dominated `lifted infer` with the first-order construction).
func largeDomainModel(n int) (model, evidence []byte) {
	var b bytes.Buffer
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("P")
		b.WriteString(strconv.Itoa(i))
	}
	b.WriteString("}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n")
	b.WriteString("1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	return b.Bytes(), []byte("Smokes(P0)\n!Smokes(P1)\nSmokes(P2)\n")
}

// BenchmarkParseLargeDomain parses the model and reads its evidence.
func BenchmarkParseLargeDomain(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		model, evidence := largeDomainModel(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(model)))
			for b.Loop() {
				m, err := Parse("s.mln", model)
				if err != nil {
					b.Fatal(err)
				}
				if len(m.Types[0].Constants) != n {
					b.Fatalf("%d constants, want %d", len(m.Types[0].Constants), n)
				}
				if _, err := ReadDB(bytes.NewReader(evidence), "s.db", m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
