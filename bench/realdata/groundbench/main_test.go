package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
)

// TestDistinctFactors checks the count of factors up to weight against a
// hand count: per constant, "P v Q" and "Q v P" (other weight, other
// literal order) are one clause, "!P v Q" another, so 2 constants give 4
// distinct factors out of 6 ground formulas.
func TestDistinctFactors(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "t.mln")
	db := filepath.Join(dir, "t.db")
	if err := os.WriteFile(prog, []byte("R(dom)\nP(dom)\nQ(dom)\n1 P(x) v Q(x)\n2 Q(x) v P(x)\n3 !P(x) v Q(x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, []byte("R(A)\nR(B)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := mlnfile.ParseFile(prog)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := mlnfile.ReadDBFiles(m, db)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := ground.Ground(context.Background(), m, ev, ground.Options{Query: []string{"P", "Q"}, MaxGround: -1})
	if err != nil {
		t.Fatal(err)
	}
	if gr.NumFormulas != 6 {
		t.Fatalf("ground formulas = %d, want 6", gr.NumFormulas)
	}
	n, aux := distinctFactors(gr)
	if n != 4 || aux != 0 {
		t.Fatalf("distinct factors = %d (aux %d), want 4 (0)", n, aux)
	}
}
