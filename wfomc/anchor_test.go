package wfomc

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// TestAnchorWFOMCTool: the models of the WFOMC tool of Wang, Kuželka et
// al. (testdata/anchor, translated; SOURCE.md there) against the log Z that
// tool computed in exact rational arithmetic (its "exp(…)" line, run on
// 2026-12-07 beside the project), to 1e-12 relative.
func TestAnchorWFOMCTool(t *testing.T) {
	for _, c := range []struct {
		model, domain string
		logZ          string // the WFOMC tool's, as printed
	}{
		{"friends-smokes", "person=3", "27.69003974196607385687468777"},
		{"friends-smokes-wfomcs", "person=10", "131.5809695626206681905394757"},
		{"employment", "person=5", "27.23725649026682998357819608"},
		{"2-colored-graph", "v=10", "23.49656509082379182455592630"},
		{"nonisolated-graph", "v=10", "38.11336709204579623031523526"},
		{"existential", "d=7", "67.81861921042027782266417131"},
		{"friends-smokes-evidence", "person=6", "103.7980831030592728744230667"},
		{"employment-evidence", "person=6", "27.03274004183786706727205274"},
		{"2-colored-graph-evidence", "vertex=10", "16.75331536909507088055236502"},
		{"sanity-check", "domain=4", "2.079441541679835928251696364"},
		// C2: counting quantifiers.
		{"deskmate", "student=6", "57.22315265965023266755563856"},
		{"deskmate", "student=12", "240.1858821177042169499826233"},
		{"function-no-fix-sc2", "domain=5", "6.931471805599453094172321215"},
		{"permutation-no-fix-sc2", "domain=5", "3.784189633918261162896407821"},
		{"2-regular-graph-sc2", "v=10", "12.56683323185385813711817475"},
		// C2: cardinality constraints.
		{"2-regular-graph", "v=7", "10.99406766950697347784579374"},
		{"function-no-fix", "domain=5", "6.931471805599453094172321215"},
		{"permutation-no-fix", "domain=5", "3.784189633918261162896407821"},
		{"partition", "domain=10", "8.342839804271459673953813011"},
	} {
		path := filepath.Join("testdata", "anchor", c.model)
		if c.model == "deskmate" {
			path = filepath.Join("..", "examples", "mln", "wfomc", c.model) // also a user's example
		}
		m, err := mlnfile.ParseFile(path + ".mln")
		if err != nil {
			t.Fatal(err)
		}
		opt := FileOptions{Domains: []string{c.domain}}
		if _, err := os.Stat(path + ".db"); err == nil {
			opt.Evidence = []string{path + ".db"}
		}
		res, err := RunFile(m, opt)
		if err != nil {
			t.Fatalf("%s: %v", c.model, err)
		}
		want, err := strconv.ParseFloat(c.logZ, 64)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(res.LogZ-want) > 1e-12*math.Abs(want) || !res.Exact() {
			t.Errorf("%s (%s): log Z = %.17g, the WFOMC tool %s", c.model, c.domain, res.LogZ, c.logZ)
		}
	}
}
