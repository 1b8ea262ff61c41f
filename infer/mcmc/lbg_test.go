package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lbg"
	"github.com/lifted-dev/lifted/mln"
)

// lbgModel parses an MLN and its evidence, grounds it with every predicate
// queried (the independent truth's graph) and returns the infer.Model.
func lbgModel(t *testing.T, src, db string) (*infer.Model, *ground.Grounding, error) {
	t.Helper()
	m, err := mlnfile.Parse("r.mln", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "r.db", m)
	if err != nil {
		t.Fatal(err)
	}
	var preds []string
	for _, p := range m.Preds {
		preds = append(preds, p.Name)
	}
	gr, err := ground.Ground(context.Background(), m, d, ground.Options{Query: preds})
	if err != nil {
		return nil, nil, err
	}
	md := &infer.Model{MLN: m, DB: d, Closed: gr.Closed, Graph: gr.Graph, Weights: make([]float64, len(m.Formulas))}
	for j, f := range m.Formulas {
		md.Weights[j] = f.Weight
	}
	for _, q := range gr.Queries {
		md.Queries = append(md.Queries, infer.QueryAtom{Name: q.Name, Var: q.Var})
	}
	return md, gr, nil
}

// TestLBGAgainstEnumeration: LBG's marginals on random small MLNs (hard
// formulas, evidence; gen.SmallMLN) are within the same
// effective-sample-size bound of enumeration as the other samplers'
// (checkAgainstEnumeration): 5 batch-means standard errors (plus 3/N for
// states of tiny probability no chain visits, see below). Half the
// models use Algorithm 2's clusters (merged clusters are ground or, of
// two predicates, lifted), half one atom per cluster; a third take the
// test's grounding (Options.Grounding) instead of grounding again.
func TestLBGAgainstEnumeration(t *testing.T) {
	lbgAgainstEnumeration(t, rand.New(rand.NewPCG(5, 17)), randomMLN, func(trial int) lbg.Options {
		return lbg.Options{NoMerge: trial%2 == 0, BlockSize: 3}
	}, true)
}

// TestLBGMultiAgainstEnumeration: the same on random MLNs of the paper's
// M1 and M3 shapes and stars (gen.ChainMLN: evidence, hard formulas) with
// the cluster {R,S} (stars: {R,S,U}) lifted (power rule and atom
// counting).
func TestLBGMultiAgainstEnumeration(t *testing.T) {
	kind := 0
	lbgAgainstEnumeration(t, rand.New(rand.NewPCG(8, 3)), func(r *rand.Rand) (string, string) {
		kind = r.IntN(3)
		return gen.ChainMLN(r, kind)
	}, func(int) lbg.Options {
		cl := []string{"R", "S"}
		if kind == 2 {
			cl = append(cl, "U")
		}
		return lbg.Options{Clusters: [][]string{cl}, BlockSize: 3}
	}, false)
}

// lbgAgainstEnumeration runs LBG with the options of each trial on 24
// models drawn by model that ground to at most 14 variables; wantGround
// asks for both ground and lifted clusters among them, otherwise every
// cluster must be lifted and every model have one of several predicates
// (models whose evidence leaves none are skipped).
func lbgAgainstEnumeration(t *testing.T, r *rand.Rand, model func(*rand.Rand) (string, string), opts func(trial int) lbg.Options, wantGround bool) {
	t.Helper()
	// Batch means cannot see states a chain never visits: when P(v) has a
	// part of probability below about 3/N from states the 16000 samples
	// missed (a hard formula that almost never lets an atom be true, e.g.
	// a marginal of 1.4e-5), the per-step conditionals hardly vary and the
	// estimated s.e. is ~1e-8 while the error is that part. So the bound
	// adds the rule of three, 3/N, to 5 s.e.
	const rare = 3.0 / 16000
	st := &boundStats{minESS: math.Inf(1)}
	models, lifted, groundC, pairs, reused := 0, 0, 0, 0, 0
	for trial := 0; models < 24 && trial < 200; trial++ {
		src, db := model(r)
		m, gr, err := lbgModel(t, src, db)
		if errors.Is(err, ground.ErrContradiction) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if gr.Graph.NumVars() > 14 || gr.Graph.NumVars() == 0 {
			continue
		}
		opt := opts(trial)
		if trial%3 == 0 {
			opt.Grounding = gr // the caller's grounding, not one of its own
		}
		md, err := lbg.Compile(context.Background(), m.MLN, m.DB, m.Closed, m.Weights, opt)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		if !wantGround && !slices.ContainsFunc(md.Clusters, func(c *lbg.Cluster) bool { return len(c.Preds) > 1 }) {
			continue // the evidence fixes a predicate of the cluster
		}
		if !wantGround && md.LiftedClusters() < len(md.Clusters) {
			continue // a hard equivalence merged the cluster with another, ground
		}
		if opt.Grounding != nil && md.Graph() != nil && md.Graph() != gr.Graph {
			t.Fatalf("the caller's grounding was not taken\n%s", src)
		}
		took := opt.Grounding != nil && md.Graph() != nil
		// the positive worlds must be connected by the clusters' moves
		var groups [][]int32
		varOf := map[int]int32{}
		for v := range gr.NumAtoms {
			i, _ := md.Index(gr.AtomName(int32(v)))
			varOf[i] = int32(v)
		}
		for _, mv := range md.Moves() {
			var g []int32
			for _, a := range mv {
				if v, ok := varOf[a]; ok {
					g = append(g, v)
				}
			}
			groups = append(groups, g)
		}
		if ok, nw := connectedBy(gr.Graph, fg.NoEvidence(gr.Graph.NumVars()), groups); !ok || nw < 2 {
			continue
		}
		ex := brute.Solve(gr.Graph, nil)
		res, err := SampleLBG(context.Background(), md, Config{Samples: 4000, BurnIn: 200, Chains: 4, Trace: true, Seed: uint64(trial)})
		if errors.Is(err, lbg.ErrUnsat) {
			continue
		}
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		models++
		if took {
			reused++
		}
		lifted += md.LiftedClusters()
		groundC += len(md.Clusters) - md.LiftedClusters()
		for _, c := range md.Clusters {
			if c.Lifted && len(c.Preds) > 1 {
				pairs++
			}
		}
		traces := make([][]float64, len(res.Trace))
		for v := range gr.NumAtoms {
			name := gr.AtomName(int32(v))
			i, ok := md.Index(name)
			if !ok {
				t.Fatalf("no atom %s", name)
			}
			for c, tr := range res.Trace {
				traces[c] = traces[c][:0]
				for _, step := range tr {
					traces[c] = append(traces[c], step[i])
				}
			}
			mean, se, ess := BatchMeans(traces)
			if math.Abs(mean-res.Mean[i]) > 1e-12 {
				t.Fatalf("trace mean %v, result %v", mean, res.Mean[i])
			}
			p := ex.Marginals[v][1]
			bound := 5*se + rare
			if d := math.Abs(res.Mean[i] - p); d > bound {
				t.Errorf("model %d (clusters %s) P(%s) = %.5f sampled, %.5f exact: error %.2g > bound %.2g (ESS %.0f)\n%s%s",
					trial, md.Describe(), name, res.Mean[i], p, d, bound, ess, src, db)
			}
			if se > 1e-6 {
				st.bounds = append(st.bounds, bound)
				st.minESS = min(st.minESS, ess)
				st.maxESS = max(st.maxESS, ess)
				st.maxBound = max(st.maxBound, bound)
				st.maxRatio = max(st.maxRatio, math.Abs(res.Mean[i]-p)/se)
				st.n++
			}
		}
	}
	if models < 20 {
		t.Fatalf("only %d models", models)
	}
	if wantGround && (lifted == 0 || groundC == 0) {
		t.Errorf("%d lifted and %d ground clusters: both kinds should be exercised", lifted, groundC)
	}
	if !wantGround && (groundC > 0 || pairs < models) {
		t.Errorf("%d ground clusters, %d lifted of several predicates on %d models", groundC, pairs, models)
	}
	if wantGround && reused < 3 {
		t.Errorf("%d models took the test's grounding", reused)
	}
	slices.Sort(st.bounds)
	t.Logf("lbg: %d models (%d lifted, %d of them of several predicates, %d ground clusters, %d on the test's grounding), %d marginals with s.e. > 1e-6: ESS %.0f to %.0f (of 16000 samples), bounds median %.4f, largest %.3f; largest error %.2f s.e.",
		models, lifted, pairs, groundC, reused, st.n, st.minESS, st.maxESS, st.bounds[len(st.bounds)/2], st.maxBound, st.maxRatio)
}

// TestLBGHardConjunction: the hard conjunction H(i) ^ S(o) makes every H
// and S atom true: LBG gives them probability 1 (its lifted clusters count
// the violated groundings), and the T atoms their exact marginals. Its
// clusters are {H,T} (lifted: power rule on i) and {S}.
func TestLBGHardConjunction(t *testing.T) {
	m, gr, err := lbgModel(t, hardConjunction, "")
	if err != nil {
		t.Fatal(err)
	}
	ex := brute.Solve(gr.Graph, nil)
	alg, _, err := infer.New("lbg", infer.Properties{"samples": "2000", "chains": "3"})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := infer.RunModel(context.Background(), alg, m, infer.Options{Query: infer.Query{Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range m.Queries {
		p := ans.Marginal(int(q.Var))[1]
		if (strings.HasPrefix(q.Name, "H(") || strings.HasPrefix(q.Name, "S(")) && p != 1 {
			t.Errorf("P(%s) = %v, want 1", q.Name, p)
		}
		if d := math.Abs(p - ex.Marginals[q.Var][1]); d > 0.03 {
			t.Errorf("P(%s) = %.4f, exact %.4f", q.Name, p, ex.Marginals[q.Var][1])
		}
	}
	s := ans.Stats
	if s.Samples != 6000 || s.Sweeps != 6300 || s.Chains != 3 || ans.LogZKind != infer.NoLogZ || s.Clusters != 2 || s.LiftedClusters != 2 || s.Method != "lbg" {
		t.Errorf("stats %+v", s)
	}
}

// TestLBGDeterministic: the same seed gives the same answer.
func TestLBGDeterministic(t *testing.T) {
	m, _, err := lbgModel(t, hardConjunction, "")
	if err != nil {
		t.Fatal(err)
	}
	run := func() []float64 {
		md, err := lbg.Compile(context.Background(), m.MLN, m.DB, nil, m.Weights, lbg.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := SampleLBG(context.Background(), md, Config{Samples: 300, Chains: 3, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		return res.Mean
	}
	if a, b := run(), run(); !slices.Equal(a, b) {
		t.Error("two runs with one seed differ")
	}
}

// TestLBGNeedsModel: lbg refuses a bare factor graph and MAP queries.
func TestLBGNeedsModel(t *testing.T) {
	alg, _, err := infer.New("lbg", nil)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := lbgModel(t, hardConjunction, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := infer.Run(context.Background(), alg, m.Graph, nil, infer.Options{}); !errors.Is(err, infer.ErrNeedsModel) {
		t.Errorf("on a graph: %v", err)
	}
	if _, err := infer.RunModel(context.Background(), alg, m, infer.Options{Query: infer.Query{Task: infer.MAP}}); err == nil {
		t.Error("MAP accepted")
	}
	if _, _, err := infer.New("lbg", infer.Properties{"alpha": "-1"}); err == nil {
		t.Error("negative alpha accepted")
	}
	_ = fmt.Sprint
	_ = mln.True
}
