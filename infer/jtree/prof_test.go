package jtree_test

import (
	"context"
	"os"
	"testing"

	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/jtree"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/lift"
)

func BenchmarkSegmentation11(b *testing.B) {
	path := shareddata.Need(b, "uai", "Segmentation_11.uai")
	f, err := os.Open(path)
	if err != nil {
		b.Skip(err)
	}
	m, err := uai.Read(f, path)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	c, _ := lift.Ground(m.Graph, nil)
	for range b.N {
		if _, err := (jtree.JTree{}).Run(context.Background(), c, infer.Query{}); err != nil {
			b.Fatal(err)
		}
	}
}
