package orbit

import (
	"context"
	"fmt"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
)

// twoStar grounds the paper's semi-transitive model (Section 9): a 2-star
// with a shared predicate, w1 Pred(x,y) ^ Pred(x,z) (w1 < 0), w2 Pred(x,y),
// and one observed atom Pred(A,B), over n constants.
func twoStar(tb testing.TB, n int) *ground.Grounding {
	tb.Helper()
	cs := []string{"A", "B"}
	for i := 2; i < n; i++ {
		cs = append(cs, fmt.Sprintf("C%d", i))
	}
	src := fmt.Sprintf("t = {%s}\nPred(t, t)\n-0.5 Pred(x, y) ^ Pred(x, z)\n0.3 Pred(x, y)\n", strings.Join(cs, ", "))
	m, err := mlnfile.Parse("twostar.mln", []byte(src))
	if err != nil {
		tb.Fatal(err)
	}
	db, err := mlnfile.ReadDB(strings.NewReader("Pred(A, B)\n"), "twostar.db", m)
	if err != nil {
		tb.Fatal(err)
	}
	gr, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []string{"Pred"}})
	if err != nil {
		tb.Fatal(err)
	}
	return gr
}

func engines() []string {
	if NautyAvailable {
		return []string{"go", "nauty"}
	}
	return []string{"go"}
}

// Run with: go test -tags nauty -run '^$' -bench . ./lift/orbit/
// (without the tag only the pure-Go engine runs).
func BenchmarkGrid(b *testing.B) {
	for _, k := range []int{30, 100, 200} {
		g := grid(k, k, false)
		for _, e := range engines() {
			b.Run(fmt.Sprintf("k=%d/%s", k, e), func(b *testing.B) {
				for b.Loop() {
					if _, err := Automorphisms(context.Background(), g, nil, Options{Engine: e}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkTorus(b *testing.B) {
	for _, k := range []int{30, 100} {
		g := grid(k, k, true)
		for _, e := range engines() {
			b.Run(fmt.Sprintf("k=%d/%s", k, e), func(b *testing.B) {
				for b.Loop() {
					if _, err := Automorphisms(context.Background(), g, nil, Options{Engine: e}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkTwoStar(b *testing.B) {
	for _, n := range []int{5, 10, 15} {
		gr := twoStar(b, n)
		enc, err := Encode(gr.Graph, nil)
		if err != nil {
			b.Fatal(err)
		}
		for _, e := range engines() {
			if e == "nauty" && n > 10 {
				continue // nauty takes minutes here (3.3 s at n = 10)
			}
			b.Run(fmt.Sprintf("n=%d/%s", n, e), func(b *testing.B) {
				for b.Loop() {
					if _, err := Automorphisms(context.Background(), enc.Graph, nil, Options{Engine: e}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		b.Run(fmt.Sprintf("n=%d/renaming", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := Renaming(context.Background(), gr); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The 2-star's renaming orbits lie inside its automorphism orbits and their
// number is independent of n once n-2 ≥ 3 (a formula has three variables):
// A and B are distinguished by the evidence.
func TestTwoStar(t *testing.T) {
	var counts [][2]int
	for _, n := range []int{5, 6, 9} { // at least 3 free constants: a formula has 3 variables
		gr := twoStar(t, n)
		ren := checkRenaming(t, fmt.Sprintf("2-star %d", n), gr, nil)
		aut, err := FactorGraph(context.Background(), gr.Graph, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// The ground graph is one clique of pairwise factors per first
		// argument x, the cliques not joined to each other, so its
		// automorphisms permute the rows x ≠ A and, independently within
		// each row, the atoms: two variable orbits, Pred(A, ·) (whose
		// factors with the observed Pred(A, B) became unit factors) and
		// the rest. Renamings move a column in all rows at once (9 orbits).
		if aut.NumVarOrbits != 2 || ren.NumVarOrbits != 9 {
			t.Errorf("2-star %d: %d automorphism orbits, %d renaming orbits; want 2 and 9", n, aut.NumVarOrbits, ren.NumVarOrbits)
		}
		counts = append(counts, [2]int{ren.NumVarOrbits, ren.NumFactorOrbits})
	}
	for _, c := range counts[1:] {
		if c != counts[0] {
			t.Fatalf("orbit counts depend on n: %v", counts)
		}
	}
}
