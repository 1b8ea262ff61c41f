package libdai

import (
	"bytes"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// sharedDir holds the libDAI examples shared by the project.
var sharedDir = shareddata.Path("fg")

// sharedFile returns the path of a shared file, skipping the test when the
// shared directory is absent.
func sharedFile(t *testing.T, name string) string {
	t.Helper()
	if _, err := os.Stat(sharedDir); err != nil {
		shareddata.Skipf(t, "shared libDAI data not found at %s (%v); only the testdata/ fixtures are tested", sharedDir, err)
	}
	return filepath.Join(sharedDir, name)
}

// announced returns the factor count and the set of labels of a file, read
// independently of Read: the first number, and the label line of each block.
func announced(t *testing.T, data []byte) (int, []int64) {
	t.Helper()
	var toks [][]byte
	for _, line := range bytes.Split(data, []byte("\n")) {
		if f := bytes.Fields(line); len(f) > 0 && f[0][0] != '#' {
			toks = append(toks, f...)
		}
	}
	num := func(i int) int {
		n, err := strconv.Atoi(string(toks[i]))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	nf := num(0)
	var labels []int64
	i := 1
	for range nf {
		k := num(i)
		for p := range k {
			labels = append(labels, int64(num(i+1+p)))
		}
		i += 1 + 2*k
		i += 1 + 2*num(i)
	}
	slices.Sort(labels)
	return nf, slices.Compact(labels)
}

func TestSharedFiles(t *testing.T) {
	sharedFile(t, "")
	files, err := filepath.Glob(filepath.Join(sharedDir, "*.fg"))
	if err != nil || len(files) == 0 {
		shareddata.Skipf(t, "no .fg files in %s (%v)", sharedDir, err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Read(bytes.NewReader(data), file)
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Graph.Validate(); err != nil {
				t.Fatal(err)
			}
			nf, labels := announced(t, data)
			if m.Graph.NumFactors() != nf {
				t.Errorf("%d factors, file says %d", m.Graph.NumFactors(), nf)
			}
			if !slices.Equal(m.Labels, labels) {
				t.Errorf("labels %v, file has %v", m.Labels, labels)
			}
			roundTrip(t, m)
		})
	}
}

// roundTrip writes m and reads it back.
func roundTrip(t *testing.T, m *Model) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
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
}
