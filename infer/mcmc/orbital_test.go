package mcmc

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/gen"
)

// groundDeskmate grounds gen.Deskmate(n, w) and returns its graph with the
// closed-form marginal P(atom = 1) of every variable.
func groundDeskmate(t *testing.T, n int, w float64) (*fg.Graph, []float64) {
	t.Helper()
	m, err := mlnfile.Parse("desk.mln", []byte(gen.Deskmate(n, w)))
	if err != nil {
		t.Fatal(err)
	}
	gr, err := ground.Ground(context.Background(), m, nil, ground.Options{Query: []string{"mate", "fr"}})
	if err != nil {
		t.Fatal(err)
	}
	g := gr.Graph
	want := make([]float64, g.NumVars())
	for v := range g.NumVars() {
		want[v] = math.NaN()
		if v < gr.NumAtoms {
			want[v] = gen.DeskmateMarginal(n, w, gr.AtomName(int32(v)))
		}
	}
	return g, want
}

// TestOrbitalDeskmate: on the matching model of 6 students Gibbs's single
// flips never leave the perfect matching it starts in (refused), and the
// orbital sampler's orbit moves jump between matchings: labelled mixed and
// every marginal within 4 standard errors of the closed form.
func TestOrbitalDeskmate(t *testing.T) {
	g, want := groundDeskmate(t, 6, 1.5)
	if a := run(t, "gibbs", nil, g, 1); a.Converged {
		t.Errorf("gibbs labelled mixed on the matching model")
	} else if !strings.Contains(a.Stats.Mixing, "--method orbital") {
		t.Errorf("gibbs's refusal does not name orbital: %s", a.Stats.Mixing)
	}
	a := run(t, "orbital", nil, g, 1)
	if !a.Converged {
		t.Fatalf("orbital not mixed: %s", a.Stats.Mixing)
	}
	for v, p := range want {
		if math.IsNaN(p) {
			continue
		}
		se := a.StdErr[a.NodeOff[v]+1]
		if d := math.Abs(a.Marginal(v)[1] - p); d > 4*se+1/float64(a.Stats.Samples) {
			t.Errorf("variable %d: %.4f ± %.4f, closed form %.4f", v, a.Marginal(v)[1], se, p)
		}
	}
}

// TestSymmetriesAreSymmetries: the group elements the orbital sampler
// draws are permutations that keep the weight of random worlds.
func TestSymmetriesAreSymmetries(t *testing.T) {
	g, _ := groundDeskmate(t, 6, 0.7)
	gens, note, err := modelSymmetries(context.Background(), g, nil)
	if err != nil || note != "" {
		t.Fatalf("symmetries: %v %s", err, note)
	}
	r := rand.New(rand.NewPCG(1, 2))
	s := newSymmetries(gens, g.NumVars(), r)
	x := make([]int32, g.NumVars())
	y := make([]int32, g.NumVars())
	scratch := make([]int32, g.NumVars())
	moved := 0
	for range 200 {
		p := s.next()
		seen := make([]bool, len(p))
		for _, w := range p {
			if seen[w] {
				t.Fatal("not a permutation")
			}
			seen[w] = true
		}
		for v := range x {
			x[v] = int32(r.IntN(2))
		}
		if err := gibbs.StartAt(g, nil, x, r); err != nil { // a matching, random fr
			t.Fatal(err)
		}
		copy(y, x)
		apply(y, p, scratch)
		if wx, wy := weight(g, x), weight(g, y); !(wx > 0) || math.Abs(wx-wy) > 1e-9*wx {
			t.Fatalf("weight %g became %g", wx, wy)
		}
		for v := range x {
			if x[v] != y[v] {
				moved++
				break
			}
		}
	}
	if moved < 100 {
		t.Errorf("only %d of 200 draws moved a random world", moved)
	}
	if _, _, err := infer.New("orbital", infer.Properties{"max-samples": "x"}); err == nil {
		t.Error("max-samples=x accepted")
	}
}
