package ground_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lifted-dev/lifted/ground"
)

// ReadInput reads the MLN, its evidence and the query from -q values and
// query files alike; a query file without atoms is a *QueryError.
func TestReadInput(t *testing.T) {
	mlnPath, db := "../examples/mln/smokers.mln", "../examples/mln/smokers.db"
	dir := t.TempDir()
	qf := filepath.Join(dir, "q.txt")
	if err := os.WriteFile(qf, []byte("Cancer(Anna)\nCancer(Bob)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ground.ReadInput(mlnPath, []string{db}, []string{"Smokes"}, []string{qf})
	if err != nil {
		t.Fatal(err)
	}
	b, err := ground.ReadInput(mlnPath, []string{db}, []string{"Smokes", "Cancer(Anna),Cancer(Bob)"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Query.Len() != b.Query.Len() || a.Query.Len() == 0 || len(a.DB.Atoms) == 0 {
		t.Fatalf("query from a file: %d atoms, from -q: %d; %d evidence atoms", a.Query.Len(), b.Query.Len(), len(a.DB.Atoms))
	}
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var qe *ground.QueryError
	if _, err := ground.ReadInput(mlnPath, nil, nil, []string{empty}); !errors.As(err, &qe) {
		t.Fatalf("empty query file: %v, want a *QueryError", err)
	}
	if in, err := ground.ReadInput(mlnPath, nil, []string{"NoSuchPred"}, nil); !errors.As(err, &qe) || in.MLN == nil {
		t.Fatalf("unknown predicate: %v, want a *QueryError", err)
	}
}
