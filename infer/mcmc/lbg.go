package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lbg"
	"github.com/lifted-dev/lifted/lift"
)

// SampleLBG runs cfg.Chains chains of lifted blocked Gibbs sampling (package
// lbg) on md, with the same seeding, burn-in, time limit, progress,
// Rao-Blackwellisation and R-hat as Sample. Result.Mean[i] is the estimate
// of P(atom i is true) for every ground atom i of md (lbg.Model.Index),
// Off is nil, and Clusters is the number of clusters.
func SampleLBG(ctx context.Context, md *lbg.Model, cfg Config) (*Result, error) {
	if cfg.Samples < 0 || cfg.BurnIn < 0 || cfg.Chains < 0 || cfg.TimeLimit < 0 {
		return nil, errors.New("lbg: samples, burn-in, chains and time limit must not be negative")
	}
	if cfg.Samples == 0 && cfg.TimeLimit == 0 {
		return nil, errors.New("lbg: samples must be positive (or 0 with a time limit)")
	}
	nc := defaultChains(cfg.Chains)
	var deadline time.Time
	if cfg.TimeLimit > 0 {
		deadline = time.Now().Add(cfg.TimeLimit)
	}
	var sel []int // the unknown atoms
	for i := range md.NumAtoms() {
		if md.Evidence(i) < 0 {
			sel = append(sel, i)
		}
	}
	runs, err := runChains(ctx, nc, cfg, func(k int, r *chainRun) error {
		return runLBGChain(ctx, md, cfg, uint64(k), deadline, r, sel, nc)
	})
	if err != nil {
		return nil, err
	}
	res, err := collect(ctx, runs, cfg, "lbg")
	if err != nil {
		return nil, err
	}
	res.Clusters = len(md.Clusters)
	res.Mean = make([]float64, md.NumAtoms())
	for _, r := range runs {
		for i, s := range r.sum {
			res.Mean[i] += s
		}
	}
	for i := range res.Mean {
		res.Mean[i] /= float64(res.Samples)
	}
	res.diagnose(runs, sel, nil, lbgKernel)
	return res, nil
}

// runLBGChain runs chain k of lifted blocked Gibbs, seeded with (seed, k).
// The state's scalar summary for the diagnostics is its number of true
// atoms (lbg has no ground log-score without a grounding).
func runLBGChain(ctx context.Context, md *lbg.Model, cfg Config, k uint64, deadline time.Time, r *chainRun, sel []int, nc int) error {
	rng := rand.New(rand.NewPCG(cfg.Seed, k))
	ch, err := md.NewChain(rng)
	if err != nil {
		return err
	}
	size := md.NumAtoms()
	score := func() float64 {
		n := 0
		for _, x := range ch.World() {
			if x > 0 {
				n++
			}
		}
		return float64(n)
	}
	return r.loop(ctx, cfg, deadline, size, sel, nc, score, func(cond []float64) error { return ch.Sweep(rng, cond) })
}

// lbgSampler is the method "lbg" (infer.FirstOrder).
type lbgSampler struct {
	cfg Config
	opt lbg.Options
}

// Run refuses: lbg needs the first-order model.
func (lbgSampler) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	return nil, infer.ErrNeedsModel
}

// RunModel builds the Gibbs cluster graph of m and samples it; the answer
// has beliefs for the query atoms (others NaN), no log Z, and the
// sampler's statistics with the number of clusters and of lifted ones.
func (s lbgSampler) RunModel(ctx context.Context, m *infer.Model, q infer.Query) (*infer.Answer, error) {
	start := time.Now()
	opt := s.opt
	if gr, ok := m.Grounding.(*ground.Grounding); ok && gr.Graph == m.Graph {
		opt.Grounding = gr // the model's own grounding: not ground twice
	}
	md, res, err := s.sample(ctx, m, q, opt)
	if err != nil {
		return nil, err
	}
	c, err := lift.Ground(m.Graph, nil)
	if err != nil {
		return nil, err
	}
	ans := &infer.Answer{Graph: c, Task: q.Task, LogZKind: infer.NoLogZ, Converged: res.Diag.Mixed}
	ans.NodeOff = make([]int, c.NumNodes()+1)
	ans.Belief = make([]float64, 0, 2*c.NumNodes())
	for X := 0; X < c.NumNodes(); X++ {
		ans.NodeOff[X+1] = ans.NodeOff[X] + int(c.NodeCard[X])
		for k := int32(0); k < c.NodeCard[X]; k++ {
			ans.Belief = append(ans.Belief, math.NaN())
		}
	}
	ans.StdErr = make([]float64, len(ans.Belief))
	for i := range ans.StdErr {
		ans.StdErr[i] = math.NaN()
	}
	res.entries(ans, func(yield func(at, i int) bool) {
		for _, qa := range m.Queries {
			i, ok := md.Index(qa.Name)
			X := c.NodeOf[qa.Var]
			if ok && ans.NodeOff[X+1]-ans.NodeOff[X] == 2 && !yield(ans.NodeOff[X]+1, i) {
				return
			}
		}
	})
	for _, qa := range m.Queries {
		i, ok := md.Index(qa.Name)
		if !ok {
			return nil, fmt.Errorf("lbg: query atom %s is not an atom of the model", qa.Name)
		}
		b := ans.NodeBelief(int(c.NodeOf[qa.Var]))
		if len(b) == 2 {
			b[0], b[1] = 1-res.Mean[i], res.Mean[i]
			o := ans.NodeOff[c.NodeOf[qa.Var]]
			se := ans.StdErr[o:]
			se[0], se[1] = res.StdErr[i], res.StdErr[i]
			// state 0: the complement of state 1
			ans.EntryMixed[o], ans.EntryRHat[o] = ans.EntryMixed[o+1], ans.EntryRHat[o+1]
			ans.ChainLo[o], ans.ChainHi[o] = 1-ans.ChainHi[o+1], 1-ans.ChainLo[o+1]
		}
	}
	g := m.Graph
	ans.Stats = lbgStats(md, res, start, "lifted blocked Gibbs on the MLN, clusters "+md.Describe())
	ans.Stats.Variables, ans.Stats.Factors, ans.Stats.Edges = g.NumVars(), g.NumFactors(), g.NumEdges()
	ans.Stats.Clusternodes, ans.Stats.Clusterfactors, ans.Stats.LiftedEdges = c.NumNodes(), c.NumFactors(), c.NumEdges()
	return ans, nil
}

// RunUngrounded samples m without its grounding when every cluster is
// lifted and no formula is hard (infer.Ungrounded); otherwise it returns
// an error wrapping infer.ErrNeedsGrounding before any sampling. Every
// ground atom has a marginal: the sampler draws all unknown atoms.
func (s lbgSampler) RunUngrounded(ctx context.Context, m *infer.Model, q infer.Query) (*infer.AtomAnswer, error) {
	start := time.Now()
	opt := s.opt
	opt.NoGround = true
	md, res, err := s.sample(ctx, m, q, opt)
	if errors.Is(err, lbg.ErrNeedsGrounding) {
		return nil, fmt.Errorf("%w: %v", infer.ErrNeedsGrounding, err)
	}
	if err != nil {
		return nil, err
	}
	ans := &infer.AtomAnswer{Converged: res.Diag.Mixed}
	ans.Marginal = func(pred int, args []int) (float64, bool) {
		i := md.Offset(pred, args)
		if e := md.Evidence(i); e >= 0 {
			return float64(e), false
		}
		return res.Mean[i], true
	}
	ans.Detail = func(pred int, args []int) infer.AtomDetail {
		i := md.Offset(pred, args)
		d := infer.AtomDetail{StdErr: res.StdErr[i], Mixed: res.Pass[i], RHat: res.EntryRHat[i], Lo: math.Inf(1), Hi: math.Inf(-1)}
		for k, sum := range res.ChainSum {
			if n := res.ChainSamples[k]; n > 0 {
				d.Lo, d.Hi = min(d.Lo, sum[i]/float64(n)), max(d.Hi, sum[i]/float64(n))
			}
		}
		if d.Lo > d.Hi {
			d.Lo, d.Hi = math.NaN(), math.NaN()
		}
		if res.Diag.Frozen { // as Result.entries
			d.Lo, d.Hi, d.RHat = 0, 1, math.MaxFloat64
		}
		return d
	}
	ans.Stats = lbgStats(md, res, start, "lifted blocked Gibbs on the MLN, not grounded (every cluster lifted, no hard formula), clusters "+md.Describe())
	ans.Stats.Variables = md.NumUnknown()
	ans.Stats.Factors = int(min(md.NumGroundFormulas(), math.MaxInt32))
	return ans, nil
}

// sample compiles m with opt and runs the chains.
func (s lbgSampler) sample(ctx context.Context, m *infer.Model, q infer.Query, opt lbg.Options) (*lbg.Model, *Result, error) {
	if m.MLN == nil {
		return nil, nil, infer.ErrNeedsModel
	}
	if q.Task != infer.Marginals {
		return nil, nil, fmt.Errorf("lbg: answers marginal queries only, not %s", q.Task)
	}
	if m.Weights == nil {
		return nil, nil, errors.New("lbg follows the MLN semantics; Alchemy's clause weighting (--alchemy-cnf) is for the ground samplers")
	}
	md, err := lbg.Compile(ctx, m.MLN, m.DB, m.Closed, m.Weights, opt)
	if err != nil {
		return nil, nil, err
	}
	cfg := s.cfg
	cfg.Seed = q.Seed
	if q.Progress != nil {
		cfg.Progress = samplerProgress(q.Progress, cfg)
	}
	res, err := SampleLBG(ctx, md, cfg)
	if err != nil {
		return nil, nil, lbgError(err)
	}
	return md, res, nil
}

// lbgStats is the sampler's part of the statistics of an lbg run.
func lbgStats(md *lbg.Model, res *Result, start time.Time, reason string) infer.Stats {
	st := infer.Stats{
		Samples: res.Samples, Sweeps: res.Sweeps, Chains: len(res.ChainSamples),
		Interrupted: res.Interrupted, Clusters: res.Clusters, LiftedClusters: md.LiftedClusters(),
		Seconds: time.Since(start).Seconds(), Method: "lbg", MethodReason: reason,
	}
	res.fillStats(&st)
	return st
}

func init() {
	var lm infer.Method
	lm = infer.Method{
		Name:    "lbg",
		Summary: "lifted blocked Gibbs sampling on the MLN: clusters of first-order atoms drawn by lifted count messages, ground blocks where no lifting rule applies",
		Tasks:   []infer.Task{infer.Marginals},
		Props: append(append([]infer.Property(nil), props...),
			infer.Property{Name: "block-size", Default: strconv.Itoa(DefaultBlockSize), Help: "most variables in a block of a ground cluster"},
			infer.Property{Name: "block-states", Default: strconv.Itoa(DefaultBlockStates), Help: "most joint states of a block of a ground cluster"},
			infer.Property{Name: "alpha", Default: "0", Help: "time bound of the cluster graph (0: that of one atom per cluster)"},
			infer.Property{Name: "beta", Default: "0", Help: "space bound of the cluster graph (0: that of one atom per cluster)"},
			infer.Property{Name: "clusters", Default: "", Help: "fixed cluster graph instead of Algorithm 2's, e.g. R+S,T (predicates left out: one cluster each)"}),
		New: func(p infer.Properties) (infer.Algorithm, error) {
			a, err := newSampler(lm, BGibbs, p)
			if err != nil {
				return nil, err
			}
			s := lbgSampler{cfg: a.(sampler).cfg}
			s.opt.BlockSize, s.opt.BlockStates = s.cfg.BlockSize, s.cfg.BlockStates
			if s.opt.Alpha, err = p.Float(lm, "alpha"); err != nil {
				return nil, err
			}
			if s.opt.Beta, err = p.Float(lm, "beta"); err != nil {
				return nil, err
			}
			if cl := p["clusters"]; cl != "" {
				for _, c := range strings.Split(cl, ",") {
					s.opt.Clusters = append(s.opt.Clusters, strings.Split(strings.TrimSpace(c), "+"))
				}
			}
			if s.opt.Alpha < 0 || s.opt.Beta < 0 {
				return nil, &infer.PropertyError{Method: lm.Name, Name: "alpha", Msg: "alpha and beta must not be negative"}
			}
			return s, nil
		},
	}
	infer.Register(lm)
}

// lbgError prefixes err with "lbg: " unless package lbg's message already
// starts so (no "lbg: lbg:").
func lbgError(err error) error {
	if strings.HasPrefix(err.Error(), "lbg: ") {
		return err
	}
	return fmt.Errorf("lbg: %w", err)
}
