package orbit

import (
	"context"
	"testing"
)

func mustGraph(n int, edges [][2]int32) *Graph {
	g, err := NewGraph(make([]int32, n), edges)
	if err != nil {
		panic(err)
	}
	return g
}

func petersen() *Graph {
	var e [][2]int32
	for i := range int32(5) {
		e = append(e, [2]int32{i, (i + 1) % 5}, [2]int32{5 + i, 5 + (i+2)%5}, [2]int32{i, 5 + i})
	}
	return mustGraph(10, e)
}

// frucht is the Frucht graph from its LCF notation [-5,-2,-4,2,5,-2,2,5,-2,-5,4,2]:
// cubic, 12 vertices, trivial automorphism group.
func frucht() *Graph {
	lcf := []int32{-5, -2, -4, 2, 5, -2, 2, 5, -2, -5, 4, 2}
	var e [][2]int32
	for i := range int32(12) {
		e = append(e, [2]int32{i, (i + 1) % 12})
		if j := (i + lcf[i] + 12) % 12; i < j {
			e = append(e, [2]int32{i, j})
		}
	}
	return mustGraph(12, e)
}

// grid is the w×h grid graph (torus when wrap), vertex y*w+x.
func grid(w, h int, wrap bool) *Graph {
	var e [][2]int32
	id := func(x, y int) int32 { return int32(y*w + x) }
	for y := range h {
		for x := range w {
			if x+1 < w || wrap {
				e = append(e, [2]int32{id(x, y), id((x+1)%w, y)})
			}
			if y+1 < h || wrap {
				e = append(e, [2]int32{id(x, y), id(x, (y+1)%h)})
			}
		}
	}
	return mustGraph(w*h, e)
}

func TestKnownGraphs(t *testing.T) {
	ctx := context.Background()
	run := func(g *Graph) *GraphResult {
		t.Helper()
		res, err := Automorphisms(ctx, g, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, g, nil, res)
		return res
	}
	if r := run(petersen()); r.NumOrbits != 1 || r.Stats.GroupSize != 120 {
		t.Errorf("Petersen: %d orbits, group %v; want 1 and 120", r.NumOrbits, r.Stats.GroupSize)
	}
	f := frucht()
	for v := range int32(12) {
		if len(f.Neighbours(v)) != 3 {
			t.Fatalf("Frucht graph not cubic at %d", v)
		}
	}
	if r := run(f); r.NumOrbits != 12 || r.Stats.GroupSize != 1 {
		t.Errorf("Frucht: %d orbits, group %v; want 12 and 1", r.NumOrbits, r.Stats.GroupSize)
	}
	for _, k := range []int{2, 3, 4, 7, 10, 31} {
		r := run(grid(k, k, false))
		// Orbits of the dihedral group: the unordered pair of distances to
		// the nearest vertical and horizontal border.
		key := map[[2]int]int32{}
		for y := range k {
			for x := range k {
				a, b := min(x, k-1-x), min(y, k-1-y)
				kk := [2]int{min(a, b), max(a, b)}
				o, ok := key[kk]
				if !ok {
					o = r.Orbit[y*k+x]
					key[kk] = o
				}
				if r.Orbit[y*k+x] != o {
					t.Fatalf("grid %d: vertex (%d,%d) in orbit %d, want %d", k, x, y, r.Orbit[y*k+x], o)
				}
			}
		}
		if r.NumOrbits != len(key) || r.Stats.GroupSize != 8 {
			t.Errorf("grid %d: %d orbits, group %v; want %d and 8", k, r.NumOrbits, r.Stats.GroupSize, len(key))
		}
	}
	for _, k := range []int{5, 6, 9, 20} {
		r := run(grid(k, k, true))
		if want := float64(8 * k * k); r.NumOrbits != 1 || r.Stats.GroupSize != want {
			t.Errorf("torus %d: %d orbits, group %v; want 1 and %v", k, r.NumOrbits, r.Stats.GroupSize, want)
		}
	}
	// A 3×5 torus: translations and the two reflections, no rotation.
	if r := run(grid(5, 3, true)); r.NumOrbits != 1 || r.Stats.GroupSize != 4*15 {
		t.Errorf("torus 5×3: %d orbits, group %v; want 1 and 60", r.NumOrbits, r.Stats.GroupSize)
	}
}

func TestLargeGraphs(t *testing.T) {
	if testing.Short() {
		t.Skip("large graphs skipped in -short")
	}
	ctx := context.Background()
	for _, c := range []struct {
		name  string
		g     *Graph
		orbit int
		group float64
	}{
		{"grid 100×100", grid(100, 100, false), 50 * 51 / 2, 8},
		{"torus 100×100", grid(100, 100, true), 1, 8 * 100 * 100},
	} {
		res, err := Automorphisms(ctx, c.g, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.NumOrbits != c.orbit || res.Stats.GroupSize != c.group {
			t.Errorf("%s: %d orbits, group %v; want %d and %v", c.name, res.NumOrbits, res.Stats.GroupSize, c.orbit, c.group)
		}
		t.Logf("%s: %+v", c.name, res.Stats)
	}
}
