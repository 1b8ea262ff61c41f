package uai

import (
	"bytes"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// sharedDir holds the UAI 2014 benchmark subset shared by the project.
var sharedDir = shareddata.Path("uai")

// sharedFiles returns the files in sharedDir matching pattern, skipping the
// test when the directory is absent.
func sharedFiles(t *testing.T, pattern string) []string {
	t.Helper()
	if _, err := os.Stat(sharedDir); err != nil {
		shareddata.Skipf(t, "shared UAI data not found at %s (%v); only the testdata/ fixtures are tested", sharedDir, err)
	}
	files, err := filepath.Glob(filepath.Join(sharedDir, pattern))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		shareddata.Skipf(t, "no %s files in %s", pattern, sharedDir)
	}
	return files
}

// preamble returns the variable and factor counts a model file announces,
// read independently of Read.
func preamble(t *testing.T, data []byte) (nvars, nfactors int) {
	t.Helper()
	f := bytes.Fields(data)
	nvars, err := strconv.Atoi(string(f[1]))
	if err != nil {
		t.Fatal(err)
	}
	nfactors, err = strconv.Atoi(string(f[2+nvars]))
	if err != nil {
		t.Fatal(err)
	}
	return nvars, nfactors
}

func TestSharedModels(t *testing.T) {
	for _, file := range sharedFiles(t, "*.uai") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			m, err := Read(bytes.NewReader(data), file)
			if err != nil {
				t.Fatal(err)
			}
			g := m.Graph
			nv, nf := preamble(t, data)
			if g.NumVars() != nv || g.NumFactors() != nf {
				t.Fatalf("read %d variables, %d factors; preamble says %d, %d", g.NumVars(), g.NumFactors(), nv, nf)
			}
			if err := g.Validate(); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Write(&buf, m); err != nil {
				t.Fatal(err)
			}
			m2, err := Read(&buf, "rewritten")
			if err != nil {
				t.Fatal(err)
			}
			if m2.Type != m.Type {
				t.Errorf("type %q became %q", m.Type, m2.Type)
			}
			if err := fg.Diff(g, m2.Graph); err != nil {
				t.Fatalf("round trip: %v", err)
			}
			checkSolutions(t, file, m)
		})
	}
}

// checkSolutions reads the evidence and reference solutions next to a model.
func checkSolutions(t *testing.T, file string, m *Model) {
	g := m.Graph
	if f, err := os.Open(file + ".evid"); err == nil {
		ev, err := ReadEvidence(f, file+".evid", g)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := g.CheckEvidence(ev); err != nil {
			t.Errorf("evidence: %v", err)
		}
	}
	if f, err := os.Open(file + ".MAR"); err == nil {
		mar, err := ReadMAR(f, file+".MAR")
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(mar) != g.NumVars() {
			t.Fatalf("MAR has %d variables, model %d", len(mar), g.NumVars())
		}
		for v, row := range mar {
			if len(row) != int(g.Card[v]) {
				t.Fatalf("MAR variable %d has %d states, model %d", v, len(row), g.Card[v])
			}
			sum := 0.0
			for _, p := range row {
				sum += p
			}
			if math.Abs(sum-1) > 1e-3 {
				t.Errorf("MAR variable %d sums to %v", v, sum)
			}
		}
	}
	if f, err := os.Open(file + ".PR"); err == nil {
		z, err := ReadPR(f, file+".PR")
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(z) || math.IsInf(z, 0) {
			t.Errorf("PR is %v", z)
		}
	}
}

// TestSharedEvidenceForms checks one file of each evidence form.
func TestSharedEvidenceForms(t *testing.T) {
	sharedFiles(t, "*.uai")
	tests := []struct {
		model    string
		observed int
		v, x     int32
	}{
		{"Pedigree_11.uai", 37, 125, 2}, // 2014 form: "37 10 0 13 0 … 125 2 …"
		{"Promedus_11.uai", 8, 158, 1},  // 2014 form, no trailing newline
		{"relational_4.uai", 1, 35, 1},  // 2010 form: "1\n1 35 1"
		{"relational_3.uai", 7, 929, 1}, // 2010 form with seven observations
		{"Alchemy_11.uai", 0, -1, -1},   // "0"
	}
	for _, tt := range tests {
		path := filepath.Join(sharedDir, tt.model)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%s: %v", tt.model, err)
			continue
		}
		m, err := Read(bytes.NewReader(data), path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path + ".evid")
		if err != nil {
			t.Fatal(err)
		}
		ev, err := ReadEvidence(f, path+".evid", m.Graph)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, x := range ev {
			if x >= 0 {
				n++
			}
		}
		if n != tt.observed || (tt.v >= 0 && ev[tt.v] != tt.x) {
			t.Errorf("%s: %d observed, want %d; variable %d = %d, want %d", tt.model, n, tt.observed, tt.v, ev[max(tt.v, 0)], tt.x)
		}
	}
}
