package libdai

import (
	"bytes"
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

// libdaiIndex returns the libDAI index of the fg index j of a table with
// dimensions dims: fg puts the last position fastest, libDAI the first.
func libdaiIndex(dims []int32, j int) int {
	x := make([]int, len(dims))
	for p := len(dims) - 1; p >= 0; p-- {
		x[p] = j % int(dims[p])
		j /= int(dims[p])
	}
	i, stride := 0, 1
	for p, d := range dims {
		i += x[p] * stride
		stride *= int(d)
	}
	return i
}

func TestReadSmall(t *testing.T) {
	m := readFile(t, "testdata/small.fg")
	g := m.Graph
	if !slices.Equal(m.Labels, []int64{2, 7, 10}) {
		t.Fatalf("labels %v", m.Labels)
	}
	if !slices.Equal(g.Card, []int32{3, 2, 2}) {
		t.Fatalf("cardinalities %v", g.Card)
	}
	// Scopes keep file order, in variable ids (label 2 → 0, 7 → 1, 10 → 2).
	for f, want := range [][]int32{{1, 0}, {2}, {0, 2, 1}} {
		if s := g.Scope(f); !slices.Equal(s, want) {
			t.Errorf("scope of factor %d is %v, want %v", f, s, want)
		}
	}
	// Factor 0: libDAI index 1 is (label 7 = 1, label 2 = 0), fg index 1×3+0.
	if v := g.Table(0).Values; !slices.Equal(v, []float64{1, 2, 0, 0.5, 0, 3}) {
		t.Errorf("factor 0 table %v", v)
	}
	// Factor 2 holds libDAI index + 1 in every entry.
	tb := g.Table(2)
	for j, v := range tb.Values {
		if want := float64(libdaiIndex(tb.Dims, j) + 1); v != want {
			t.Errorf("factor 2 fg entry %d is %v, want %v", j, v, want)
		}
	}
	roundTrip(t, m)
}

func TestTestfastTransposed(t *testing.T) {
	m := readFile(t, sharedFile(t, "testfast.fg"))
	g := m.Graph
	if g.NumVars() != 16 || g.NumFactors() != 40 {
		t.Fatalf("%d variables, %d factors", g.NumVars(), g.NumFactors())
	}
	// The first block is "2 / 0 4 / 2 2 / 4 / 0 1.55785 / 1 0.641909 / 2 0.641909 / 3 1.55785".
	// libDAI index 1 is (x0=1, x4=0), fg index 1×2+0 = 2; index 2 is (x0=0, x4=1), fg index 1.
	if s := g.Scope(0); !slices.Equal(s, []int32{0, 4}) {
		t.Fatalf("scope %v", s)
	}
	if v := g.Table(0).Values; !slices.Equal(v, []float64{1.55785, 0.641909, 0.641909, 1.55785}) {
		t.Errorf("factor 0 table %v", v)
	}
	// Factor 24 is the unary "1 / 0 / 2 / 2 / 0 0.784958 / 1 1.27395".
	if s, v := g.Scope(24), g.Table(24).Values; !slices.Equal(s, []int32{0}) || !slices.Equal(v, []float64{0.784958, 1.27395}) {
		t.Errorf("factor 24: scope %v table %v", s, v)
	}
	// The pairwise tables of testfast are symmetric, so check the whole
	// model against libDAI's exact marginals in testfast.out instead.
	want := [][2]float64{{3.500e-01, 6.500e-01}, {6.447e-01, 3.553e-01}, {4.997e-01, 5.003e-01},
		{3.049e-01, 6.951e-01}, {3.699e-01, 6.301e-01}, {6.401e-01, 3.599e-01}, {5.793e-01, 4.207e-01},
		{5.437e-01, 4.563e-01}, {2.800e-01, 7.200e-01}, {7.083e-01, 2.917e-01}, {5.776e-01, 4.224e-01},
		{5.375e-01, 4.625e-01}, {3.542e-01, 6.458e-01}, {9.038e-01, 9.617e-02}, {2.408e-01, 7.592e-01},
		{6.910e-01, 3.090e-01}}
	mar := bruteMarginals(g)
	for v := range want {
		for k := range 2 {
			if math.Abs(mar[v][k]-want[v][k]) > 6e-4 {
				t.Errorf("P(x%d=%d) = %.4g, libDAI says %.4g", v, k, mar[v][k], want[v][k])
			}
		}
	}
}

func TestAsymmetricTablesTransposed(t *testing.T) {
	// twofactors.fg, first block: "2 / 0 1 / 2 2 / 4 / 0 0.570273 / 1 0.702232 / 2 0.774333 / 3 3.41627".
	m := readFile(t, sharedFile(t, "twofactors.fg"))
	if v := m.Graph.Table(0).Values; !slices.Equal(v, []float64{0.570273, 0.774333, 0.702232, 3.41627}) {
		t.Errorf("twofactors factor 0: %v", v)
	}
	// alarm.fg, second block: labels 1 4, cardinalities 3 3, entries
	// 0.95 0.04 0.01 0.04 0.95 0.01 0.01 0.29 0.7 in libDAI order. libDAI
	// index 5 is (x1=2, x4=1): fg index 2×3+1 = 7; index 7 is (x1=1, x4=2):
	// fg index 5.
	m = readFile(t, sharedFile(t, "alarm.fg"))
	tb := m.Graph.Table(1)
	if s := m.Graph.Scope(1); !slices.Equal(s, []int32{1, 4}) || !slices.Equal(tb.Dims, []int32{3, 3}) {
		t.Fatalf("alarm factor 1: scope %v dims %v", s, tb.Dims)
	}
	if tb.Values[7] != 0.01 || tb.Values[5] != 0.29 || tb.Values[3] != 0.04 {
		t.Errorf("alarm factor 1: %v", tb.Values)
	}
	// horus_burglary-alarm.fg, third block: labels 1 0 2; libDAI index 1 is
	// (x1=1, x0=0, x2=0), fg index 1×4 = 4, which holds 0.94.
	m = readFile(t, sharedFile(t, "horus_burglary-alarm.fg"))
	if v := m.Graph.Table(2).Values; !slices.Equal(v, []float64{0.95, 0.05, 0.29, 0.71, 0.94, 0.06, 0.001, 0.999}) {
		t.Errorf("burglary alarm factor: %v", v)
	}
}

// bruteMarginals returns the exact marginals of a small graph.
func bruteMarginals(g *fg.Graph) [][]float64 {
	n := g.NumVars()
	x := make([]int32, n)
	mar := make([][]float64, n)
	for v := range mar {
		mar[v] = make([]float64, g.Card[v])
	}
	z := 0.0
	for {
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
		v := n - 1
		for ; v >= 0; v-- {
			if x[v]++; x[v] < g.Card[v] {
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
	return mar
}

func TestWrite(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVar(2)
	b.AddVar(3)
	b.AddVar(2) // in no factor
	if _, err := b.AddFactor([]int32{1, 0}, []float64{1, 0, 2, math.Copysign(0, -1), 5e-324, 0.1}); err != nil {
		t.Fatal(err)
	}
	m := &Model{Graph: b.Build(), Labels: []int64{5, 9, 100}}
	var buf bytes.Buffer
	if err := Write(&buf, m); err != nil {
		t.Fatal(err)
	}
	// fg order is (x9, x5): entries 1 0 / 2 -0 / 5e-324 0.1. libDAI order
	// puts label 9 fastest: index i = x9 + 3×x5.
	want := "2\n\n2\n9 5\n3 2\n5\n0 1\n1 2\n2 5e-324\n4 -0\n5 0.1\n\n1\n100\n2\n2\n0 1\n1 1\n"
	if buf.String() != want {
		t.Errorf("Write wrote\n%s\nwant\n%s", buf.String(), want)
	}
	m2, err := Read(&buf, "w.fg")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(m2.Labels, m.Labels) || !slices.Equal(m2.Graph.Card, m.Graph.Card) {
		t.Fatalf("labels %v cards %v", m2.Labels, m2.Graph.Card)
	}
	if err := sameTable(m.Graph.Table(0), m2.Graph.Table(0)); err != nil {
		t.Error(err)
	}
	if v := m2.Graph.Table(0).Values[3]; math.Float64bits(v) != math.Float64bits(math.Copysign(0, -1)) {
		t.Errorf("-0 came back as %v", v)
	}
	if m2.Graph.NumFactors() != 2 || !slices.Equal(m2.Graph.Table(1).Values, []float64{1, 1}) {
		t.Errorf("the isolated variable should get a factor of ones")
	}
	// Nil labels number the variables.
	buf.Reset()
	if err := Write(&buf, &Model{Graph: m.Graph}); err != nil {
		t.Fatal(err)
	}
	if m3, err := Read(&buf, "w.fg"); err != nil || !slices.Equal(m3.Labels, []int64{0, 1, 2}) {
		t.Errorf("nil labels: %v, %v", m3, err)
	}
}

func sameTable(a, b *fg.Table) error {
	return fg.Diff(tableGraph(a), tableGraph(b))
}

func tableGraph(t *fg.Table) *fg.Graph {
	b := fg.NewBuilder()
	scope := make([]int32, len(t.Dims))
	for p, d := range t.Dims {
		scope[p] = b.AddVar(int(d))
	}
	b.AddFactor(scope, t.Values)
	return b.Build()
}

func TestWriteRejects(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	g := b.Build()
	for _, m := range []*Model{
		nil,
		{},
		{Graph: g, Labels: []int64{1}},
		{Graph: g, Labels: []int64{1, 1}},
		{Graph: g, Labels: []int64{-1, 1}},
		{Graph: &fg.Graph{Card: []int32{0}, FactorStart: []int64{0}, VarStart: []int64{0, 0}}},
	} {
		if err := Write(&bytes.Buffer{}, m); err == nil {
			t.Errorf("Write accepted %+v", m)
		}
	}
}

func TestReadValid(t *testing.T) {
	tests := []struct {
		name, in string
		labels   []int64
		values   [][]float64
	}{
		{"no factors", "0", nil, nil},
		{"comments everywhere", "# head\n1 # count\n\n# block\n1\n3\n2\n# entries\n1\n1 4 # last\n", []int64{3}, [][]float64{{0, 4}}},
		{"empty scope", "1\n0\n\n\n1\n0 2.5\n", nil, [][]float64{{2.5}}},
		{"all zero", "1\n1\n0\n2\n0\n", []int64{0}, [][]float64{{0, 0}}},
		{"shared variable", "2\n1\n4\n2\n0\n2\n4 1\n2 1\n1\n0 1", []int64{1, 4}, [][]float64{{0, 0}, {1, 0}}},
		{"big label", "1 1 9223372036854775807 1 1 0 1", []int64{9223372036854775807}, [][]float64{{1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Read(strings.NewReader(tt.in), "in.fg")
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(m.Labels, tt.labels) {
				t.Errorf("labels %v", m.Labels)
			}
			for f, want := range tt.values {
				if v := m.Graph.Table(f).Values; !slices.Equal(v, want) {
					t.Errorf("factor %d: %v, want %v", f, v, want)
				}
			}
			roundTrip(t, m)
		})
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
		{"empty", "", 1, 1, "unexpected end of file: expected the number of factors"},
		{"comment only", "# nothing\n", 2, 1, "unexpected end of file: expected the number of factors"},
		{"not a number", "two\n", 1, 1, `expected the number of factors (an integer), found "two"`},
		{"negative factor count", "-2\n", 1, 1, "the number of factors must not be negative, found -2"},
		{"too many factors", "300000000\n", 1, 1, "the number of factors is 300000000, more than the limit of 268435456"},
		{"missing block", "2\n\n1\n0\n2\n0\n", 7, 1, "unexpected end of file: expected the number of variables of factor 1"},
		{"float label", "1\n1\n0.5\n", 3, 1, `expected label 0 of factor 0 (an integer), found "0.5"`},
		{"negative label", "1\n2\n3 -1\n", 3, 3, "variable label -1 of factor 0 is negative"},
		{"huge label", "1\n1\n9223372036854775808\n", 3, 1, `expected label 0 of factor 0 (an integer), found "9223372036854775808"`},
		{"duplicate label", "1\n3\n4 5 4\n2 2 2\n0\n", 3, 5, "variable 4 appears twice in factor 0"},
		{"truncated cardinalities", "1\n2\n4 5\n2", 4, 2, "unexpected end of file: expected the cardinality of variable 5 (position 1 of factor 0)"},
		{"zero cardinality", "1\n2\n4 5\n2 0\n", 4, 3, "variable 5 has cardinality 0 in factor 0; it must be at least 1"},
		{"cardinality over the limit", "1\n1\n4\n300000000\n", 4, 1, "variable 4 has cardinality 300000000, more than the largest table size 268435456"},
		{"cardinality conflict", "2\n1\n4\n2\n0\n\n1\n4\n3\n0\n", 9, 1, "variable 4 has cardinality 3 in factor 1, but 2 at in.fg:4:1"},
		{"table too large", "1\n2\n0 1\n32768 32768\n0\n", 2, 1, "the table of factor 0 would have 1073741824 entries (32768×32768), more than the limit of 268435456"},
		{"table overflows", "1\n3\n0 1 2\n200000000 200000000 200000000\n", 2, 1, "would have 8e+24 entries (200000000×200000000×200000000)"},
		{"too many entries", "1\n1\n0\n2\n3\n", 5, 1, "factor 0 lists 3 entries, but its table has only 2"},
		{"negative entry count", "1\n1\n0\n2\n-1\n", 5, 1, "the number of nonzero entries of factor 0 must not be negative"},
		{"index out of range", "1\n1\n0\n2\n1\n2 1.0\n", 6, 1, "index 2 of factor 0 is out of range 0..1"},
		{"negative index", "1\n1\n0\n2\n1\n-1 1.0\n", 6, 1, "index -1 of factor 0 is out of range 0..1"},
		{"duplicate index", "1\n2\n0 1\n2 2\n2\n1 1.0\n1 2.0\n", 7, 1, "index 1 of factor 0 is listed twice"},
		{"truncated entries", "1\n1\n0\n2\n2\n0 1\n", 7, 1, "unexpected end of file: expected the index of entry 1 of factor 0"},
		{"missing value", "1\n1\n0\n2\n1\n0\n", 7, 1, "unexpected end of file: expected the value of entry 0 of factor 0"},
		{"negative value", "1\n1\n0\n2\n1\n0 -1\n", 6, 3, `the value of entry 0 of factor 0 is "-1"; entries must be finite and non-negative`},
		{"nan value", "1\n1\n0\n2\n1\n0 nan\n", 6, 3, `expected the value of entry 0 of factor 0 (a number), found "nan"`},
		{"infinite value", "1\n1\n0\n2\n1\n0 1e309\n", 6, 3, `the value of entry 0 of factor 0 is "1e309"; entries must be finite`},
		{"trailing", "1\n1\n0\n2\n1\n0 1\n\n1\n", 8, 1, `unexpected "1" after the last factor: expected end of file`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Read(strings.NewReader(tt.in), "in.fg")
			if m != nil {
				t.Error("got a model with the error")
			}
			checkPosError(t, err, "in.fg", tt.line, tt.col, tt.msg)
		})
	}
}

func TestReadTotalLimit(t *testing.T) {
	defer func(old int) { totalLimit = old }(totalLimit)
	totalLimit = 10
	_, err := Read(strings.NewReader("2\n1\n0\n8\n0\n\n1\n1\n4\n0\n"), "in.fg")
	checkPosError(t, err, "in.fg", 7, 1, "the tables of factors 0..1 have 12 entries in all, more than the limit of 10")
}
