package mlnfile

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/mln"
)

// Issue 39's probe: a model naming 2^24 constants (173 MB, within the
// input limit) took more than 5 GB before its first formula, most of it
// in the dialect prescan's slice of every token (72 bytes per token, two
// tokens per constant, doubled by append); lifted wfomc died under an
// 8 GB address-space cap. Parsing a model of 2^16 constants allocated 121
// bytes per byte of it in all; now 22 (the prescan keeps three tokens).
func TestManyConstantsMemory(t *testing.T) {
	var b strings.Builder
	b.WriteString("person = {")
	for i := range 1 << 16 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nSmokes(person)\n1.5 Smokes(x)\n")
	src := []byte(b.String())
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := Parse("many.mln", src)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(mln.Domains(m)["person"]); n != 1<<16 {
		t.Fatalf("%d constants, want %d", n, 1<<16)
	}
	per := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(src))
	t.Logf("%d bytes of model: %.1f bytes allocated per byte", len(src), per)
	if per > 40 {
		t.Errorf("parsing allocated %.1f bytes per byte of the model (22 with the prescan's three tokens, 121 with its slice of them all)", per)
	}
}
