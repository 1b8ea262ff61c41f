package wfomcs_test

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/format/wfomcs"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"
)

func readFile(t *testing.T, path string) *wfomcs.File {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	read := wfomcs.Read
	if strings.HasSuffix(path, ".mln") {
		read = wfomcs.ReadMLN
	}
	f, err := read(fh, path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestClosedForms: the files of testdata (written for these tests) against
// their counts in closed form, through the reader and wfomc.
func TestClosedForms(t *testing.T) {
	for _, c := range []struct {
		file string
		logZ float64
	}{
		{"permutations.wfomcs", math.Log(720)},
		{"functions.wfomcs", math.Log(3125)},
		{"colourings.wfomcs", math.Log(1 + 5*16 + 10*64 + 10*64 + 5*16 + 1)},
		{"weights.wfomcs", 4 * math.Log(7)},
		{"teams.wfomcs", math.Log(8)},
		{"matchings.mln", math.Log(15) + 6*math.Log(math.E+1) + 30 + 24*math.Ln2},
	} {
		f := readFile(t, filepath.Join("testdata", c.file))
		res, err := wfomc.RunFile(f.MLN, wfomc.FileOptions{DB: f.DB})
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if math.Abs(res.LogZ-c.logZ) > 1e-12*math.Abs(c.logZ) || !res.Exact() {
			t.Errorf("%s: log Z = %.17g, want %.17g", c.file, res.LogZ, c.logZ)
		}
	}
}

// TestTeamsMarginals: the evidence of teams.wfomcs conditions (open world),
// checked against the 8 worlds counted by hand: Bob is in A in 4 of them,
// Carol in B in 3.
func TestTeamsMarginals(t *testing.T) {
	f := readFile(t, filepath.Join("testdata", "teams.wfomcs"))
	if f.MLN.Dialect.Dialect.WorldRule() != "open" {
		t.Errorf("world rule %s, want open", f.MLN.Dialect.Dialect.WorldRule())
	}
	res, err := wfomc.RunFile(f.MLN, wfomc.FileOptions{DB: f.DB, Queries: []string{"A(Bob)", "B(Carol)", "B(Alice)"}})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{0.5, 0.375, 0} {
		if math.Abs(res.Marginals[i]-want) > 1e-12 {
			t.Errorf("%s: %.17g, want %g", res.Queries[i].Text, res.Marginals[i], want)
		}
	}
	// An evidence file adds to the file's own: Carol in C leaves 3 worlds,
	// Bob in A in 2 of them.
	db := filepath.Join(t.TempDir(), "carol.db")
	if err := os.WriteFile(db, []byte("C(Carol)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = wfomc.RunFile(f.MLN, wfomc.FileOptions{DB: f.DB, Evidence: []string{db}, Queries: []string{"A(Bob)"}})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.LogZ-math.Log(3)) > 1e-12 || math.Abs(res.Marginals[0]-2.0/3) > 1e-12 {
		t.Errorf("with C(Carol): log Z %.17g, P(A(Bob)) %.17g; want ln 3, 2/3", res.LogZ, res.Marginals[0])
	}
}

// TestReadErrors: mistakes are positioned errors naming the file, line and
// column.
func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"", "e.wfomcs:1:1: expected the domain line (name = size or name = {elements}), found the end of the file"},
		{"d = 3\n", "e.wfomcs:1:1: expected the sentence (a formula) before the domain d"},
		{"P(X)\n", "e.wfomcs:2:1: expected the domain line (name = size or name = {elements}), found the end of the file"},
		{"\\forall X: P(X)\nd = 3\n", "e.wfomcs:1:12: expected \"(\": the body of a quantifier is parenthesised"},
		{"\\forall X: (P(X) & P(X,X))\nd = 3\n", "e.wfomcs:1:20: predicate P has 2 arguments here and 1 elsewhere"},
		{"\\forall X: (P(X))\nd = 3\n|Q| = 2\n", "e.wfomcs:3:2: cardinality constraint: predicate Q does not occur in the sentence"},
		{"\\forall X: (P(X))\nd = 3\n2 1 Q\n", "e.wfomcs:3:5: weighting: predicate Q does not occur in the sentence"},
		{"\\forall X: (P(X))\nd = 3\n-2 1 P\n", "e.wfomcs:3:1: expected an evidence literal"},
		{"\\forall X: (P(X))\nd = 3\nP(d7)\n", "e.wfomcs:3:3: evidence: d7 is not an element of domain d"},
		{"\\forall X: (P(X))\nd = 3\nP(d1), ~P(d1)\n", "conflicting evidence"},
		{"\\forall X: (P(X, Ab))\nd = 3\n", "e.wfomcs:1:18: Ab is neither a variable"},
		{"\\forall X: (\\exists_{=} Y: (P(X,Y)))\nd = 3\n", "e.wfomcs:1:23: expected the count of \\exists_{= …}"},
		{"\\forall X: (P(X)) $\nd = 3\n", "e.wfomcs:1:19: unexpected character \"$\""},
		{"\\forall X: (P(X))\nd = 3\n|P| - 2 |P| ! 3\n", "e.wfomcs:3:13: unexpected character \"!\""},
		{"\\forall X: (P(X))\nd = 3\n|P| - 2 |P| + 3\n", "e.wfomcs:4:1: expected \"|\" before a predicate"},
		{"\\forall X: (P(X))\nd = 3\n0.5 1 P\n|P| = 1.5\n", "e.wfomcs:4:7: the bound of a cardinality constraint must be a whole number, not 1.5"},
		{"\\forall X: (P(X))\nd = {a, b, a}\n", "e.wfomcs:2:12: element a of domain d is listed twice"},
		{"\\forall X: (P(X))\nd = 3\n-1 1 P\n", "e.wfomcs:3:1: expected an evidence literal"},
		{"\\forall X: (P(X))\nd = 3\n1 -1 P\n", "e.wfomcs:3:1: expected an evidence literal"},
		{"\\forall X: (P(X))\nd = 3000000000\n", "e.wfomcs:2:1: domain d of 3000000000 elements"},
		{"\\forall X: (P(X))\nd = 3\n" + strings.Repeat("(", 2000) + "|P|", "parentheses nested deeper than"},
		{strings.Repeat("~", 5000) + "P\nd = 3\n", "formula nested deeper than"},
	} {
		_, err := wfomcs.Read(strings.NewReader(c.src), "e.wfomcs")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
	for _, c := range []struct{ src, want string }{
		{"1 P(X)\nP(X)\nd = 3\n", "e.mln:3:1: expected \".\" after a hard rule"},
		{"P(X).\n", "e.mln:2:1: expected the domain line"},
		{"P(X).\nd = 3\n2 1 P\n", "e.mln:3:1: expected an evidence literal"},
	} {
		_, err := wfomcs.ReadMLN(strings.NewReader(c.src), "e.mln")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.src, err, c.want)
		}
	}
}

// TestRenaming: a quantifier that rebinds a variable in scope gets a fresh
// name, and the formula keeps its meaning: every element has a successor
// that has one too, checked by counting against the same formula written
// with distinct names.
func TestRenaming(t *testing.T) {
	a, err := wfomcs.Read(strings.NewReader("\\forall X: (\\exists Y: (R(X,Y) & \\exists X: (R(Y,X))))\nd = 3\n"), "a.wfomcs")
	if err != nil {
		t.Fatal(err)
	}
	if got := a.MLN.Formulas[0].Expr.String(); got != "EXIST y R(x,y) ^ (EXIST x2 R(y,x2))" {
		t.Errorf("renamed formula %s", got)
	}
	b, err := wfomcs.Read(strings.NewReader("\\forall X: (\\exists Y: (R(X,Y) & \\exists Z: (R(Y,Z))))\nd = 3\n"), "b.wfomcs")
	if err != nil {
		t.Fatal(err)
	}
	ra, err := wfomc.RunFile(a.MLN, wfomc.FileOptions{AllowGround: true})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := wfomc.RunFile(b.MLN, wfomc.FileOptions{AllowGround: true})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(ra.LogZ-rb.LogZ) > 1e-12*math.Abs(rb.LogZ) {
		t.Errorf("log Z %.17g renamed, %.17g written apart", ra.LogZ, rb.LogZ)
	}
}

// FuzzRead: no input makes either reader panic, and what is read is a
// type-checked MLN.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob("testdata/*")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"\\forall X: (P(X) <-> \\exists_{<=2} Y: (R(X,Y)))\nd = {a, b}\n1.5 2 P\n(|P| - 2 |R|) + |P| != 3\nP(a), ~P(b)\n",
		"P(X) -> Q(X) -> R(X) <-> S(X).\n-1 ExactlyOne[P, Q]\nd = 2\n|P| > 0\n",
		"A & B\nd = 0\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, read := range []func(r *bytes.Reader, name string) (*wfomcs.File, error){
			func(r *bytes.Reader, name string) (*wfomcs.File, error) { return wfomcs.Read(r, name) },
			func(r *bytes.Reader, name string) (*wfomcs.File, error) { return wfomcs.ReadMLN(r, name) },
		} {
			file, err := read(bytes.NewReader(src), "fuzz")
			if err != nil {
				if file != nil {
					t.Fatalf("a file and an error: %v", err)
				}
				if !strings.Contains(err.Error(), "fuzz:") {
					t.Fatalf("error without position: %v", err)
				}
				continue
			}
			if file.MLN == nil || file.DB == nil || file.MLN.Type(file.Domain) == nil {
				t.Fatalf("incomplete result %+v", file)
			}
			for _, fm := range file.MLN.Formulas {
				_ = fm.Expr.String()
			}
			_ = mln.NewDB(file.MLN)
		}
	})
}
