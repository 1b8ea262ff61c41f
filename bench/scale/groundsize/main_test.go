package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// A grounding with more ground atoms than the limit is refused before the
// prediction allocates its atom tables (9e6 atoms: about 150 MB of
// tables, 2.5 GB at UW-CSE k = 100 before the fix), with the size; one
// under the limit is predicted and grounded.
func TestPredictsBeforeAllocating(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("person = {")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nFriends(person, person)\nSmokes(person)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	mlnPath, dbPath := filepath.Join(dir, "m.mln"), filepath.Join(dir, "e.db")
	os.WriteFile(mlnPath, []byte(b.String()), 0o644)
	os.WriteFile(dbPath, []byte("Smokes(P0)\n"), 0o644)
	var out, errb bytes.Buffer
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	code := run([]string{"-mln", mlnPath, "-db", dbPath, "-q", "Friends", "-max-ground", "100000"}, &out, &errb)
	runtime.ReadMemStats(&m1)
	if code != 1 || !strings.Contains(errb.String(), "9e+06 ground atoms") || !strings.Contains(errb.String(), "raise --max-ground") || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if a := m1.TotalAlloc - m0.TotalAlloc; a > 20<<20 {
		t.Errorf("refused after allocating %d MB", a>>20)
	}
	out.Reset()
	errb.Reset()
	os.WriteFile(dbPath, []byte("Smokes(A)\n"), 0o644)
	os.WriteFile(mlnPath, []byte("person = {A, B, C}\nFriends(person, person)\nSmokes(person)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"), 0o644)
	if code := run([]string{"-mln", mlnPath, "-db", dbPath, "-q", "Friends,Smokes", "-max-ground", "100"}, &out, &errb); code != 0 ||
		!strings.Contains(out.String(), "predicted formulas 9 ") || !strings.Contains(out.String(), "formulas 4 factors 4") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}
