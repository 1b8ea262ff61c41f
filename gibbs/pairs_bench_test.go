package gibbs_test

import (
	"context"
	"math/rand/v2"
	"os"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/internal/shareddata"
)

func TestMain(m *testing.M) { os.Exit(shareddata.Run(m)) }

// uwcse returns UW-CSE's advisedBy grounding (issue 35), a chain on it
// from a random world and its pair moves.
func uwcse(b *testing.B) (*gibbs.Chain, *gibbs.Pairs, *rand.Rand) {
	dir := shareddata.Need(b, "mln", "uwcse", "tuffy-cse") + "/"
	m, err := mlnfile.ParseFile(dir + "prog.mln")
	if err != nil {
		b.Fatal(err)
	}
	db, err := mlnfile.ReadDBFiles(m, dir+"evidence.db")
	if err != nil {
		b.Fatal(err)
	}
	gr, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []string{"advisedBy"}})
	if err != nil {
		b.Fatal(err)
	}
	g := gr.Graph
	rng := rand.New(rand.NewPCG(1, 2))
	x := make([]int32, g.NumVars())
	if err := gibbs.Start(g, nil, x, rng); err != nil {
		b.Fatal(err)
	}
	ch, err := gibbs.NewChain(g, nil, x)
	if err != nil {
		b.Fatal(err)
	}
	return ch, gibbs.NewPairs(g, nil), rng
}

// BenchmarkPairSweepAllUWCSE is one Gibbs step with pair moves
// (PairSweepAll, Rao-Blackwellised terms written) on UW-CSE's advisedBy
// grounding: the bulk of auto's sampler time there.
func BenchmarkPairSweepAllUWCSE(b *testing.B) {
	ch, p, rng := uwcse(b)
	cond := make([]float64, ch.Offsets()[len(ch.State())])
	b.ResetTimer()
	for range b.N {
		ch.PairSweepAll(rng, p, cond)
	}
}

// BenchmarkLogScoreUWCSE is the log-score of a world of UW-CSE's
// grounding, which the samplers' diagnostics read at every kept step.
func BenchmarkLogScoreUWCSE(b *testing.B) {
	ch, _, _ := uwcse(b)
	ch.LogScore()
	b.ResetTimer()
	for range b.N {
		ch.LogScore()
	}
}
