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

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// Tempering configures replica exchange (parallel tempering, Swendsen and
// Wang 1986; Geyer 1991): every chain is a ladder of replicas, replica i
// sampling p_i(x) ∝ Π_f φ_f(x)^βᵢ at inverse temperature βᵢ = 1/Tᵢ
// (T₀ = 1 < T₁ < …), each by the base kernel (single-site Gibbs or
// blocked Gibbs). After every step of all replicas, neighbouring replicas
// i, i+1 propose to exchange their worlds — the pairs with i even after
// even steps, odd after odd ones (the deterministic even–odd scheme) —
// accepted with probability min(1, exp((βᵢ − βᵢ₊₁)(L(xᵢ₊₁) − L(xᵢ)))),
// L the log-score at T = 1. The product of the p_i is invariant, so the T = 1
// replica samples the model; hot replicas cross the barriers between its
// modes and hand their worlds down. Zero entries stay zero at every
// temperature (hard constraints are not tempered): tempering helps soft
// barriers, and blocked Gibbs's blocks the hard ones.
//
// With Temps nil the ladder is adaptive (AdaptLadder): its hottest
// temperature is the one at which no variable's factors can move its log
// odds by more than 2, and temperatures are inserted between neighbours
// whose swaps a pilot run accepts less often than SwapLow, until every
// rate is at least that or the ladder has MaxReplicas rungs.
//
// With Copies 2 every chain runs two ladders, and after every step the two
// replicas at each temperature make a Houdayer cluster exchange (moves'
// houdayer: the connected set of free binary variables on which they
// differ is swapped between them), which on Ising-like models crosses
// the domain walls that single flips and swaps do not; the T = 1
// estimate averages both copies.
type Tempering struct {
	// Base is Gibbs or BGibbs.
	Base Kernel
	// Temps is the ladder T₀ = 1 < T₁ < … (at least two); nil: adaptive.
	Temps []float64
	// Copies is 1 (or 0) or 2: ladders per chain, 2 with Houdayer moves.
	Copies int
	// TMax, when above 1, is the hottest temperature of the adaptive
	// ladder instead of HotTemperature.
	TMax float64
	// MaxSamples, when above Config.Samples, lets a run that is not mixed
	// (and whose chains are not frozen) be extended: its chains go on
	// from where they are (worlds, ladder, sums and traces kept) until
	// each has kept twice as many steps, while that stays at most
	// MaxSamples kept steps per chain.
	MaxSamples int
	// MaxWork, when positive, also bounds the extensions in edge visits,
	// all chains together (a replica's step visits every edge of g once;
	// the ladder's pilot runs count too): a run is extended only while
	// its work stays at most MaxWork. Work, not time: the same seed gives
	// the same answer under any load.
	MaxWork float64
}

// Bounds of the adaptive ladder.
const (
	// SwapLow is the swap acceptance rate below which AdaptLadder
	// inserts a temperature between two neighbours.
	SwapLow = 0.25
	// MaxReplicas is the most temperatures of an adaptive ladder.
	MaxReplicas = 48
)

// GeometricLadder returns n temperatures from 1 to tmax, evenly spaced in
// log T (n ≥ 2, tmax > 1).
func GeometricLadder(n int, tmax float64) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = math.Pow(tmax, float64(i)/float64(n-1))
	}
	return t
}

// HotTemperature is the temperature at which no unobserved variable's
// factors can change its log odds by more than 2 (the largest, over
// variables, of the sum over its factors of half the spread of their
// finite log entries, at least 2 and at most 1e4): a replica there is
// close to independent draws, which single-site moves mix.
func HotTemperature(g *fg.Graph, ev fg.Evidence) float64 {
	spread := make([]float64, len(g.Tables))
	for t, tb := range g.Tables {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range tb.Values {
			if v > 0 {
				l := math.Log(v)
				lo, hi = min(lo, l), max(hi, l)
			}
		}
		if hi > lo {
			spread[t] = hi - lo
		}
	}
	fOf := g.EdgeFactors()
	worst := 0.0
	for v := range g.NumVars() {
		if ev != nil && ev[v] >= 0 || g.Card[v] < 2 {
			continue
		}
		s := 0.0
		for i := g.VarStart[v]; i < g.VarStart[v+1]; i++ {
			s += spread[g.FactorTable[fOf[g.VarEdges[i]]]]
		}
		worst = max(worst, s)
	}
	return min(max(worst/2/2, 2), 1e4)
}

// tempered returns g with every table entry raised to the power beta
// (zeros stay zero), sharing g's structure.
func tempered(g *fg.Graph, beta float64) *fg.Graph {
	if beta == 1 {
		return g
	}
	h := *g
	h.Tables = make([]fg.Table, len(g.Tables))
	for t, tb := range g.Tables {
		vals := make([]float64, len(tb.Values))
		for i, v := range tb.Values {
			if v > 0 {
				vals[i] = math.Exp(beta * math.Log(v))
			}
		}
		h.Tables[t] = fg.Table{Dims: tb.Dims, Values: vals}
	}
	return &h
}

// ladderRun is one chain's replicas: chs[c][i] is copy c's replica at
// temperature i.
type ladderRun struct {
	chs   [][]*gibbs.Chain
	score [][]float64 // log-scores at T = 1
	betas []float64
	bk    *gibbs.Blocking
	mv    *moves
	tree  *treeBlocks
	ts    treeScratch
	step  int
	tmp   []float64
	// swap and Houdayer counts of this chain
	tried, took []int64
	icm         int64
}

func newLadderRun(ctx context.Context, g *fg.Graph, ev fg.Evidence, temps []float64, copies int, bk *gibbs.Blocking, tb *treeBlocks, mv *moves, rng *rand.Rand) (*ladderRun, error) {
	graphs, err := prepareLadder(ctx, g, temps)
	if err != nil {
		return nil, err
	}
	return newLadderRunOn(ctx, temps, graphs, ev, copies, bk, tb, mv, rng)
}

// prepareLadder returns the tempered graphs of the ladder temps, prepared
// for chains (read only: the copies and the chains of a ladderWalk share
// them).
func prepareLadder(ctx context.Context, g *fg.Graph, temps []float64) ([]*gibbs.Prepared, error) {
	graphs := make([]*gibbs.Prepared, len(temps))
	for i, t := range temps {
		var err error
		if graphs[i], err = gibbs.Prepare(ctx, tempered(g, 1/t)); err != nil {
			return nil, err
		}
	}
	return graphs, nil
}

// newLadderRunOn is newLadderRun on the prepared tempered graphs of the
// ladder temps (prepareLadder).
func newLadderRunOn(ctx context.Context, temps []float64, graphs []*gibbs.Prepared, ev fg.Evidence, copies int, bk *gibbs.Blocking, tb *treeBlocks, mv *moves, rng *rand.Rand) (*ladderRun, error) {
	R := len(graphs)
	g := graphs[0].Graph()
	lr := &ladderRun{betas: make([]float64, R), bk: bk, tree: tb, mv: mv, tried: make([]int64, R-1), took: make([]int64, R-1)}
	for i, t := range temps {
		lr.betas[i] = 1 / t
	}
	for range copies {
		chs := make([]*gibbs.Chain, R)
		for i := range R {
			x := make([]int32, g.NumVars())
			if err := graphs[i].Start(ctx, ev, x, rng); err != nil {
				var ue *gibbs.UnsatError
				if errors.As(err, &ue) {
					return nil, &StartError{Err: ue}
				}
				return nil, err
			}
			ch, err := graphs[i].NewChain(ev, x)
			if err != nil {
				return nil, err
			}
			chs[i] = ch
		}
		lr.chs = append(lr.chs, chs)
		lr.score = append(lr.score, make([]float64, R))
	}
	return lr, nil
}

// advance makes one step of every replica, the swaps and (two copies) the
// Houdayer exchanges; cond, when set, gets the T = 1 conditionals (the
// average over the copies).
func (lr *ladderRun) advance(rng *rand.Rand, cond []float64) {
	R := len(lr.betas)
	for c, chs := range lr.chs {
		for i, ch := range chs {
			var cd []float64
			if i == 0 && cond != nil {
				cd = cond
				if c > 0 {
					if lr.tmp == nil {
						lr.tmp = make([]float64, len(cond))
					}
					cd = lr.tmp
				}
			}
			switch {
			case lr.tree != nil:
				x := ch.State()
				for b := range lr.tree.blocks {
					lr.mv.drawTree(rng, &lr.tree.blocks[b], x, &lr.ts, lr.betas[i])
				}
				if cd != nil {
					ch.Conditionals(cd)
				}
			case lr.bk != nil:
				ch.BlockSweep(rng, lr.bk, cd)
			default:
				ch.Sweep(rng, cd)
			}
		}
	}
	if len(lr.chs) == 2 {
		for i := range R {
			if lr.mv.houdayer(rng, lr.chs[0][i].State(), lr.chs[1][i].State(), lr.betas[i]) {
				lr.icm++
			}
		}
		if cond != nil {
			// the Houdayer move changed the worlds after the sweeps'
			// conditionals: read both copies' conditionals now
			lr.chs[0][0].Conditionals(cond)
			lr.chs[1][0].Conditionals(lr.tmp)
			for j := range cond {
				cond[j] = (cond[j] + lr.tmp[j]) / 2
			}
		}
	}
	for c, chs := range lr.chs {
		sc := lr.score[c]
		for i, ch := range chs {
			sc[i] = ch.LogScore() / lr.betas[i]
		}
		for i := lr.step % 2; i+1 < R; i += 2 {
			lr.tried[i]++
			a := (lr.betas[i] - lr.betas[i+1]) * (sc[i+1] - sc[i])
			if a >= 0 || rng.Float64() < math.Exp(a) {
				lr.took[i]++
				xi, xj := chs[i].State(), chs[i+1].State()
				for v := range xi {
					xi[v], xj[v] = xj[v], xi[v]
				}
				sc[i], sc[i+1] = sc[i+1], sc[i]
			}
		}
	}
	lr.step++
}

// AdaptLadder returns the temperatures of an adaptive ladder for g given
// ev (see Tempering): from HotTemperature, a geometric ladder of ratio
// 1.5, then rounds of a pilot chain (seeded with seed; its steps are
// discarded) of 100 + 2·(burn-in) steps, each round inserting the
// geometric mean between every two neighbours whose swaps it accepted
// less often than SwapLow, until none is or MaxReplicas is reached (or,
// with tp.MaxWork, the pilots have spent a quarter of it).
func AdaptLadder(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config, tp Tempering, bk *gibbs.Blocking, tb *treeBlocks, mv *moves) ([]float64, error) {
	temps, _, err := adaptLadder(ctx, g, ev, cfg, tp, bk, tb, mv)
	return temps, err
}

// adaptLadder is AdaptLadder, returning also the edge visits of its pilot
// runs (a replica step visits every edge once).
func adaptLadder(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config, tp Tempering, bk *gibbs.Blocking, tb *treeBlocks, mv *moves) ([]float64, float64, error) {
	work := 0.0
	tmax := tp.TMax
	if !(tmax > 1) {
		tmax = HotTemperature(g, ev)
	}
	n := max(2, int(math.Ceil(math.Log(tmax)/math.Log(1.5)))+1)
	temps := GeometricLadder(n, tmax)
	copies := max(tp.Copies, 1)
	steps := 100 + 2*min(cfg.BurnIn, 500)
	for round := 0; round < 8 && len(temps) < MaxReplicas; round++ {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		rng := rand.New(rand.NewPCG(cfg.Seed, 1<<40+uint64(round)))
		lr, err := newLadderRun(ctx, g, ev, temps, copies, bk, tb, mv, rng)
		if err != nil {
			return nil, 0, err
		}
		for range steps {
			lr.advance(rng, nil)
		}
		work += float64(steps*len(temps)*copies) * float64(max(g.NumEdges(), 1))
		next := []float64{temps[0]}
		added := false
		for i := 0; i+1 < len(temps); i++ {
			rate := 0.0
			if lr.tried[i] > 0 {
				rate = float64(lr.took[i]) / float64(lr.tried[i])
			}
			if rate < SwapLow && len(temps)+len(next)-(i+1) < MaxReplicas {
				next = append(next, math.Sqrt(temps[i]*temps[i+1]))
				added = true
			}
			next = append(next, temps[i+1])
		}
		temps = next
		if !added || tp.MaxWork > 0 && work > tp.MaxWork/4 {
			break
		}
	}
	return temps, work, nil
}

// SampleTempering runs cfg.Chains independent replica-exchange chains of
// tp on g given ev, each replica from its own random start (gibbs.Start),
// and returns the T = 1 replicas' Rao-Blackwellised marginals with the
// diagnostics of Sample, Sweeps counting every replica's steps, and the
// swap acceptance rate of every neighbouring pair of temperatures (all
// chains together) in Result.SwapRates and the ladder in Result.Temps.
func SampleTempering(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config, tp Tempering) (*Result, error) {
	if tp.Temps != nil {
		if len(tp.Temps) < 2 || tp.Temps[0] != 1 {
			return nil, errors.New("tempering: the ladder needs at least two temperatures, the first 1")
		}
		for i := 1; i < len(tp.Temps); i++ {
			if !(tp.Temps[i] > tp.Temps[i-1]) || math.IsInf(tp.Temps[i], 0) {
				return nil, fmt.Errorf("tempering: temperatures must increase and be finite, got %v", tp.Temps)
			}
		}
	}
	if tp.Base != Gibbs && tp.Base != BGibbs && tp.Base != Tree {
		return nil, fmt.Errorf("tempering: base kernel must be gibbs, bgibbs or tree-gibbs, got %s", tp.Base)
	}
	if tp.Copies < 0 || tp.Copies > 2 {
		return nil, fmt.Errorf("tempering: copies must be 1 or 2, got %d", tp.Copies)
	}
	if cfg.Samples < 0 || cfg.BurnIn < 0 || cfg.Chains < 0 || cfg.TimeLimit < 0 {
		return nil, errors.New("tempering: samples, burn-in, chains and time limit must not be negative")
	}
	if cfg.Samples == 0 && cfg.TimeLimit == 0 {
		return nil, errors.New("tempering: samples must be positive (or 0 with a time limit)")
	}
	ev = cfg.blockDefaults(g, ev)
	var bk *gibbs.Blocking
	if tp.Base == BGibbs {
		var err error
		if bk, err = gibbs.NewBlocking(g, ev, cfg.BlockSize, cfg.BlockStates); err != nil {
			return nil, err
		}
	}
	var tb *treeBlocks
	if tp.Base == Tree {
		tb = newTreeBlocks(g, ev)
	}
	mv := newMoves(g, ev)
	copies := max(tp.Copies, 1)
	if copies == 2 && !mv.hasFree() {
		copies = 1
	}
	temps := tp.Temps
	pilot := 0.0
	if temps == nil {
		var err error
		if temps, pilot, err = adaptLadder(ctx, g, ev, cfg, Tempering{Base: tp.Base, Copies: copies, TMax: tp.TMax, MaxWork: tp.MaxWork}, bk, tb, mv); err != nil {
			return nil, err
		}
	}
	lw := &ladderWalk{g: g, ev: ev, temps: temps, copies: copies, bk: bk, tb: tb, mv: mv, work: pilot}
	if tp.MaxWork > 0 && cfg.Samples > 0 {
		// The first run fits the work left after the ladder's pilots:
		// fewer steps (a quarter of them burn-in, at least
		// MinTemperingSamples kept) when the ladder is long.
		steps := int(max(tp.MaxWork-pilot, 0) / (float64(defaultChains(cfg.Chains)) * lw.stepWork()))
		if cfg.BurnIn+cfg.Samples > steps {
			cfg.BurnIn = min(cfg.BurnIn, steps/4)
			cfg.Samples = max(MinTemperingSamples, steps-cfg.BurnIn)
		}
	}
	for {
		res, err := lw.run(ctx, cfg)
		if err != nil {
			return nil, err
		}
		if res.Diag.Mixed || res.Diag.Frozen || res.Interrupted || cfg.Samples == 0 || 2*cfg.Samples > tp.MaxSamples {
			return res, nil
		}
		// The next extension's work: every chain's replicas go on to
		// BurnIn + 2·Samples steps.
		more := float64(lw.nc) * float64(cfg.Samples) * lw.stepWork()
		if tp.MaxWork > 0 && lw.work+more > tp.MaxWork {
			res.Diag.Why += fmt.Sprintf(" (tempering stopped at its work budget: %.3g edge visits spent, doubling the samples needs %.3g more, over max-work %.3g)", lw.work, more, tp.MaxWork)
			return res, nil
		}
		cfg.Samples *= 2
	}
}

// ladderWalk is a resumable replica-exchange run on a fixed ladder: its
// chains (every replica's world, the sums, the diagnostic traces, the
// swap counts) persist between calls of run, so that a run not mixed is
// extended from where its chains are instead of restarted.
type ladderWalk struct {
	g      *fg.Graph
	ev     fg.Evidence
	temps  []float64
	copies int
	bk     *gibbs.Blocking
	tb     *treeBlocks
	mv     *moves
	nc     int
	graphs []*gibbs.Prepared // per temperature: the tempered graph, shared by the chains
	lrs    []*ladderRun
	rngs   []*rand.Rand
	runs   []*chainRun
	sel    []int
	// work counts edge visits so far (the pilot runs of the ladder's
	// adaptation included): a replica step visits every edge once.
	work float64
}

// stepWork is the edge visits of one step of one chain: every replica of
// every copy sweeps the graph once.
func (lw *ladderWalk) stepWork() float64 {
	return float64(len(lw.temps)*lw.copies) * float64(max(lw.g.NumEdges(), 1))
}

// run brings every chain to cfg.BurnIn + cfg.Samples steps (the first call
// starts them) and returns the estimate and diagnostics of all their kept
// steps so far.
func (lw *ladderWalk) run(ctx context.Context, cfg Config) (*Result, error) {
	g, ev, temps, copies, bk, tb, mv := lw.g, lw.ev, lw.temps, lw.copies, lw.bk, lw.tb, lw.mv
	R := len(temps)
	var deadline time.Time
	if cfg.TimeLimit > 0 {
		deadline = time.Now().Add(cfg.TimeLimit)
	}
	if lw.runs == nil {
		lw.nc = defaultChains(cfg.Chains)
		lw.lrs = make([]*ladderRun, lw.nc)
		lw.rngs = make([]*rand.Rand, lw.nc)
		lw.runs = make([]*chainRun, lw.nc)
		for k := range lw.runs {
			lw.runs[k] = &chainRun{}
		}
		lw.sel = diagnosed(g, ev)
		var err error
		if lw.graphs, err = prepareLadder(ctx, g, temps); err != nil {
			return nil, err
		}
	}
	before := 0
	for _, r := range lw.runs {
		before += r.steps
	}
	sel, nc := lw.sel, lw.nc
	err := continueChains(ctx, lw.runs, cfg, func(k int, r *chainRun) error {
		lr, rng := lw.lrs[k], lw.rngs[k]
		if lr == nil {
			rng = rand.New(rand.NewPCG(cfg.Seed, uint64(k)))
			kmv := mv
			if copies == 2 {
				kmv = newMoves(g, ev) // scratch per chain
			}
			var err error
			if lr, err = newLadderRunOn(ctx, temps, lw.graphs, ev, copies, bk, tb, kmv, rng); err != nil {
				return err
			}
			lw.lrs[k], lw.rngs[k] = lr, rng
		}
		size := lr.chs[0][0].Offsets()[g.NumVars()]
		return r.loop(ctx, cfg, deadline, size, sel, nc, lr.chs[0][0].LogScore, func(cond []float64) error {
			lr.advance(rng, cond)
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	after := 0
	for _, r := range lw.runs {
		after += r.steps
	}
	lw.work += float64(after-before) * lw.stepWork()
	res, err := collect(ctx, lw.runs, cfg, "tempering")
	if err != nil {
		return nil, err
	}
	res.Sweeps *= R * copies
	if bk != nil {
		res.Clusters = len(bk.Blocks)
	}
	res.average(g, lw.runs)
	res.SwapRates = make([]float64, R-1)
	for i := range res.SwapRates {
		var tried, took int64
		for _, lr := range lw.lrs {
			if lr != nil {
				tried += lr.tried[i]
				took += lr.took[i]
			}
		}
		if tried > 0 {
			res.SwapRates[i] = float64(took) / float64(tried)
		}
	}
	res.Temps = temps
	res.soft = NoZeros(g)
	res.diagnose(lw.runs, sel, res.Off, temperKernel)
	return res, nil
}

// temperingSampler is the method "tempering".
type temperingSampler struct {
	cfg Config
	tp  Tempering
	// n, when positive, is the number of temperatures of a geometric
	// ladder up to HotTemperature (temperatures=N, max-temperature=auto).
	n int
}

// Run samples the ground graph by replica exchange; the answer is that of
// the other samplers (sampler.Run) with the swap rates and the ladder in
// the statistics.
func (s temperingSampler) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	cfg := s.cfg
	if cfg.Chains == 0 {
		cfg.Chains = TemperingChains
	}
	return runGround(ctx, c, q, "tempering", cfg, func(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config) (*Result, error) {
		tp := s.tp
		if s.n > 0 {
			tmax := tp.TMax
			if !(tmax > 1) {
				tmax = HotTemperature(g, ev)
			}
			tp.Temps = GeometricLadder(s.n, tmax)
		}
		return SampleTempering(ctx, g, ev, cfg, tp)
	})
}

// TemperingChains is the number of chains of the method tempering when
// --chains is 0: each chain is a ladder of replicas (two copies of about
// ten on a frustrated 10×10 grid), and the diagnostics need each chain to
// reach 100 effective samples, so four long chains cost half of eight of
// the same length (bench/frustrated: at equal work, 4 chains of 16,000
// steps mixed where 8 of 8,000 did not).
const TemperingChains = 4

// MinTemperingSamples is the fewest kept steps per chain of a run that
// MaxWork shortens.
const MinTemperingSamples = 50

// Defaults of the method tempering's growth: kept steps per chain and
// edge visits (all chains, the ladder's pilot runs included). The
// slowest of six frustrated 10×10 grids (bench/frustrated, grid 3) stops
// at R-hat 1.010 after 128,000 steps per chain with one seed of three and
// mixes at 256,000 (about 10^10 edge visits).
const (
	TemperingMaxSamples = 256000
	TemperingMaxWork    = 1e10
)

// temperingProps are the samplers' properties with tempering's default
// number of chains.
func temperingProps() []infer.Property {
	out := append([]infer.Property(nil), props...)
	for i := range out {
		if out[i].Name == "chains" {
			out[i].Help = "independent chains, each a ladder of replicas from its own random starts (0: " + strconv.Itoa(TemperingChains) + ", whatever the cores)"
		}
	}
	return out
}

func init() {
	var tm infer.Method
	tm = infer.Method{
		Name:    "tempering",
		Summary: "replica exchange (parallel tempering): Gibbs or blocked Gibbs at an adaptive ladder of temperatures, neighbours swapping worlds, two copies per temperature exchanging clusters (Houdayer); samples from T=1, doubling its samples until mixed or max-samples",
		Tasks:   []infer.Task{infer.Marginals},
		Props: append(append([]infer.Property(nil), temperingProps()...),
			infer.Property{Name: "base", Default: "gibbs", Help: "the kernel of every replica: gibbs, bgibbs or tree-gibbs (forests drawn exactly)"},
			infer.Property{Name: "temperatures", Default: "auto", Help: "replicas per chain: auto (a ladder grown until every neighbouring pair swaps at least 1 in 4 times, up to 48), or a number (a geometric ladder from 1 to max-temperature)"},
			infer.Property{Name: "max-temperature", Default: "auto", Help: "the hottest replica's temperature: auto (where no variable's factors move its log odds by more than 2) or a number"},
			infer.Property{Name: "ladder", Default: "", Help: "explicit temperatures instead, e.g. 1,1.5,2.5,4 (first 1, increasing)"},
			infer.Property{Name: "copies", Default: "2", Help: "ladders per chain: 2 (the replicas at each temperature exchange clusters of the binary variables on which they differ, Houdayer's move) or 1"},
			infer.Property{Name: "max-samples", Default: strconv.Itoa(TemperingMaxSamples), Help: "a run not mixed is extended (its chains go on from where they are) to twice the samples while samples stay at most this"},
			infer.Property{Name: "max-work", Default: fmt.Sprintf("%g", TemperingMaxWork), Help: "and while the run's edge visits (every replica's sweep visits each edge once; all chains, the ladder's pilot runs included) stay at most this (deterministic under --seed, whatever the load)"},
			infer.Property{Name: "block-size", Default: strconv.Itoa(DefaultBlockSize), Help: "most variables in a block (base bgibbs)"},
			infer.Property{Name: "block-states", Default: strconv.Itoa(DefaultBlockStates), Help: "most joint states of a block (base bgibbs)"}),
		New: func(p infer.Properties) (infer.Algorithm, error) {
			base := p.String(tm, "base")
			k := Gibbs
			switch base {
			case "gibbs":
			case "bgibbs":
				k = BGibbs
			case "tree-gibbs":
				k = Tree
			default:
				return nil, &infer.PropertyError{Method: tm.Name, Name: "base", Value: base, Msg: fmt.Sprintf("must be gibbs, bgibbs or tree-gibbs, got %q", base)}
			}
			a, err := newSampler(tm, BGibbs, p) // reads the common and the block properties
			if err != nil {
				return nil, err
			}
			s := temperingSampler{cfg: a.(sampler).cfg, tp: Tempering{Base: k}}
			s.cfg.Kernel = k
			if s.tp.Copies, err = p.Int(tm, "copies"); err != nil {
				return nil, err
			}
			if s.tp.Copies != 1 && s.tp.Copies != 2 {
				return nil, &infer.PropertyError{Method: tm.Name, Name: "copies", Msg: fmt.Sprintf("must be 1 or 2, got %d", s.tp.Copies)}
			}
			if s.tp.MaxSamples, err = p.Int(tm, "max-samples"); err != nil {
				return nil, err
			}
			if s.tp.MaxWork, err = p.Float(tm, "max-work"); err != nil {
				return nil, err
			}
			if !(s.tp.MaxWork > 0) || math.IsInf(s.tp.MaxWork, 0) {
				return nil, &infer.PropertyError{Method: tm.Name, Name: "max-work", Msg: fmt.Sprintf("must be a positive number of edge visits, got %v", s.tp.MaxWork)}
			}
			if l := p.String(tm, "ladder"); l != "" {
				for _, f := range strings.Split(l, ",") {
					t, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
					if err != nil {
						return nil, &infer.PropertyError{Method: tm.Name, Name: "ladder", Value: l, Msg: fmt.Sprintf("must be a list of numbers, got %q", f)}
					}
					s.tp.Temps = append(s.tp.Temps, t)
				}
				ok := len(s.tp.Temps) >= 2 && s.tp.Temps[0] == 1
				for i := 1; ok && i < len(s.tp.Temps); i++ {
					ok = s.tp.Temps[i] > s.tp.Temps[i-1] && !math.IsInf(s.tp.Temps[i], 0)
				}
				if !ok {
					return nil, &infer.PropertyError{Method: tm.Name, Name: "ladder", Value: l, Msg: "needs at least two temperatures, the first 1, increasing and finite"}
				}
				return s, nil
			}
			if p.String(tm, "max-temperature") != "auto" {
				if s.tp.TMax, err = p.Float(tm, "max-temperature"); err != nil {
					return nil, err
				}
				if !(s.tp.TMax > 1) || math.IsInf(s.tp.TMax, 0) {
					return nil, &infer.PropertyError{Method: tm.Name, Name: "max-temperature", Msg: fmt.Sprintf("must be auto, or finite and above 1, got %v", s.tp.TMax)}
				}
			}
			if p.String(tm, "temperatures") == "auto" {
				return s, nil
			}
			n, err := p.Int(tm, "temperatures")
			if err != nil {
				return nil, err
			}
			if n < 2 {
				return nil, &infer.PropertyError{Method: tm.Name, Name: "temperatures", Msg: fmt.Sprintf("must be auto or at least 2, got %d", n)}
			}
			s.n = n
			return s, nil
		},
	}
	infer.Register(tm)
}
