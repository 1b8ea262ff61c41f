package mlnfile

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// addSeeds adds the fixtures and the sources of the table tests to f.
func addSeeds(f *testing.F, glob string, extra []string) {
	files, _ := filepath.Glob(glob)
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

// FuzzParse checks that Parse never panics and that whatever parses prints
// back to a source that parses, in the same dialect, to the same tree.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"P\nQ\nP ^ Q v !P => Q <=> P\n",
		"t = {A, B}\nA(t)\nEXIST x,y A(x) ^ !(x = y) ^ A(y)\n-1.5 A(+x).\n",
		"t = {0,...,3}\nn = {}\nH(t, n!)\nt f(t)\n3. H(f(x), y) v *H(x, y)\n@2 H(1, n)\n",
		"P\n(P)\nP.\nP => (P => P)\n",
		"A(v)\nA(v) v v = B\nFORALL v A(v)\n",
		"#include \"x.mln\"\n",
		// Linear cardinality constraints (issue 36).
		"A(t)\nB(t, t)\n|A| - 2 |B| != 3\n-1 |A| + |B| <= -2\n2 |A| = 4\n|A| -3 |B| > 1.\n",
		// Dialects (issue 24).
		"p(t)\nq(t)\nlog(0.9/0.1) p(x) => q(x)\n#fixweight\n2*3 q(x)\nP(p(x)) = 0.5\n",
		"g(t, u)\nt = {a1, b2}\n-5.5 g(?c, FLAKES_00.000_) ^ g(?c, ja!_) ^ ?c =/= a1\n#unique{+?a,+?b}\n0 g(+?a, x) ^ g(+?b, x)\n",
		"P(t)\nQ(t)\n*R(t)\n2 Q(x) :- P(x) ^ !R(x)\nQ(A) :- P(B).\nH(t)\nH(t) => H(t++).\n",
		// Nesting past MaxDepth: a positioned error, not a stack overflow.
		"P\n1 " + strings.Repeat("(", 2*MaxDepth) + "P" + strings.Repeat(")", 2*MaxDepth) + "\n",
		"P\n1 " + strings.Repeat("!", 3*MaxDepth) + "P\n",
		"t f(t)\nP(t)\n1 P(" + strings.Repeat("f(", 2*MaxDepth) + "x" + strings.Repeat(")", 2*MaxDepth) + ")\n",
		"P\n1 " + strings.Repeat("!(", MaxDepth/2) + "P" + strings.Repeat(")", MaxDepth/2) + "\n",
	}
	addSeeds(f, "testdata/*.mln", seeds)
	f.Fuzz(func(t *testing.T, src []byte) {
		defer func(old int64) { maxRange = old }(maxRange)
		maxRange = 1000
		// Includes resolve in memory only: never touch the disk.
		fsys := fstest.MapFS{
			"main.mln": {Data: src},
			"x.mln":    {Data: []byte("Q(t)\n")},
		}
		m, err := ParseFS(fsys, "main.mln")
		if m == nil {
			t.Fatal("nil MLN")
		}
		if err != nil {
			if !strings.Contains(err.Error(), "main.mln") && !strings.Contains(err.Error(), "x.mln") {
				t.Fatalf("error without position: %v", err)
			}
			return
		}
		printed := m.String()
		// The printed MLN has lost the syntax its dialect was detected
		// from (a weight expression prints as a number): name it.
		// So is pracmln's PRACGrammar, whose constants may be any
		// characters (0000A) where the printed copy has no ?x variable.
		m2, err := ParseWith(Options{Dialect: m.Dialect.Dialect, PracGrammar: m.Dialect.PracGrammar}, "printed.mln", []byte(printed))
		if err != nil {
			t.Fatalf("printed MLN does not parse: %v\ninput:\n%s\nprinted:\n%s", err, src, printed)
		}
		if d1, d2 := dumpMLN(m), dumpMLN(m2); d1 != d2 {
			t.Fatalf("round trip changed the tree\ninput:\n%s\nprinted:\n%s\nbefore:\n%s\nafter:\n%s", src, printed, d1, d2)
		}
	})
}

// FuzzReadDB checks that ReadDB never panics, and that whatever it reads
// can be looked up and, printed back, reads to the same atoms.
func FuzzReadDB(f *testing.F) {
	seeds := []string{
		"Friends(Anna, Bob)\n!Smokes(Bob)\n?Cancer(\"Carl Smith\")\nRaining\n",
		"Likes(Anna, Red)\nLikes(Anna, Blue)\n",
		"Seattle = cityOf(Anna)\n0.8 Smokes(Anna)\nSmoked(X, 007)\n",
		"/* c */ Smokes(A) // d\n\r\nSmokes(A)\n!Smokes(A)\n",
	}
	addSeeds(f, "testdata/*.db", seeds)
	m := smokersMLN(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		db, err := ReadDB(bytes.NewReader(src), "fuzz.db", m)
		if db == nil {
			t.Fatal("nil DB")
		}
		if err != nil {
			return
		}
		var out strings.Builder
		for _, a := range db.Atoms {
			if tv, ok := db.Lookup(a.Pred, a.Args); !ok || tv != a.Truth {
				t.Fatalf("%s not found", db.Format(a))
			}
			out.WriteString(db.Format(a) + "\n")
		}
		db2, err := ReadDB(strings.NewReader(out.String()), "printed.db", m)
		if err != nil {
			t.Fatalf("printed atoms do not read: %v\n%s", err, out.String())
		}
		if len(db2.Atoms) != len(db.Atoms) {
			t.Fatalf("%d atoms, then %d", len(db.Atoms), len(db2.Atoms))
		}
		for i, a := range db2.Atoms {
			if got, want := db2.Format(a), db.Format(db.Atoms[i]); got != want {
				t.Fatalf("atom %d: %s, then %s", i, want, got)
			}
		}
	})
}
