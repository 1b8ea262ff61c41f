package cnf_test

import (
	"github.com/lifted-dev/lifted/internal/shareddata"
	"os"
	"path/filepath"
	"testing"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/format/dimacs"
)

var sharedDir = shareddata.Path("cnf")

func maxLen(c *cnf.CNF) int {
	n := 0
	for _, cl := range c.Clauses {
		n = max(n, len(cl))
	}
	return n
}

// TestToGraphShared converts the shared benchmark formulas and recognises
// every clause factor again.
func TestToGraphShared(t *testing.T) {
	var files []string
	for _, pat := range []string{"*.cnf", "generated/*.cnf"} {
		m, err := filepath.Glob(filepath.Join(sharedDir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		shareddata.Skipf(t, "no shared CNF files in %s (directory absent); skipping", sharedDir)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			c, err := dimacs.Read(f, path)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if testing.Short() && maxLen(c) > 16 {
				return // lang12's 2^24-entry table takes seconds
			}
			g, err := cnf.ToGraph(c)
			if err != nil {
				t.Fatal(err)
			}
			if g.NumVars() != c.NumVars {
				t.Errorf("graph has %d variables, formula %d", g.NumVars(), c.NumVars)
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			cnf.CheckSigns(t, c, g)
		})
	}
}
