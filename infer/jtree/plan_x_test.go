package jtree_test

import (
	"context"
	"os"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer/jtree"
	"github.com/lifted-dev/lifted/internal/shareddata"
)

// TestPlanTieBreaks: min-fill with one tie-break gives Pedigree_11 (no
// evidence) a 2^25-entry table and the other 2^22, and Promedus_14 2^27
// with either; the seeded restarts find 2^19 and 2^24, and the plan is
// the same on every call.
func TestPlanTieBreaks(t *testing.T) {
	for _, c := range []struct {
		name    string
		largest float64
	}{{"Pedigree_11", 1 << 19}, {"Promedus_14", 1 << 24}} {
		path := shareddata.Need(t, "uai", c.name+".uai")
		f, err := os.Open(path)
		if err != nil {
			t.Skipf("shared UAI data not found (%v)", err)
		}
		m, err := uai.Read(f, path)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		p, err := jtree.NewPlan(context.Background(), m.Graph, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if p.Largest > c.largest || !p.Complete {
			t.Errorf("%s: %s", c.name, p.Describe())
		}
		q, err := jtree.NewPlan(context.Background(), m.Graph, nil, 0)
		if err != nil || !slices.Equal(p.Order, q.Order) {
			t.Errorf("%s: two plans differ (%v)", c.name, err)
		}
	}
}
