package orbit

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/internal/gen"
)

func groundMLN(t *testing.T, src, db string, query []string) *ground.Grounding {
	t.Helper()
	m, err := mlnfile.Parse("t.mln", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "t.db", m)
	if err != nil {
		t.Fatalf("%v\n%s", err, db)
	}
	gr, err := ground.Ground(context.Background(), m, d, ground.Options{Query: query})
	if err != nil {
		return nil
	}
	return gr
}

// refines reports whether partition a refines partition b (every class of a
// inside a class of b).
func refines(a, b []int32) bool {
	to := map[int32]int32{}
	for i, x := range a {
		if y, ok := to[x]; ok && y != b[i] {
			return false
		}
		to[x] = b[i]
	}
	return true
}

func checkRenaming(t *testing.T, name string, gr *ground.Grounding, fixed []int32) *Result {
	t.Helper()
	ctx := context.Background()
	ren, err := RenamingStabiliser(ctx, gr, fixed)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	for i, p := range ren.Generators {
		if !IsSymmetry(gr.Graph, nil, p) {
			t.Fatalf("%s: generator %d is not a symmetry", name, i)
		}
		for _, v := range fixed {
			if p.Var[v] != v {
				t.Fatalf("%s: generator %d moves fixed variable %d", name, i, v)
			}
		}
	}
	aut, err := Stabiliser(ctx, gr.Graph, nil, fixed, Options{})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if !refines(ren.VarOrbit, aut.VarOrbit) || !refines(ren.FactorOrbit, aut.FactorOrbit) {
		t.Fatalf("%s: renaming orbits %v %v not inside automorphism orbits %v %v", name, ren.VarOrbit, ren.FactorOrbit, aut.VarOrbit, aut.FactorOrbit)
	}
	return ren
}

func TestRenamingInsideAutomorphisms(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	tested, moved := 0, 0
	for trial := 0; trial < 400 && tested < 150; trial++ {
		src, db := gen.SmallMLN(r, gen.MLNShape{Formulas: 3, HardOneIn: 4})
		// Widen the domain so that some constants are interchangeable.
		src = strings.Replace(src, "t = {", "t = {D, E, ", 1)
		if r.IntN(2) == 0 {
			src += "0.5 R(x, A)\n"
		}
		gr := groundMLN(t, src, db, []string{"P", "Q", "R"})
		if gr == nil || gr.Graph.NumVars() == 0 {
			continue
		}
		tested++
		ren := checkRenaming(t, "mln", gr, nil)
		if ren.NumVarOrbits < gr.Graph.NumVars() {
			moved++
		}
		checkRenaming(t, "mln stabiliser", gr, []int32{int32(r.IntN(gr.Graph.NumVars()))})
	}
	if tested < 100 || moved < tested/2 {
		t.Fatalf("%d MLNs tested, %d with a non-trivial renaming group: too weak", tested, moved)
	}
}

const smokers2 = `person = {%s}
Smokes(person)
Cancer(person)
Friends(person, person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)
`

func people(n int) string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf("P%d", i))
	}
	return strings.Join(s, ", ")
}

// The renaming orbits of the smokers MLN with evidence on two people are
// the same in number for every domain size past the distinguished ones. (The
// automorphism orbits are coarser here: atoms that evidence leaves in no
// factor, such as Friends(x, P0), are interchangeable in the graph.)
func TestRenamingDomainSize(t *testing.T) {
	db := "Smokes(P0)\nFriends(P0, P1)\n"
	var counts [][2]int
	for _, n := range []int{4, 5, 7, 10} {
		gr := groundMLN(t, fmt.Sprintf(smokers2, people(n)), db, []string{"Smokes", "Cancer", "Friends"})
		if gr == nil {
			t.Fatal("grounding failed")
		}
		ren := checkRenaming(t, fmt.Sprintf("smokers %d", n), gr, nil)
		counts = append(counts, [2]int{ren.NumVarOrbits, ren.NumFactorOrbits})
		if want := math.Gamma(float64(n - 2 + 1)); ren.Stats.GroupSize != want {
			t.Errorf("smokers %d: group size %v, want (n-2)! = %v", n, ren.Stats.GroupSize, want)
		}
	}
	for _, c := range counts[1:] {
		if c != counts[0] {
			t.Fatalf("orbit counts depend on the domain size: %v", counts)
		}
	}
	// Orbits of variables, counted by hand: Smokes and Cancer of P1 and of
	// the rest (P0's Smokes is evidence): Cancer(P0), Smokes(P1),
	// Cancer(P1), Smokes(x), Cancer(x); Friends(a,b) for a,b in {P0, P1, x}
	// with x, y other people: (P0,P0) (P1,P0) (P1,P1) (P0,x) (x,P0) (P1,x)
	// (x,P1) (x,x) (x,y) — P0,P1 being evidence (not a variable).
	if counts[0][0] != 5+9 {
		t.Errorf("smokers: %d variable orbits, want 14", counts[0][0])
	}
}

func TestRenamingExample(t *testing.T) {
	ctx := context.Background()
	m, err := mlnfile.ParseFile("../../examples/mln/smokers.mln")
	if err != nil {
		t.Skip("examples/mln/smokers.mln not readable:", err)
	}
	d, err := mlnfile.ReadDBFiles(m, "../../examples/mln/smokers.db")
	if err != nil {
		t.Fatal(err)
	}
	gr, err := ground.Ground(ctx, m, d, ground.Options{Query: []string{"Cancer"}})
	if err != nil {
		t.Fatal(err)
	}
	ren := checkRenaming(t, "smokers example", gr, nil)
	t.Logf("smokers example: %d variables in %d renaming orbits, %d factors in %d", gr.Graph.NumVars(), ren.NumVarOrbits, gr.Graph.NumFactors(), ren.NumFactorOrbits)
}
