package uai

import (
	"bytes"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/pos"
)

func readFile(t *testing.T, path string) *Model {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Graph.Validate(); err != nil {
		t.Fatal(err)
	}
	return m
}

// bruteForce returns Z and the marginals of g given ev by enumerating every
// assignment, reading tables in UAI order (last scope variable fastest).
func bruteForce(g *fg.Graph, ev fg.Evidence) (float64, [][]float64) {
	n := g.NumVars()
	x := make([]int32, n)
	mar := make([][]float64, n)
	for v := range mar {
		mar[v] = make([]float64, g.Card[v])
	}
	z := 0.0
	for {
		ok := true
		for v := range x {
			if ev != nil && ev[v] >= 0 && ev[v] != x[v] {
				ok = false
			}
		}
		if ok {
			p := 1.0
			for f := range g.NumFactors() {
				idx := 0
				for _, v := range g.Scope(f) {
					idx = idx*int(g.Card[v]) + int(x[v])
				}
				p *= g.Table(f).Values[idx]
			}
			z += p
			for v := range x {
				mar[v][x[v]] += p
			}
		}
		v := n - 1
		for ; v >= 0; v-- {
			x[v]++
			if x[v] < g.Card[v] {
				break
			}
			x[v] = 0
		}
		if v < 0 {
			break
		}
	}
	for v := range mar {
		for k := range mar[v] {
			mar[v][k] /= z
		}
	}
	return z, mar
}

func TestReadMarkov(t *testing.T) {
	m := readFile(t, "testdata/markov.uai")
	g := m.Graph
	if m.Type != Markov {
		t.Errorf("type %q", m.Type)
	}
	if !slices.Equal(g.Card, []int32{2, 2, 3}) || g.NumFactors() != 3 {
		t.Fatalf("cards %v, %d factors", g.Card, g.NumFactors())
	}
	if s := g.Scope(2); !slices.Equal(s, []int32{1, 2}) {
		t.Errorf("scope of factor 2 is %v", s)
	}
	// Entry (x1=1, x2=2) of factor 2 is the last one, 0.5.
	if tb := g.Table(2); !slices.Equal(tb.Dims, []int32{2, 3}) || tb.Values[1*3+2] != 0.5 || tb.Values[2] != 2 {
		t.Errorf("table of factor 2: %v %v", tb.Dims, tb.Values)
	}
	checkAgainstSolutions(t, "testdata/markov.uai", g)
}

func TestReadBayes(t *testing.T) {
	m := readFile(t, "testdata/bayes.uai")
	if m.Type != Bayes {
		t.Errorf("type %q", m.Type)
	}
	z, _ := bruteForce(m.Graph, nil)
	if math.Abs(z-1) > 1e-12 {
		t.Errorf("a Bayesian network should have Z = 1, got %v", z)
	}
	checkAgainstSolutions(t, "testdata/bayes.uai", m.Graph)
}

// checkAgainstSolutions compares brute-force results with the .PR and .MAR
// files that a separate script computed for a fixture.
func checkAgainstSolutions(t *testing.T, path string, g *fg.Graph) {
	t.Helper()
	z, mar := bruteForce(g, nil)
	f, err := os.Open(path + ".PR")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pr, err := ReadPR(f, path+".PR")
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(pr-math.Log10(z)) > 1e-12 {
		t.Errorf("log10 Z = %v, file says %v", math.Log10(z), pr)
	}
	f2, err := os.Open(path + ".MAR")
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	want, err := ReadMAR(f2, path+".MAR")
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(mar) {
		t.Fatalf("MAR has %d variables, model %d", len(want), len(mar))
	}
	for v := range mar {
		for k := range mar[v] {
			if math.Abs(mar[v][k]-want[v][k]) > 1e-12 {
				t.Errorf("P(x%d=%d) = %v, file says %v", v, k, mar[v][k], want[v][k])
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, path := range []string{"testdata/markov.uai", "testdata/bayes.uai"} {
		m := readFile(t, path)
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			t.Fatal(err)
		}
		m2, err := Read(bytes.NewReader(buf.Bytes()), "rewritten")
		if err != nil {
			t.Fatalf("%s: %v\n%s", path, err, buf.Bytes())
		}
		if m2.Type != m.Type {
			t.Errorf("%s: type %q became %q", path, m.Type, m2.Type)
		}
		if err := fg.Diff(m.Graph, m2.Graph); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestWriteExactFloats(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVar(2)
	b.AddVar(1)
	vals := []float64{math.SmallestNonzeroFloat64, math.MaxFloat64, 0.1, 1.0 / 3}
	if _, err := b.AddFactor([]int32{0}, vals[:2]); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddFactor([]int32{1, 0}, vals[2:]); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddFactor(nil, []float64{7}); err != nil { // empty scope
		t.Fatal(err)
	}
	m := &Model{Graph: b.Build()}
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	m2, err := Read(&buf, "w")
	if err != nil {
		t.Fatal(err)
	}
	if m2.Type != Markov {
		t.Errorf("empty type should be written as MARKOV, got %q", m2.Type)
	}
	if err := fg.Diff(m.Graph, m2.Graph); err != nil {
		t.Error(err)
	}
}

func TestWriteRejects(t *testing.T) {
	if err := Write(&bytes.Buffer{}, nil); err == nil {
		t.Error("nil model accepted")
	}
	g := fg.NewBuilder().Build()
	if err := Write(&bytes.Buffer{}, &Model{Type: "MRF", Graph: g}); err == nil {
		t.Error("unknown type accepted")
	}
	bad := &fg.Graph{Card: []int32{0}, FactorStart: []int64{0}, VarStart: []int64{0, 0}}
	if err := Write(&bytes.Buffer{}, &Model{Graph: bad}); err == nil {
		t.Error("invalid graph accepted")
	}
}

// checkPosError checks that err is a *pos.Error at line:col whose message
// contains msg.
func checkPosError(t *testing.T, err error, file string, line, col int, msg string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %d:%d: %s", line, col, msg)
	}
	pe, ok := err.(*pos.Error)
	if !ok {
		t.Fatalf("error %v is a %T, not a *pos.Error", err, err)
	}
	if pe.Pos.File != file || pe.Pos.Line != line || pe.Pos.Col != col {
		t.Errorf("error at %v, want %s:%d:%d (%v)", pe.Pos, file, line, col, err)
	}
	if !strings.Contains(pe.Msg, msg) {
		t.Errorf("error %q does not contain %q", pe.Msg, msg)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"empty", "", 1, 1, "unexpected end of file: expected the model type MARKOV or BAYES"},
		{"only comment", "# nothing\n", 2, 1, "unexpected end of file: expected the model type"},
		{"unknown header", "MRF\n1\n2\n", 1, 1, `unknown model type "MRF": expected MARKOV or BAYES`},
		{"lower case header", "  markov\n", 1, 3, `unknown model type "markov"`},
		{"no variable count", "MARKOV\n", 2, 1, "unexpected end of file: expected the number of variables"},
		{"float count", "MARKOV\n2.0\n", 2, 1, `expected the number of variables (an integer), found "2.0"`},
		{"negative count", "MARKOV\n-1\n", 2, 1, "the number of variables must not be negative, found -1"},
		{"too many variables", "MARKOV\n1000000000000\n", 2, 1, "the number of variables is 1000000000000, more than the limit of 268435456"},
		{"huge integer", "MARKOV\n99999999999999999999\n", 2, 1, `expected the number of variables (an integer), found "99999999999999999999"`},
		{"long token", "MARKOV " + strings.Repeat("7", 5000), 1, 8, `found "7777777777777777777777777777777777777777"...`},
		{"non-integer cardinality", "MARKOV\n2\n2 x\n", 3, 3, `expected the cardinality of variable 1 (an integer), found "x"`},
		{"cardinality zero", "MARKOV\n2\n2 0\n", 3, 3, "variable 1 has cardinality 0; it must be at least 1"},
		{"cardinality huge", "MARKOV\n1\n300000000\n", 3, 1, "variable 0 has cardinality 300000000, more than the largest table size 268435456"},
		{"truncated cardinalities", "MARKOV\n3\n2 2", 3, 4, "unexpected end of file: expected the cardinality of variable 2"},
		{"no factor count", "MARKOV\n1\n2\n", 4, 1, "unexpected end of file: expected the number of factors"},
		{"negative factor count", "MARKOV\n1\n2\n-3\n", 4, 1, "the number of factors must not be negative, found -3"},
		{"too many factors", "MARKOV\n1\n2\n300000000\n", 4, 1, "the number of factors is 300000000, more than the limit of 268435456"},
		{"scope larger than model", "MARKOV\n1\n2\n1\n2 0 0\n", 5, 1, "factor 0 has 2 variables in its scope, but the model has only 1"},
		{"variable out of range", "MARKOV\n2\n2 2\n1\n2 0 2\n", 5, 5, "variable 2 in the scope of factor 0 is out of range 0..1"},
		{"negative variable", "MARKOV\n2\n2 2\n1\n2 -1 0\n", 5, 3, "variable -1 in the scope of factor 0 is out of range 0..1"},
		{"duplicate variable", "MARKOV\n2\n2 2\n1\n2 1 1\n", 5, 5, "variable 1 appears twice in the scope of factor 0"},
		{"truncated scope", "MARKOV\n2\n2 2\n2\n2 0 1\n2 1", 6, 4, "unexpected end of file: expected variable 1 in the scope of factor 1"},
		{"table too large", "MARKOV\n2\n32768 32768\n1\n2 0 1\n", 5, 1, "the table of factor 0 would have 1073741824 entries (32768×32768), more than the limit of 268435456"},
		{"table overflows", "MARKOV\n5\n200000000 200000000 200000000 200000000 200000000\n1\n5 0 1 2 3 4\n", 5, 1, "would have 3.2e+41 entries (200000000×200000000×200000000×200000000×200000000)"},
		{"no table", "MARKOV\n1\n2\n1\n1 0\n", 6, 1, "unexpected end of file: expected the number of entries in the table of factor 0"},
		{"wrong table size", "MARKOV\n2\n2 3\n1\n2 0 1\n5\n1 2 3 4 5\n", 6, 1, "the table of factor 0 has 5 entries, but its scope (2×3) needs 6"},
		{"wrong size empty scope", "MARKOV\n0\n\n1\n0\n2\n1 1\n", 6, 1, "the table of factor 0 has 2 entries, but its scope (no variables) needs 1"},
		{"truncated table", "MARKOV\n1\n2\n1\n1 0\n2\n0.5", 7, 4, "unexpected end of file: expected entry 1 of the table of factor 0"},
		{"negative entry", "MARKOV\n1\n2\n1\n1 0\n2\n0.5 -0.5\n", 7, 5, `entry 1 of the table of factor 0 is "-0.5"; entries must be finite and non-negative`},
		{"nan entry", "MARKOV\n1\n2\n1\n1 0\n2\nnan 1\n", 7, 1, `expected entry 0 of the table of factor 0 (a number), found "nan"`},
		{"inf entry", "MARKOV\n1\n2\n1\n1 0\n2\n1 inf\n", 7, 3, `expected entry 1 of the table of factor 0 (a number), found "inf"`},
		{"overflowing entry", "MARKOV\n1\n2\n1\n1 0\n2\n1 1e400\n", 7, 3, `entry 1 of the table of factor 0 is "1e400"; entries must be finite`},
		{"hex entry", "MARKOV\n1\n2\n1\n1 0\n2\n0x1p1 1\n", 7, 1, `(a number), found "0x1p1"`},
		{"trailing token", "MARKOV\n1\n2\n1\n1 0\n2\n1 1\n7\n", 8, 1, `unexpected "7" after the last table: expected end of file`},
		{"second table truncated", "BAYES\n2\n2 2\n2\n1 0\n2 0 1\n2\n1 1\n4\n1 1 1\n", 11, 1, "unexpected end of file: expected entry 3 of the table of factor 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Read(strings.NewReader(tt.in), "in.uai")
			if m != nil {
				t.Errorf("got a model with the error")
			}
			checkPosError(t, err, "in.uai", tt.line, tt.col, tt.msg)
		})
	}
}

type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, errors.New("disk on fire")
	}
	r.n = 0
	return copy(p, "MARKOV\n3\n"), nil
}

func TestReadIOError(t *testing.T) {
	_, err := Read(&failingReader{n: 1}, "in.uai")
	checkPosError(t, err, "in.uai", 3, 1, "read error: disk on fire")
}

func TestReadSmallReads(t *testing.T) {
	// Tokens straddling reads must come out whole.
	data, err := os.ReadFile("testdata/markov.uai")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Read(&oneByteReader{data: data}, "markov.uai")
	if err != nil {
		t.Fatal(err)
	}
	want := readFile(t, "testdata/markov.uai")
	if err := fg.Diff(m.Graph, want.Graph); err != nil {
		t.Error(err)
	}
	_, err = Read(&oneByteReader{data: []byte("MARKOV\n1\n\n  2x")}, "in.uai")
	checkPosError(t, err, "in.uai", 4, 3, `found "2x"`)
}

type oneByteReader struct{ data []byte }

func (r *oneByteReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	p[0] = r.data[0]
	r.data = r.data[1:]
	if len(r.data) == 0 {
		return 1, io.EOF
	}
	return 1, nil
}
