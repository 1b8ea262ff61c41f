//go:build nauty

package orbit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/internal/gen"
)

// compareNauty checks the pure-Go orbits and group order against nauty's.
func compareNauty(t *testing.T, name string, g *Graph, fixed []int32) {
	t.Helper()
	ctx := context.Background()
	goRes, err := Automorphisms(ctx, g, fixed, Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	nRes, err := Automorphisms(ctx, g, fixed, Options{Engine: "nauty"})
	if err != nil {
		t.Fatalf("%s: nauty: %v", name, err)
	}
	checkResult(t, g, fixed, nRes)
	if !slices.Equal(goRes.Orbit, nRes.Orbit) {
		t.Fatalf("%s: orbits differ from nauty's:\n go    %v\n nauty %v", name, goRes.Orbit, nRes.Orbit)
	}
	if a, b := goRes.Stats.GroupSize, nRes.Stats.GroupSize; math.Abs(a-b) > 1e-9*b {
		t.Fatalf("%s: group order %v, nauty %v", name, a, b)
	}
}

func TestNautyOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 500 {
		var g *Graph
		switch trial % 3 {
		case 0:
			g = randomColoured(r, 1+r.IntN(40), 1+r.IntN(3), r.Float64()*0.3)
		case 1:
			g = randomColoured(r, 1+r.IntN(30), 1, 0.5)
		default:
			g = symmetricRandom(r, 1+r.IntN(6), 2+r.IntN(5))
		}
		var fixed []int32
		if trial%2 == 1 {
			fixed = []int32{int32(r.IntN(g.N()))}
		}
		compareNauty(t, fmt.Sprintf("random %d", trial), g, fixed)
	}
	compareNauty(t, "Petersen", petersen(), nil)
	compareNauty(t, "Frucht", frucht(), nil)
	for _, k := range []int{2, 3, 8, 25, 60} {
		compareNauty(t, fmt.Sprintf("grid %d", k), grid(k, k, false), nil)
		compareNauty(t, fmt.Sprintf("grid %d fixing a vertex", k), grid(k, k, false), []int32{int32(k / 2)})
	}
	for _, k := range []int{3, 4, 5, 12, 40} {
		compareNauty(t, fmt.Sprintf("torus %d", k), grid(k, k, true), nil)
		compareNauty(t, fmt.Sprintf("torus %d fixing a vertex", k), grid(k, k, true), []int32{0})
	}
	compareNauty(t, "torus 7×3", grid(7, 3, true), nil)
	// Encoded factor graphs: small MLN groundings and smokers.
	for trial := 0; trial < 100; trial++ {
		src, db := gen.SmallMLN(r, gen.MLNShape{Formulas: 4, HardOneIn: 4})
		fgr, err := gen.GroundSmallMLN(src, db, 0, 100)
		if err != nil {
			t.Fatal(err)
		}
		if fgr == nil {
			continue
		}
		enc, err := Encode(fgr, nil)
		if err != nil {
			t.Fatal(err)
		}
		compareNauty(t, "mln\n"+src, enc.Graph, nil)
	}
	for _, n := range []int{3, 6, 10} {
		enc, err := Encode(gen.Smokers(n, 1.5, 1.1), nil)
		if err != nil {
			t.Fatal(err)
		}
		compareNauty(t, fmt.Sprintf("smokers %d", n), enc.Graph, nil)
	}
}
