package libdai

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/pos"
)

func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"1\n\n2\n0 1\n2 2\n4\n0 0.5\n1 0.7\n2 0.7\n3 3.4\n",
		"# c\n2\n1\n5\n3\n1\n2 1\n\n2\n5 9\n3 2\n2\n0 1\n5 2\n",
		"1\n0\n\n\n1\n0 2\n",
		"0",
		"1\n2\n4 4\n2 2\n0\n",
		"2\n1\n4\n2\n0\n\n1\n4\n3\n0\n",
		"1\n1\n0\n2\n1\n0 -1\n",
		"1\n1\n0\n2\n2\n1 1\n1 2\n",
		"1\n2\n0 1\n65536 65536\n0\n",
		"1 1 0 2 1 0 -0",
		"",
	} {
		f.Add([]byte(s))
	}
	for _, path := range []string{"testdata/small.fg"} {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	// A few bytes could otherwise ask for tables of gigabytes.
	oldTable, oldTotal := tableLimit, totalLimit
	f.Cleanup(func() { tableLimit, totalLimit = oldTable, oldTotal })
	tableLimit, totalLimit = 1<<16, 1<<20
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(bytes.NewReader(data), "fuzz.fg")
		if err != nil {
			if _, ok := err.(*pos.Error); !ok {
				t.Fatalf("error %v is a %T, not a *pos.Error", err, err)
			}
			if m != nil {
				t.Fatal("model returned with an error")
			}
			return
		}
		if err := m.Graph.Validate(); err != nil {
			t.Fatalf("read an invalid graph: %v", err)
		}
		if len(m.Labels) != m.Graph.NumVars() || !slices.IsSorted(m.Labels) {
			t.Fatalf("labels %v for %d variables", m.Labels, m.Graph.NumVars())
		}
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			t.Fatalf("Write: %v", err)
		}
		m2, err := Read(&buf, "rewritten.fg")
		if err != nil {
			t.Fatalf("reading what Write wrote: %v", err)
		}
		if !slices.Equal(m.Labels, m2.Labels) {
			t.Fatalf("labels %v became %v", m.Labels, m2.Labels)
		}
		if err := fg.Diff(m.Graph, m2.Graph); err != nil {
			t.Fatalf("round trip: %v", err)
		}
	})
}
