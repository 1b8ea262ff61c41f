package format_test

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/format/dimacs"
	"github.com/lifted-dev/lifted/format/libdai"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/pos"
)

func TestDetect(t *testing.T) {
	tests := []struct{ path, flag, want string }{
		{"m.uai", "", "uai"},
		{"dir.x/M.UAI", "", "uai"},
		{"g.fg", "", "fg"},
		{"f.cnf", "", "cnf"},
		{"f.dimacs", "", "cnf"},
		{"f.Dimacs", "", "cnf"},
		{"smokers.mln", "", "mln"},
		{"f.cnf", "uai", "uai"}, // the flag wins over the extension
		{"model.txt", "fg", "fg"},
		{"noext", "cnf", "cnf"},
		{"x.uai", "mln", "mln"},
	}
	for _, tt := range tests {
		f, err := format.Detect(tt.path, tt.flag)
		if err != nil || f.Name != tt.want {
			t.Errorf("Detect(%q, %q) = %q, %v; want %q", tt.path, tt.flag, f.Name, err, tt.want)
		}
	}
}

// The messages are the command line's, which users and scripts see.
func TestDetectErrors(t *testing.T) {
	tests := []struct{ path, flag, msg string }{
		{"model.txt", "", "model.txt: cannot tell the format from the extension; use --format uai|fg|cnf"},
		{"noext", "", "noext: cannot tell the format from the extension; use --format uai|fg|cnf"},
		{"m.uai", "UAI", `unknown --format "UAI" (want uai, fg or cnf)`},
		{"m.uai", "xyz", `unknown --format "xyz" (want uai, fg or cnf)`},
	}
	for _, tt := range tests {
		_, err := format.Detect(tt.path, tt.flag)
		var ue *format.UsageError
		if !errors.As(err, &ue) || err.Error() != tt.msg {
			t.Errorf("Detect(%q, %q) = %v (%T), want *UsageError %q", tt.path, tt.flag, err, err, tt.msg)
		}
		// Load decides the format before it opens the (missing) file.
		if _, err := format.Load(tt.path, format.Options{Format: tt.flag}); err == nil || err.Error() != tt.msg {
			t.Errorf("Load(%q, %q) = %v, want %q", tt.path, tt.flag, err, tt.msg)
		}
	}
}

func TestIsMLN(t *testing.T) {
	tests := []struct {
		path, flag string
		want       bool
	}{
		{"a.mln", "", true},
		{"A.MLN", "", true},
		{"a.txt", "mln", true},
		{"a.mln", "uai", false},
		{"a.uai", "", false},
		{"a.txt", "", false},
		{"a.mln", "xyz", false},
	}
	for _, tt := range tests {
		if got := format.IsMLN(tt.path, tt.flag); got != tt.want {
			t.Errorf("IsMLN(%q, %q) = %v, want %v", tt.path, tt.flag, got, tt.want)
		}
	}
	_, err := format.Load("a.mln", format.Options{})
	var ue *format.UsageError
	if !errors.Is(err, format.ErrNotGraph) || !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "a.mln: ") {
		t.Errorf("Load of an MLN: %v, want a *UsageError wrapping ErrNotGraph", err)
	}
}

// write creates a file in a fresh directory and returns its path.
func write(t *testing.T, name string, w func(io.Writer) error) string {
	t.Helper()
	var buf bytes.Buffer
	if err := w(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// smallGraph has a binary and a ternary variable, a unary and a pairwise
// factor.
func smallGraph(t *testing.T) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVar(2)
	b.AddVar(3)
	if _, err := b.AddFactor([]int32{0}, []float64{0.25, 0.75}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.AddFactor([]int32{1, 0}, []float64{1, 2, 3, 4, 5, 6}); err != nil {
		t.Fatal(err)
	}
	return b.Build()
}

// Each graph format gives back, through Load, the model its writer wrote.
func TestRoundTrip(t *testing.T) {
	g := smallGraph(t)
	for _, typ := range []string{uai.Markov, uai.Bayes} {
		path := write(t, "m.uai", func(w io.Writer) error { return uai.Write(w, &uai.Model{Type: typ, Graph: g}) })
		m, err := format.Load(path, format.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := fg.Diff(m.Graph, g); err != nil || m.Format != "uai" || m.UAIType != typ || m.CNF != nil {
			t.Errorf("uai %s: format %q type %q cnf %v; graphs: %v", typ, m.Format, m.UAIType, m.CNF, err)
		}
	}

	labels := []int64{7, 2}
	path := write(t, "g.fg", func(w io.Writer) error { return libdai.Write(w, &libdai.Model{Graph: g, Labels: labels}) })
	m, err := format.Load(path, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// libDAI numbers variables in increasing label order: 2 (ternary)
	// first, then 7.
	if m.Format != "fg" || !reflect.DeepEqual(m.Labels, []int64{2, 7}) || !reflect.DeepEqual(m.Graph.Card, []int32{3, 2}) {
		t.Errorf("fg: format %q labels %v cards %v", m.Format, m.Labels, m.Graph.Card)
	}
	path = write(t, "g.fg", func(w io.Writer) error { return libdai.Write(w, &libdai.Model{Graph: g}) })
	if m, err = format.Load(path, format.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := fg.Diff(m.Graph, g); err != nil {
		t.Errorf("fg without labels: %v", err)
	}

	c := &cnf.CNF{NumVars: 3, Clauses: [][]int32{{1, -2}, {2, 3}, {-1}}}
	want, err := cnf.ToGraph(c)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"f.cnf", "f.dimacs", "f.txt"} {
		path := write(t, name, func(w io.Writer) error { return dimacs.Write(w, c) })
		opt := format.Options{}
		if name == "f.txt" {
			opt.Format = "cnf"
		}
		m, err := format.Load(path, opt)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(m.CNF, c) || m.Format != "cnf" {
			t.Errorf("%s: format %q formula %+v, want %+v", name, m.Format, m.CNF, c)
		}
		if err := fg.Diff(m.Graph, want); err != nil {
			t.Errorf("%s: graph: %v", name, err)
		}
		opt.NoGraph = true
		if m, err = format.Load(path, opt); err != nil || m.Graph != nil || !reflect.DeepEqual(m.CNF, c) {
			t.Errorf("%s with NoGraph: graph %v formula %+v, %v", name, m.Graph, m.CNF, err)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := format.Load(filepath.Join(dir, "missing.uai"), format.Options{})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}

	// Reader errors keep their position; the flag overrides the extension.
	bad := filepath.Join(dir, "bad.uai")
	if err := os.WriteFile(bad, []byte("MARKOV\n1\n2\n1\n1 0\n2\n0.5 0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = format.Load(bad, format.Options{Format: "cnf"})
	var pe *pos.Error
	if !errors.As(err, &pe) || pe.Pos.File != bad || pe.Pos.Line != 1 || pe.Pos.Col != 1 {
		t.Errorf("UAI read as CNF: %v, want a *pos.Error at %s:1:1", err, bad)
	}
	if m, err := format.Load(bad, format.Options{}); err != nil || m.Graph.NumVars() != 1 {
		t.Errorf("Load(%s): %v", bad, err)
	}

	// A formula the graph cannot hold: the path, then cnf's message.
	empty := filepath.Join(dir, "empty.cnf")
	if err := os.WriteFile(empty, []byte("p cnf 2 2\n1 0\n0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = format.Load(empty, format.Options{})
	if want := empty + ": dimacs: clause 2 is empty: formula is unsatisfiable"; err == nil || err.Error() != want || !errors.Is(err, cnf.ErrUnsatisfiable) {
		t.Errorf("empty clause: %v, want %q", err, want)
	}
	if m, err := format.Load(empty, format.Options{NoGraph: true}); err != nil || len(m.CNF.Clauses) != 2 {
		t.Errorf("empty clause with NoGraph: %v", err)
	}
}

func TestRead(t *testing.T) {
	m, err := format.Read(strings.NewReader("p cnf 2 1\n1 -2 0\n"), "in.cnf", format.Options{})
	if err != nil || m.Format != "cnf" || m.Graph.NumFactors() != 1 {
		t.Fatalf("Read: %+v, %v", m, err)
	}
	_, err = format.Read(strings.NewReader("2\n"), "stdin", format.Options{})
	if err == nil || err.Error() != "stdin: cannot tell the format from the extension; use --format uai|fg|cnf" {
		t.Errorf("Read without a format: %v", err)
	}
	_, err = format.Read(strings.NewReader("2\n"), "stdin", format.Options{Format: "uai"})
	var pe *pos.Error
	if !errors.As(err, &pe) || pe.Pos.File != "stdin" {
		t.Errorf("Read of bad UAI: %v, want a *pos.Error in stdin", err)
	}
}

func TestLoadEvidence(t *testing.T) {
	m, err := format.Load("uai/testdata/markov.uai", format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := format.LoadEvidence(nil, m.Graph)
	if ev != nil || err != nil {
		t.Errorf("no evidence files: %v, %v", ev, err)
	}
	ev, err = format.LoadEvidence([]string{"uai/testdata/markov.uai.evid"}, m.Graph)
	if err != nil || !reflect.DeepEqual(ev, fg.Evidence{1, -1, 2}) {
		t.Errorf("LoadEvidence = %v, %v; want [1 -1 2]", ev, err)
	}
	two := []string{"uai/testdata/markov.uai.evid", "uai/testdata/markov2010.evid"}
	_, err = format.LoadEvidence(two, m.Graph)
	var ue *format.UsageError
	if !errors.As(err, &ue) || err.Error() != "a factor graph takes one evidence file, got 2" {
		t.Errorf("two evidence files: %v", err)
	}
	if _, err := format.LoadEvidence([]string{"uai/testdata/missing.evid"}, m.Graph); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing evidence file: %v", err)
	}
}

func TestRegister(t *testing.T) {
	defer format.SaveRegistry()()
	read := func(r io.Reader, name string, _ format.Options) (*format.Model, error) {
		b := fg.NewBuilder()
		b.AddVar(4)
		return &format.Model{Format: "four", Graph: b.Build()}, nil
	}
	if err := format.Register(format.Format{Name: "four", Exts: []string{".four"}, Read: read}); err != nil {
		t.Fatal(err)
	}
	m, err := format.Read(strings.NewReader(""), "x.FOUR", format.Options{})
	if err != nil || m.Format != "four" || m.Graph.Card[0] != 4 {
		t.Errorf("registered format: %+v, %v", m, err)
	}
	// Messages list the registered graph formats.
	if _, err := format.Detect("x", "y"); err == nil || err.Error() != `unknown --format "y" (want uai, fg, cnf or four)` {
		t.Errorf("message after Register: %v", err)
	}
	for _, f := range []format.Format{
		{Name: "", Exts: []string{".e"}, Read: read},
		{Name: "four", Exts: []string{".e"}, Read: read},
		{Name: "other", Exts: []string{".uai"}, Read: read},
		{Name: "other", Exts: []string{"e"}, Read: read},
		{Name: "other", Exts: []string{".E"}, Read: read},
		{Name: "other", Exts: []string{".e"}},
	} {
		if err := format.Register(f); err == nil {
			t.Errorf("Register(%+v) accepted", f)
		}
	}
	// Formats returns copies.
	all := format.Formats()
	all[0].Exts[0] = ".changed"
	if f, _ := format.Detect("m.uai", ""); f.Name != "uai" {
		t.Error("changing Formats' result changed the registry")
	}
}
