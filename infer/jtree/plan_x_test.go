package jtree_test

import (
	"context"
	"os"
	"testing"

	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer/jtree"
	"github.com/lifted-dev/lifted/internal/shareddata"
)

// TestPlanTieBreaks: trying both tie-breaks of min-fill keeps Pedigree_11
// (no evidence) at treewidth 21, a 2^22-entry table; the smallest-table
// tie-break alone gives treewidth 24 (2^25 entries).
func TestPlanTieBreaks(t *testing.T) {
	path := shareddata.Need(t, "uai", "Pedigree_11.uai")
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
	if p.Largest > 1<<22 || !p.Complete {
		t.Errorf("Pedigree_11: %s", p.Describe())
	}
}
