// Package calib checks that the samplers' claims are calibrated: on small
// models whose exact marginals enumeration gives (random frustrated Ising
// grids, random MLNs with hard formulas), every run that a sampler labels
// mixed should have its marginals within a few of its stated standard
// errors of the truth, and runs that cannot mix should be refused. The
// calibration test and experiments/sampling/calibration share it.
package calib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	_ "github.com/lifted-dev/lifted/infer/mcmc" // the samplers
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// Model is a test model and its exact marginals.
type Model struct {
	Family string
	Index  int
	Graph  *fg.Graph
	Exact  [][]float64
	// MLN is the first-order model (for lbg), nil for a factor graph.
	MLN *infer.Model
}

// Grids returns count random n×n frustrated Ising grids (couplings
// |J| ∈ [2, 2.5] of random sign, fields in [−0.5, 0.5]; gen.FrustratedGrid)
// from seed.
func Grids(seed uint64, n, count int) []Model {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	var out []Model
	for i := range count {
		g := gen.FrustratedGrid(r, n, 2, 2.5, 0.5)
		out = append(out, Model{Family: fmt.Sprintf("grid%dx%d", n, n), Index: i, Graph: g, Exact: brute.Solve(g, nil).Marginals})
	}
	return out
}

// MLNs returns count random small MLNs (gen.SmallMLN, the first formula
// hard, about a third of the others) whose grounding has 2 to 14
// variables and some world of positive weight, from seed.
func MLNs(seed uint64, count int) ([]Model, error) {
	r := rand.New(rand.NewPCG(seed, 99))
	var out []Model
	for len(out) < count {
		src, db := gen.SmallMLN(r, gen.MLNShape{Formulas: 3, HardOneIn: 3, FirstHard: true})
		m, err := mlnfile.Parse("r.mln", []byte(src))
		if err != nil {
			return nil, err
		}
		d, err := mlnfile.ReadDB(strings.NewReader(db), "r.db", m)
		if err != nil {
			return nil, err
		}
		var preds []string
		for _, p := range m.Preds {
			preds = append(preds, p.Name)
		}
		gr, err := ground.Ground(context.Background(), m, d, ground.Options{Query: preds})
		if errors.Is(err, ground.ErrContradiction) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%v\n%s", err, src)
		}
		g := gr.Graph
		if g.NumVars() < 2 || g.NumVars() > 14 {
			continue
		}
		ex := brute.Solve(g, nil)
		if math.IsInf(ex.LogZ, -1) || math.IsNaN(ex.LogZ) {
			continue
		}
		md := &infer.Model{MLN: m, DB: d, Closed: gr.Closed, Graph: g, Weights: make([]float64, len(m.Formulas)), Grounding: gr}
		for j, f := range m.Formulas {
			md.Weights[j] = f.Weight
		}
		for v := range gr.NumAtoms { // every ground atom (not the auxiliary variables) is queried
			md.Queries = append(md.Queries, infer.QueryAtom{Name: gr.AtomName(int32(v)), Var: int32(v)})
		}
		out = append(out, Model{Family: "mln-hard", Index: len(out), Graph: g, Exact: ex.Marginals, MLN: md})
	}
	return out, nil
}

// Run is one sampler run on one model and its comparison with the truth.
type Run struct {
	Family, Method string
	Model          int
	Seed           uint64
	// Err is the run's error (a start that found no world, a method that
	// does not apply); Mixed says the sampler labelled the run mixed
	// (Answer.Converged), else it was refused.
	Err   error
	Mixed bool
	// MaxErr is the largest |belief − exact| over the compared entries;
	// Pairs the compared entries (one per binary variable, every state
	// of others; variables the answer gives no belief skipped) and Within
	// those within K standard errors plus 1/N of the truth.
	MaxErr        float64
	Pairs, Within int
	Samples       int
	RHat          float64
	Seconds       float64
}

// K is the number of stated standard errors a marginal may be off.
const K = 4

// Do runs method (with props) on m under seed and compares it with the
// truth.
func Do(ctx context.Context, m Model, method string, props infer.Properties, seed uint64) Run {
	run := Run{Family: m.Family, Method: method, Model: m.Index, Seed: seed}
	alg, _, err := infer.New(method, props)
	if err != nil {
		run.Err = err
		return run
	}
	q := infer.Query{Task: infer.Marginals, Seed: seed}
	start := time.Now()
	var ans *infer.Answer
	if fo, ok := alg.(infer.FirstOrder); ok {
		if m.MLN == nil {
			run.Err = errors.New(method + " needs an MLN")
			return run
		}
		ans, err = fo.RunModel(ctx, m.MLN, q)
	} else {
		var c *lift.Compressed
		if c, err = lift.Ground(m.Graph, nil); err == nil {
			ans, err = alg.Run(ctx, c, q)
		}
	}
	run.Seconds = time.Since(start).Seconds()
	if err != nil {
		run.Err = err
		return run
	}
	run.Mixed = ans.Converged
	run.Samples, run.RHat = ans.Stats.Samples, ans.Stats.RHat
	n := float64(max(ans.Stats.Samples, 1))
	for v := range m.Graph.NumVars() {
		b := ans.Marginal(v)
		lo := ans.NodeOff[ans.Graph.NodeOf[v]]
		states := []int{1}
		if len(b) != 2 {
			states = states[:0]
			for s := range b {
				states = append(states, s)
			}
		}
		for _, s := range states {
			if math.IsNaN(b[s]) {
				continue
			}
			d := math.Abs(b[s] - m.Exact[v][s])
			run.MaxErr = max(run.MaxErr, d)
			run.Pairs++
			se := math.Inf(1)
			if ans.StdErr != nil {
				se = ans.StdErr[lo+s]
			}
			if d <= K*se+1/n {
				run.Within++
			}
		}
	}
	return run
}

// Tally is the summary of runs of one family and method.
type Tally struct {
	Family, Method string
	Runs, Errors   int
	Mixed          int // runs labelled mixed
	MixedWithin    int // of them, every compared entry within its error
	Pairs, Within  int // (run, entry) pairs of mixed runs, and those within
	MaxErr         float64
	MaxErrMixed    float64
}

// Add counts a run.
func (t *Tally) Add(r Run) {
	t.Family, t.Method = r.Family, r.Method
	t.Runs++
	if r.Err != nil {
		t.Errors++
		return
	}
	t.MaxErr = max(t.MaxErr, r.MaxErr)
	if !r.Mixed {
		return
	}
	t.Mixed++
	t.MaxErrMixed = max(t.MaxErrMixed, r.MaxErr)
	t.Pairs += r.Pairs
	t.Within += r.Within
	if r.Within == r.Pairs {
		t.MixedWithin++
	}
}

// Fraction is the share of the mixed runs' (run, entry) pairs within their
// error (1 when there are none).
func (t *Tally) Fraction() float64 {
	if t.Pairs == 0 {
		return 1
	}
	return float64(t.Within) / float64(t.Pairs)
}
