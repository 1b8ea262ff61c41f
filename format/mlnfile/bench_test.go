package mlnfile

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/pos"
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

// TestParseLongStatements parses declarations far longer than the token
// window (trimAt), split over lines, with a duplicate, a lowercase
// constant and a formula error after them, and checks the constants and
// the error positions against what the source spells out.
func TestParseLongStatements(t *testing.T) {
	const n = 5*trimAt + 17
	var b strings.Builder
	var want []string
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
			if i%100 == 0 {
				b.WriteString("\n  ")
			} else {
				b.WriteString(" ")
			}
		}
		c := "P" + strconv.Itoa(i)
		b.WriteString(c)
		want = append(want, c)
	}
	b.WriteString(", P7, lower}\n") // a duplicate (kept once) and an error
	lines := 1 + (n-1)/100
	b.WriteString("Smokes(person)\nSmokes(x) v ) Smokes(y)\nthing = {T0, T1}\n")
	_, err := Parse("long.mln", []byte(b.String()))
	var el pos.ErrorList
	if !errors.As(err, &el) || len(el) != 2 {
		t.Fatalf("want 2 errors, got %v", err)
	}
	lastLine := "  P" + strconv.Itoa(100*((n-1)/100))
	for i := 100*((n-1)/100) + 1; i < n; i++ {
		lastLine += ", P" + strconv.Itoa(i)
	}
	lastLine += ", P7, "
	if p := el[0].Pos; p.Line != lines || p.Col != len(lastLine)+1 || !strings.Contains(el[0].Msg, `"lower"`) {
		t.Errorf("first error %v: %s, want %d:%d", p, el[0].Msg, lines, len(lastLine)+1)
	}
	if p := el[1].Pos; p.Line != lines+2 || p.Col != 13 {
		t.Errorf("second error %v: %s, want %d:13", p, el[1].Msg, lines+2)
	}
	m, _ := Parse("long.mln", []byte(strings.Replace(b.String(), ", lower}", "}", 1)))
	if got := m.Type("person").Constants; !slices.Equal(got, want) {
		t.Errorf("%d constants, want %d", len(got), len(want))
	}
	if got := m.Type("thing").Constants; !slices.Equal(got, []string{"T0", "T1"}) {
		t.Errorf("thing = %v", got)
	}
}
