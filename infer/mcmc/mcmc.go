// Package mcmc is Markov chain Monte Carlo inference on factor graphs:
// single-site Gibbs sampling, MC-SAT and blocked Gibbs sampling (package
// gibbs has the kernels), registered with package infer as "gibbs",
// "mcsat" and "bgibbs", and lifted blocked Gibbs sampling on a Markov logic
// network (package lbg has the clusters and their draws; SampleLBG),
// registered as "lbg" (an infer.FirstOrder method). Moves for the models
// those do not mix on (issue 35) are registered beside them: replica
// exchange on an adaptive ladder with Houdayer cluster exchanges
// ("tempering", tempering.go), Swendsen–Wang cluster moves on Ising-like
// factors ("swendsen-wang", cluster.go), tree-blocked Gibbs ("tree-gibbs",
// tree.go), orbit moves along the model's automorphisms ("orbital",
// orbital.go) and partner swaps for permutation constraints ("swap",
// cluster.go).
//
// All run several independent chains (DefaultChains by default), each with
// its own random stream seeded from the query's seed and the chain's index,
// so a result depends only on the seed, the chain count and the sample
// count, never on the scheduling. Each chain starts from a world in which
// every factor is positive (gibbs.Start's WalkSAT-style search; when the
// zeros, i.e. the hard formulas, cannot all be satisfied given the evidence
// the run fails with an error that says so), discards its burn-in steps and
// then averages, after every step, each variable's conditional distribution
// given the others (Rao-Blackwellisation: E[P(v | x₋ᵥ)] = P(v) under the
// model's distribution, with less variance than counting states). For
// Gibbs these are the distributions the sweep draws from; for MC-SAT they
// are computed at the world each step ends in; for blocked Gibbs they are
// the marginals of each block's exact joint conditional given the rest,
// E[P(v | x₋B)] = P(v), at the moment the block is drawn.
//
// Convergence is judged by the Gelman–Rubin R-hat over the chains (on the
// per-step conditional probabilities), reported for the worst variable.
// Single-site Gibbs cannot cross between positive worlds that zeros
// separate (an "exactly one" constraint freezes it); R-hat shows this when
// the chains start in different parts. MC-SAT's block moves cross such
// constraints, and so do blocked Gibbs's blocks where a block holds the
// constrained variables (gibbs.NewBlocking grows blocks along shared
// factors).
//
// MC-SAT (gibbs.Chain.MCSAT) slices only the factors that couple two or
// more unobserved variables; unit factors are each variable's field, the
// weights of its draws on the satisfying worlds (sliced, an atom with many
// unit clauses pulling both ways flips at the rate e^{−Σw} of the side it
// is on, and UW-CSE's chains froze). Its sweeps redraw single variables,
// the variables of constrained factors jointly, and, when cheap
// (Config.SatBlocks), NewBlocking's blocks jointly; every move leaves the
// step's distribution on the satisfying worlds invariant, so the chain's
// stationary distribution is the model's (gibbs's TestMCSATInvariant:
// one step from exact draws, chi-square). experiments/sampling/MCSAT.md
// has the figures.
package mcmc

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/jtree"
	"github.com/lifted-dev/lifted/infer/mcmc/diag"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/lift/orbit"
)

// Kernel is the Markov chain's step.
type Kernel uint8

const (
	// Gibbs is one systematic sweep of single-site Gibbs sampling.
	Gibbs Kernel = iota
	// MCSAT is one MC-SAT step (gibbs.Chain.MCSAT).
	MCSAT
	// BGibbs is one sweep of blocked Gibbs sampling: over the blocks of
	// gibbs.NewBlocking (gibbs.Chain.BlockSweep), or over covers of
	// junction-tree blocks (Config.Blocks; jtblocks.go).
	BGibbs
	// Cluster is one Swendsen–Wang move (bonds on the satisfied Ising
	// couplings, every cluster flipped by a heat-bath draw on the rest of
	// the model; see cluster.go) followed by a single-site Gibbs sweep.
	Cluster
	// Orbital is one orbit move — the world mapped by a random symmetry of
	// the model (an automorphism of the factor graph with its evidence,
	// from lift/orbit; Niepert 2012) — followed by a Gibbs sweep.
	Orbital
	// Tree is one sweep of tree-blocked Gibbs sampling: every block of a
	// cover by forests drawn exactly given the rest (tree.go; Hamze and de
	// Freitas 2004); a block holds at most two variables of any factor.
	Tree
	// Swap is a Gibbs sweep after partner swaps (moves' swap: two true and
	// two false variables of the hard constraints flipped together, as
	// exchanging the columns of two rows of a permutation), which keep
	// assignment constraints satisfied where single flips cannot move.
	Swap

	lbgKernel     Kernel = 255 // lifted blocked Gibbs (SampleLBG), for messages
	temperKernel  Kernel = 254 // replica exchange (SampleTempering), for messages
	clusterKernel Kernel = 253 // Swendsen–Wang (SampleCluster), for messages
	orbitKernel   Kernel = 252 // orbital moves (SampleOrbital), for messages
)

// String names the kernel as it is registered.
func (k Kernel) String() string {
	switch k {
	case MCSAT:
		return "mcsat"
	case BGibbs:
		return "bgibbs"
	case Cluster:
		return "swendsen-wang"
	case Orbital:
		return "orbital"
	case Tree:
		return "tree-gibbs"
	case Swap:
		return "swap"
	}
	return "gibbs"
}

// BGibbsMaxWork bounds the clique-table entries (all chains, all runs)
// of the junction-tree block draws of blocked Gibbs runs that Sample
// repeats with doubled samples until mixed (Config.MaxSamples): a
// frustrated 10×10 grid's blocks (2^10 entries at most, four covers) take
// 31,272 entries a sweep, 1.4·10^8 for 1,000 samples and 100 burn-in
// steps in 4 chains (about 9 CPU s at load 15), so runs of 2,000 and 4,000
// samples follow; a 40×40 grid's, 967,150 a sweep, exceed the bound at
// once (no repetition).
const BGibbsMaxWork = 1e9

// Default block bounds of blocked Gibbs (Config.BlockSize, BlockStates).
const (
	DefaultBlockSize   = 8
	DefaultBlockStates = 1 << 12
)

// Blocks says which blocks blocked Gibbs draws (Config.Blocks).
type Blocks uint8

const (
	// BlocksAuto is BlocksJTree on a model without zero entries,
	// BlocksEnumerate otherwise (whose tied units keep hard constraints
	// of the "exactly one" kind inside one block). The method bgibbs
	// with block-size or block-states set asks for BlocksEnumerate.
	BlocksAuto Blocks = iota
	// BlocksJTree: blocks of bounded junction-tree table size
	// (BlockTable), in covers that hold every factor inside some block,
	// each drawn by forward filtering and backward sampling (jtblocks.go).
	BlocksJTree
	// BlocksEnumerate: gibbs.NewBlocking's partition into blocks of at
	// most BlockSize variables and BlockStates joint states, each drawn by
	// enumerating its joint states.
	BlocksEnumerate
)

// SatBlocks says whether MC-SAT sweeps redraw blocks (Config.SatBlocks).
type SatBlocks uint8

const (
	SatBlocksAuto SatBlocks = iota
	SatBlocksOn
	SatBlocksOff
)

// Config configures a sampling run.
type Config struct {
	Kernel Kernel
	// Samples is the number of steps each chain keeps after BurnIn
	// discarded ones; 0 means until TimeLimit.
	Samples, BurnIn int
	// MaxSamples, when at least twice Samples, lets a run that is not
	// mixed (and not frozen, not interrupted) be repeated with twice the
	// kept and burn-in steps while they stay at most MaxSamples (the
	// methods swendsen-wang, orbital, swap and tree-gibbs, and bgibbs with
	// junction-tree blocks within BGibbsMaxWork; tempering has its own).
	MaxSamples int
	// Chains is the number of chains; 0 means DefaultChains (whatever the
	// cores: the answer depends on the seed, not on the machine).
	Chains int
	// TimeLimit, when positive, stops every chain after that long (its
	// samples so far are kept).
	TimeLimit time.Duration
	// SatSweeps is the number of sweeps over the satisfying worlds of an
	// MC-SAT step (default 1).
	SatSweeps int
	// BlockProb is the probability with which an MC-SAT step redraws a
	// constrained factor as a block when single moves could reach its
	// allowed states (gibbs.Chain.MCSAT); 0 means the default, 0.1.
	BlockProb float64
	// SatBlocks adds to every MC-SAT sweep a blocked move over the
	// blocks of gibbs.NewBlocking (BlockSize, BlockStates), each drawn
	// on the satisfying worlds of the step (gibbs.Chain.MCSATBlocks):
	// SatBlocksOn, SatBlocksOff, or SatBlocksAuto (0), on when the
	// blocks' joint states number at most 64 per unobserved variable.
	SatBlocks SatBlocks
	// BlockSize and BlockStates bound blocked Gibbs's blocks: at most
	// BlockSize variables and BlockStates joint states each (a single
	// variable with more states is a block of its own); 0 means
	// DefaultBlockSize and DefaultBlockStates.
	BlockSize, BlockStates int
	// Blocks chooses blocked Gibbs's blocks (Kernel BGibbs); BlockTable
	// bounds the largest junction-tree table of a BlocksJTree block (0:
	// DefaultBlockTable).
	Blocks     Blocks
	BlockTable int
	Seed       uint64
	// Pairs adds to every Gibbs sweep (Kernel Gibbs) a joint redraw of
	// each strongly coupled pair of variables (gibbs.NewPairs,
	// gibbs.Chain.PairSweep): an auxiliary variable of a long clause with
	// each of its atoms, two atoms of which the coupling wants one true but
	// not both.
	Pairs bool
	// Trace keeps every chain's per-step conditionals (Result.Trace), for
	// effective sample sizes; it costs memory per sample.
	Trace bool
	// Progress, if set, is called about every 200 ms with the samples kept
	// so far and the burn-in steps taken (all chains), and the current
	// worst R-hat.
	Progress func(samples, burnIn int, rHat float64)
}

// Result is a sampling run's estimate and figures.
type Result struct {
	// Mean[Off[v]+s] is the estimate of P(v = s): the average over all
	// chains' kept steps of v's conditional distribution.
	Mean []float64
	Off  []int
	// ChainSum[k] is chain k's sum of conditionals over its ChainSamples[k]
	// kept steps.
	ChainSum     [][]float64
	ChainSamples []int
	Samples      int // kept steps, all chains
	Sweeps       int // steps, burn-in included, all chains
	RHat         float64
	// Clusters is the number of blocks blocked Gibbs sampled (0 for the
	// other kernels).
	Clusters int
	// Trace[k][i] is chain k's conditionals at its i-th kept step (with
	// Config.Trace).
	Trace [][][]float64
	// Interrupted says that ctx was cancelled before the chains finished;
	// the estimate is that of the samples so far. TimeLimited says that
	// Config.TimeLimit ended a chain (always so with Samples 0).
	Interrupted, TimeLimited bool
	// StdErr, parallel to Mean, is each estimate's Monte Carlo standard
	// error, from its effective sample size (diag.Summary.MCSE; 0 for an
	// observed variable).
	StdErr []float64
	// Pass and EntryRHat, parallel to Mean, are each estimate's own
	// verdict of the diagnostics' rule and its R-hat (an observed
	// variable passes, R-hat 1).
	Pass      []bool
	EntryRHat []float64
	// Diag is the run's convergence diagnostics; RHat is Diag.RHat.
	Diag Diagnostics
	// soft says the graph has no zero entries (for the diagnostics'
	// advice).
	soft bool
	// work is the clique-table entries of the run's junction-tree block
	// draws, all chains (0 for other kernels).
	work float64
	// once says the run is not to be repeated (blocked Gibbs with
	// enumerated blocks).
	once bool
	// SwapRates is, for replica exchange (SampleTempering), the swap
	// acceptance rate of each neighbouring pair of temperatures, and Temps
	// the ladder.
	SwapRates, Temps []float64
}

// StartError is a chain's failure to find a world in which every factor is
// positive.
type StartError struct {
	Err *gibbs.UnsatError
}

// Error returns the message of the StartError.
func (e *StartError) Error() string {
	if e.Err.Moves < 0 {
		return fmt.Sprintf("the hard constraints (zero entries) cannot all hold given the evidence: factor %d is zero whatever its unobserved variables are", e.Err.Factor)
	}
	return fmt.Sprintf("found no world satisfying the hard constraints (zero entries) in %d WalkSAT moves (factor %d still zero): they are unsatisfiable given the evidence, or too hard for the search", e.Err.Moves, e.Err.Factor)
}

// Unwrap returns the error the StartError wraps.
func (e *StartError) Unwrap() error { return e.Err }

// chainRun is one chain's running sums, read by the progress reporter
// under mu.
type chainRun struct {
	mu    sync.Mutex
	sum   []float64
	sumsq []float64
	n     int
	steps int
	trace [][]float64
	// diag keeps the diagnosed quantities of every kept step (the
	// conditionals at sel, then the state's score) in bounded memory.
	diag *diag.Trace
	err  error
	// clusters counts the clusters of the chain's Swendsen–Wang moves.
	clusters int64
	cut      bool // the deadline ended the chain
	// final is the chain's world when it stopped (nil when it has none).
	final []int32
}

// Sample runs cfg.Chains chains on g given ev (nil: none) and returns the
// Rao-Blackwellised marginals. A cancelled ctx stops the chains; the
// estimate so far is returned with Interrupted set, or ctx's error when no
// chain has kept a sample yet.
func Sample(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config) (*Result, error) {
	return grow(cfg, cfg.MaxSamples, func(cfg Config) (*Result, error) { return sample(ctx, g, ev, cfg) })
}

// grow runs run(cfg) and, while its result is not mixed (nor frozen, nor
// interrupted) and twice cfg.Samples is at most maxSamples (and, for
// junction-tree blocks, the table entries of all runs' draws, the next
// one's estimated as twice the last's, stay within BGibbsMaxWork), again
// with twice the samples and burn-in; the last result is returned with Sweeps
// counting every run's steps.
func grow(cfg Config, maxSamples int, run func(Config) (*Result, error)) (*Result, error) {
	sweeps := 0
	work := 0.0
	for {
		res, err := run(cfg)
		if err != nil {
			return nil, err
		}
		sweeps += res.Sweeps
		res.Sweeps = sweeps
		work += res.work
		if res.Diag.Mixed || res.Diag.Frozen || res.Interrupted || cfg.Samples == 0 || 2*cfg.Samples > maxSamples ||
			work+2*res.work > BGibbsMaxWork || res.once {
			return res, nil
		}
		cfg.Samples *= 2
		cfg.BurnIn *= 2
	}
}

// sample is one run of Sample.
func sample(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config) (*Result, error) {
	if cfg.Samples < 0 || cfg.BurnIn < 0 || cfg.Chains < 0 || cfg.TimeLimit < 0 {
		return nil, errors.New("mcmc: samples, burn-in, chains and time limit must not be negative")
	}
	if cfg.Samples == 0 && cfg.TimeLimit == 0 {
		return nil, errors.New("mcmc: samples must be positive (or 0 with a time limit)")
	}
	nc := defaultChains(cfg.Chains)
	if cfg.SatSweeps <= 0 {
		cfg.SatSweeps = 1
	}
	if cfg.BlockProb <= 0 {
		cfg.BlockProb = 0.1
	}
	ev = cfg.blockDefaults(g, ev)
	var bk *gibbs.Blocking
	var jt *jtBlocks
	if cfg.Kernel == BGibbs && (cfg.Blocks == BlocksJTree || cfg.Blocks == BlocksAuto && NoZeros(g)) {
		var err error
		if jt, err = newJTBlocks(ctx, g, ev, float64(cfg.BlockTable)); err != nil {
			return nil, err
		}
	}
	if cfg.Kernel == BGibbs && jt == nil || cfg.Kernel == MCSAT && cfg.SatBlocks != SatBlocksOff {
		var err error
		bk, err = gibbs.NewBlocking(g, ev, cfg.BlockSize, cfg.BlockStates)
		switch {
		case err != nil && cfg.Kernel == MCSAT && cfg.SatBlocks == SatBlocksAuto:
			bk = nil // a tied unit too large: MC-SAT's factor blocks cross it
		case err != nil:
			return nil, err
		case cfg.Kernel == MCSAT && cfg.SatBlocks == SatBlocksAuto && !cheapBlocks(bk):
			bk = nil
		}
	}
	var deadline time.Time
	if cfg.TimeLimit > 0 {
		deadline = time.Now().Add(cfg.TimeLimit)
	}
	var gens []orbit.Perm
	note := ""
	var tb *treeBlocks
	if cfg.Kernel == Tree {
		tb = newTreeBlocks(g, ev)
	}
	if cfg.Kernel == Orbital {
		var err error
		if gens, note, err = modelSymmetries(ctx, g, ev); err != nil {
			return nil, err
		}
	}
	var pairs *gibbs.Pairs // read only: shared by the chains
	if cfg.Pairs && cfg.Kernel == Gibbs {
		var err error
		if pairs, err = gibbs.NewPairsContext(ctx, g, ev); err != nil {
			return nil, err
		}
	}
	sel := diagnosed(g, ev)
	pg, err := gibbs.Prepare(ctx, g) // read only: shared by the chains
	if err != nil {
		return nil, err
	}
	runs, err := runChains(ctx, nc, cfg, func(k int, r *chainRun) error {
		return runChain(ctx, pg, ev, bk, jt, gens, tb, pairs, cfg, uint64(k), deadline, r, sel, nc)
	})
	if err != nil {
		return nil, err
	}
	res, err := collect(ctx, runs, cfg, "mcmc")
	if err != nil {
		return nil, err
	}
	if bk != nil && cfg.Kernel == BGibbs {
		res.Clusters = len(bk.Blocks)
		res.once = true
	}
	if tb != nil {
		res.Clusters = len(tb.blocks)
	}
	if jt != nil {
		res.Clusters = len(jt.blocks)
		w := 0
		for _, b := range jt.blocks {
			w += b.Work()
		}
		res.work = float64(w) * float64(res.Sweeps)
	}
	if (cfg.Kernel == Cluster || cfg.Kernel == Swap) && res.Sweeps > 0 {
		n := int64(0)
		for _, r := range runs {
			n += r.clusters
		}
		res.Clusters = int(n / int64(res.Sweeps)) // per move
	}
	res.average(g, runs)
	res.soft = NoZeros(g)
	res.diagnose(runs, sel, res.Off, cfg.Kernel)
	res.checkForced(ctx, g, ev, runs, sel, cfg.Seed)
	if note != "" && !res.Diag.Mixed {
		res.Diag.Why += " (" + note + ")"
	}
	return res, nil
}

// cheapBlocks reports whether a sweep over bk's blocks makes at most 256
// table reads per unobserved variable (Blocking.Work; SatBlocksAuto): on
// the dishes model (experiments/sampling/mcsat, 76 per variable) blocked
// moves raise the ESS per CPU second 13-fold; on UW-CSE (1,380 per
// variable: 256-state blocks of atoms in 180 factors each) they cost six
// times the rest of the step.
func cheapBlocks(bk *gibbs.Blocking) bool {
	n := 0
	for _, b := range bk.Blocks {
		n += len(b)
	}
	return bk.Work() <= 256*n
}

// runChain runs chain k, seeded with (seed, k); bk is blocked Gibbs's
// blocks (jt its junction-tree blocks instead), pairs Gibbs's pair moves
// (nil: none).
func runChain(ctx context.Context, pg *gibbs.Prepared, ev fg.Evidence, bk *gibbs.Blocking, jt *jtBlocks, gens []orbit.Perm, tb *treeBlocks, pairs *gibbs.Pairs, cfg Config, k uint64, deadline time.Time, r *chainRun, sel []int, nc int) error {
	g := pg.Graph()
	rng := rand.New(rand.NewPCG(cfg.Seed, k))
	x, err := start(ctx, pg, ev, cfg.Seed, k, rng)
	if err != nil {
		return err
	}
	ch, err := pg.NewChain(ev, x)
	if err != nil {
		return err
	}
	size := ch.Offsets()[g.NumVars()]
	var mv *moves
	if cfg.Kernel == Cluster || cfg.Kernel == Swap || tb != nil {
		mv = newMoves(g, ev)
		if cfg.Kernel == Swap {
			mv.prepareSwaps()
		}
	}
	var ts treeScratch
	var drawers []*jtree.BlockDrawer
	if jt != nil {
		x := ch.State()
		for v := range x {
			if ev[v] >= 0 {
				x[v] = ev[v]
			}
		}
		for _, b := range jt.blocks {
			drawers = append(drawers, b.Drawer())
		}
	}
	var syms *symmetries
	var scratch []int32
	if len(gens) > 0 {
		syms = newSymmetries(gens, g.NumVars(), rand.New(rand.NewPCG(cfg.Seed, k|1<<41)))
		scratch = make([]int32, g.NumVars())
	}
	defer func() { r.final = slices.Clone(ch.State()) }()
	return r.loop(ctx, cfg, deadline, size, sel, nc, ch.LogScore, func(cond []float64) error {
		switch cfg.Kernel {
		case Cluster:
			r.clusters += int64(mv.swendsenWang(rng, ch.State(), 1))
			ch.Sweep(rng, cond)
		case Swap:
			x := ch.State()
			for range len(mv.hardList)/4 + 1 {
				if mv.swap(rng, x, 1) {
					r.clusters++
				}
			}
			ch.Sweep(rng, cond)
		case Tree:
			x := ch.State()
			for i := range tb.blocks {
				mv.drawTree(rng, &tb.blocks[i], x, &ts, 1)
			}
			if cond != nil {
				ch.Conditionals(cond)
			}
		case Orbital:
			if syms != nil {
				apply(ch.State(), syms.next(), scratch)
			}
			ch.Sweep(rng, cond)
		case MCSAT:
			ch.MCSATBlocks(rng, cfg.SatSweeps, cfg.BlockProb, bk)
			if cond != nil {
				ch.Conditionals(cond)
			}
		case BGibbs:
			if jt == nil {
				ch.BlockSweep(rng, bk, cond)
				break
			}
			x := ch.State()
			for _, d := range drawers {
				if _, err := d.Draw(rng, x); err != nil {
					return err
				}
			}
			if cond != nil {
				ch.Conditionals(cond)
			}
		default:
			if pairs != nil && pairs.Len() > 0 {
				ch.PairSweepAll(rng, pairs, cond)
			} else {
				ch.Sweep(rng, cond)
			}
		}
		return nil
	})
}

// start returns chain k's first world (with rng, chain k's stream):
// even chains start from a uniformly random world, odd chain k from the
// complement of chain k−1's (every unobserved variable's state s replaced
// by card−1−s), so that pairs of chains start far apart (antithetic,
// over-dispersed starts: a model whose modes are mirror images, as an
// Ising model's, gets chains in both); WalkSAT then makes it positive
// (gibbs.StartAtContext: ctx ends it).
func start(ctx context.Context, pg *gibbs.Prepared, ev fg.Evidence, seed, k uint64, rng *rand.Rand) ([]int32, error) {
	g := pg.Graph()
	x := make([]int32, g.NumVars())
	src := rng
	if k%2 == 1 {
		src = rand.New(rand.NewPCG(seed, k-1))
	}
	for v := range x {
		if ev[v] < 0 {
			x[v] = int32(src.IntN(int(g.Card[v])))
			if k%2 == 1 {
				x[v] = g.Card[v] - 1 - x[v]
			}
		}
	}
	if err := pg.StartAt(ctx, ev, x, rng, 0); err != nil {
		var ue *gibbs.UnsatError
		if errors.As(err, &ue) {
			return nil, &StartError{Err: ue}
		}
		return nil, err
	}
	return x, nil
}

// snapshot returns the samples kept so far and the current worst R-hat.
func snapshot(runs []*chainRun) (int, int, float64) {
	n, burn := 0, 0
	for _, r := range runs {
		r.mu.Lock()
		n += r.n
		burn += r.steps - r.n
		r.mu.Unlock()
	}
	return n, burn, rHat(runs)
}

// rHat is the Gelman–Rubin potential scale reduction factor of every
// state's per-step conditional probability, worst over the states: with m
// chains of n̄ kept steps on average, W the mean within-chain variance and
// B/n̄ the variance of the chain means, R = sqrt(((n̄−1)/n̄·W + B/n̄)/W).
// States that vary in no chain and agree across chains are skipped; states
// constant within each chain but different across chains give the largest
// float. It is 0 with fewer than two chains of two steps.
func rHat(runs []*chainRun) float64 {
	for _, r := range runs {
		r.mu.Lock()
		defer r.mu.Unlock()
	}
	m := 0
	nbar := 0.0
	size := 0
	for _, r := range runs {
		if r.n >= 2 {
			m++
			nbar += float64(r.n)
			size = len(r.sum)
		}
	}
	if m < 2 {
		return 0
	}
	nbar /= float64(m)
	worst := 0.0
	means := make([]float64, 0, m)
	for i := range size {
		w := 0.0
		means = means[:0]
		for _, r := range runs {
			if r.n < 2 {
				continue
			}
			n := float64(r.n)
			mu := r.sum[i] / n
			v := (r.sumsq[i] - n*mu*mu) / (n - 1)
			w += max(v, 0)
			means = append(means, mu)
		}
		w /= float64(m)
		grand := 0.0
		for _, mu := range means {
			grand += mu
		}
		grand /= float64(m)
		b := 0.0
		for _, mu := range means {
			b += (mu - grand) * (mu - grand)
		}
		b /= float64(m - 1) // B/n̄
		const tiny = 1e-12
		if w <= tiny {
			if b > tiny {
				return math.MaxFloat64
			}
			continue
		}
		rh := math.Sqrt(((nbar-1)/nbar*w + b) / w)
		worst = max(worst, rh)
	}
	return worst
}

// BatchMeans estimates, for the pooled mean of one quantity traced by
// several chains (traces[k][i]: chain k's value at its step i), its Monte
// Carlo standard error and effective sample size by non-overlapping batch
// means: each chain of n values is cut into a = ⌊n^⅓⌋ batches of
// b = ⌊n/a⌋ values (the remainder dropped from the batches; batches of
// about n^⅔ values rather than √n, which underestimates the variance of
// slowly mixing chains), the chain's asymptotic variance is
// b·Var(batch means), the variance of the pooled mean is
// Σₖ (nₖ/N)²·σ²ₖ/nₖ, and the effective sample size is the pooled sample
// variance divided by that (N when the variance is 0).
func BatchMeans(traces [][]float64) (mean, se, ess float64) {
	total := 0
	for _, t := range traces {
		total += len(t)
		for _, x := range t {
			mean += x
		}
	}
	if total == 0 {
		return math.NaN(), math.NaN(), 0
	}
	N := float64(total)
	mean /= N
	s2 := 0.0
	for _, t := range traces {
		for _, x := range t {
			s2 += (x - mean) * (x - mean)
		}
	}
	s2 /= max(N-1, 1)
	varMean := 0.0
	for _, t := range traces {
		n := len(t)
		a := int(math.Cbrt(float64(n)))
		if a < 2 {
			continue
		}
		b := n / a
		bm := make([]float64, a)
		all := 0.0
		for j := range a {
			for _, x := range t[j*b : (j+1)*b] {
				bm[j] += x
			}
			bm[j] /= float64(b)
			all += bm[j]
		}
		all /= float64(a)
		vb := 0.0
		for _, y := range bm {
			vb += (y - all) * (y - all)
		}
		sigma2 := float64(b) * vb / float64(a-1)
		w := float64(n) / N
		varMean += w * w * sigma2 / float64(n)
	}
	if varMean == 0 {
		return mean, 0, N
	}
	return mean, math.Sqrt(varMean), s2 / varMean
}

// sampler is the infer.Algorithm of the kernels.
type sampler struct{ cfg Config }

// Run samples the ground graph (the trivial compression; a lifted one is
// refused) and returns per-variable Rao-Blackwellised marginals, no log Z,
// and the sampler's statistics, with the standard error of every belief
// (Answer.StdErr); Converged (mixed) is Diagnostics.Mixed: every
// diagnosed quantity passes package diag's rule.
func (s sampler) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	return runGround(ctx, c, q, s.cfg.Kernel.String(), s.cfg, Sample)
}

// runGround is Run of the ground samplers: sample runs cfg (seeded with
// the query's seed) on the ground graph of c.
func runGround(ctx context.Context, c *lift.Compressed, q infer.Query, name string, cfg Config, sample func(context.Context, *fg.Graph, fg.Evidence, Config) (*Result, error)) (*infer.Answer, error) {
	if q.Task != infer.Marginals {
		return nil, fmt.Errorf("%s: answers marginal queries only, not %s", name, q.Task)
	}
	g := c.Ground
	if c.NumNodes() != g.NumVars() {
		return nil, fmt.Errorf("%s: needs the ground graph (the trivial compression), got %d clusternodes for %d variables", name, c.NumNodes(), g.NumVars())
	}
	ev := make(fg.Evidence, g.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	cfg.Seed = q.Seed
	if q.Progress != nil {
		cfg.Progress = samplerProgress(q.Progress, cfg)
	}
	res, err := sample(ctx, g, ev, cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ans := &infer.Answer{Graph: c, Task: q.Task, NodeOff: make([]int, c.NumNodes()+1), LogZKind: infer.NoLogZ,
		Converged: res.Diag.Mixed}
	for v, X := range c.NodeOf {
		ans.NodeOff[X+1] = int(g.Card[v])
	}
	for X := range c.NumNodes() {
		ans.NodeOff[X+1] += ans.NodeOff[X]
	}
	ans.Belief = make([]float64, ans.NodeOff[c.NumNodes()])
	ans.StdErr = make([]float64, len(ans.Belief))
	for v, X := range c.NodeOf {
		copy(ans.NodeBelief(int(X)), res.Mean[res.Off[v]:res.Off[v+1]])
		copy(ans.StdErr[ans.NodeOff[X]:ans.NodeOff[X+1]], res.StdErr[res.Off[v]:res.Off[v+1]])
	}
	res.entries(ans, func(yield func(at, i int) bool) {
		for v, X := range c.NodeOf {
			for s := range res.Off[v+1] - res.Off[v] {
				if !yield(ans.NodeOff[X]+s, res.Off[v]+s) {
					return
				}
			}
		}
	})
	ans.Stats = infer.Stats{Converged: ans.Converged, Samples: res.Samples, Sweeps: res.Sweeps,
		Chains: len(res.ChainSamples), Interrupted: res.Interrupted, TimeLimited: res.TimeLimited && !res.Interrupted, Clusters: res.Clusters}
	res.fillStats(&ans.Stats)
	return ans, nil
}

// Properties of every sampler (and sat-sweeps and block-prob of mcsat,
// block-size and block-states of bgibbs).
var props = []infer.Property{
	{Name: "samples", Default: "1000", Help: "steps each chain keeps after the burn-in (0: until time-limit)"},
	{Name: "burn-in", Default: "100", Help: "steps each chain discards first"},
	{Name: "chains", Default: "0", Help: "independent chains, each from its own random start (0: " + strconv.Itoa(DefaultChains) + ", whatever the cores)"},
	{Name: "time-limit", Default: "0", Help: "stop every chain after this long, e.g. 30s (0: none)"},
}

// growProps are the properties of the samplers that double their samples
// until mixed.
var growProps = append(append([]infer.Property(nil), props...),
	infer.Property{Name: "max-samples", Default: "8000", Help: "a run not mixed is repeated with twice the samples and burn-in while samples stay at most this"})

func newSampler(m infer.Method, k Kernel, p infer.Properties) (infer.Algorithm, error) {
	cfg := Config{Kernel: k}
	var err error
	if cfg.Samples, err = p.Int(m, "samples"); err != nil {
		return nil, err
	}
	if cfg.BurnIn, err = p.Int(m, "burn-in"); err != nil {
		return nil, err
	}
	if cfg.Chains, err = p.Int(m, "chains"); err != nil {
		return nil, err
	}
	tl := p.String(m, "time-limit")
	if tl != "0" {
		if cfg.TimeLimit, err = time.ParseDuration(tl); err != nil {
			return nil, &infer.PropertyError{Method: m.Name, Name: "time-limit", Value: tl, Msg: fmt.Sprintf("must be a duration such as 30s or 5m, got %q", tl)}
		}
	}
	if k == MCSAT {
		if cfg.SatSweeps, err = p.Int(m, "sat-sweeps"); err != nil {
			return nil, err
		}
		if cfg.SatSweeps < 1 {
			return nil, &infer.PropertyError{Method: m.Name, Name: "sat-sweeps", Msg: fmt.Sprintf("must be at least 1, got %d", cfg.SatSweeps)}
		}
		if cfg.BlockProb, err = p.Float(m, "block-prob"); err != nil {
			return nil, err
		}
		if !(cfg.BlockProb > 0 && cfg.BlockProb <= 1) {
			return nil, &infer.PropertyError{Method: m.Name, Name: "block-prob", Msg: fmt.Sprintf("must be in (0, 1], got %v", cfg.BlockProb)}
		}
		switch sb := p.String(m, "sat-blocks"); sb {
		case "auto":
		case "on":
			cfg.SatBlocks = SatBlocksOn
		case "off":
			cfg.SatBlocks = SatBlocksOff
		default:
			return nil, &infer.PropertyError{Method: m.Name, Name: "sat-blocks", Value: sb, Msg: fmt.Sprintf("must be auto, on or off, got %q", sb)}
		}
	}
	if k == Gibbs {
		switch v := p.String(m, "pairs"); v {
		case "on":
			cfg.Pairs = true
		case "off":
		default:
			return nil, &infer.PropertyError{Method: m.Name, Name: "pairs", Value: v, Msg: fmt.Sprintf("must be on or off, got %q", v)}
		}
	}
	if k == Cluster || k == Orbital || k == Tree || k == Swap || k == BGibbs && m.Name == "bgibbs" {
		if cfg.MaxSamples, err = p.Int(m, "max-samples"); err != nil {
			return nil, err
		}
	}
	if k == BGibbs || k == MCSAT {
		if cfg.BlockSize, err = p.Int(m, "block-size"); err != nil {
			return nil, err
		}
		if cfg.BlockSize < 1 {
			return nil, &infer.PropertyError{Method: m.Name, Name: "block-size", Msg: fmt.Sprintf("must be at least 1, got %d", cfg.BlockSize)}
		}
		if cfg.BlockStates, err = p.Int(m, "block-states"); err != nil {
			return nil, err
		}
		if cfg.BlockStates < 2 {
			return nil, &infer.PropertyError{Method: m.Name, Name: "block-states", Msg: fmt.Sprintf("must be at least 2, got %d", cfg.BlockStates)}
		}
	}
	if k == BGibbs && m.Name == "bgibbs" {
		switch b := p.String(m, "blocks"); b {
		case "auto":
		case "jtree":
			cfg.Blocks = BlocksJTree
		case "enumerate":
			cfg.Blocks = BlocksEnumerate
		default:
			return nil, &infer.PropertyError{Method: m.Name, Name: "blocks", Value: b, Msg: fmt.Sprintf("must be auto, jtree or enumerate, got %q", b)}
		}
		if _, ok := p["block-size"]; ok && cfg.Blocks == BlocksAuto {
			cfg.Blocks = BlocksEnumerate // bounds of enumerated blocks asked for
		}
		if _, ok := p["block-states"]; ok && cfg.Blocks == BlocksAuto {
			cfg.Blocks = BlocksEnumerate
		}
		if cfg.BlockTable, err = p.Int(m, "block-table"); err != nil {
			return nil, err
		}
		if cfg.BlockTable < 2 {
			return nil, &infer.PropertyError{Method: m.Name, Name: "block-table", Msg: fmt.Sprintf("must be at least 2, got %d", cfg.BlockTable)}
		}
	}
	for _, c := range []struct {
		name string
		v    int
	}{{"samples", cfg.Samples}, {"burn-in", cfg.BurnIn}, {"chains", cfg.Chains}} {
		if c.v < 0 {
			return nil, &infer.PropertyError{Method: m.Name, Name: c.name, Msg: fmt.Sprintf("must not be negative, got %d", c.v)}
		}
	}
	if cfg.TimeLimit < 0 {
		return nil, &infer.PropertyError{Method: m.Name, Name: "time-limit", Msg: fmt.Sprintf("must not be negative, got %v", cfg.TimeLimit)}
	}
	if cfg.Samples == 0 && cfg.TimeLimit == 0 {
		return nil, &infer.PropertyError{Method: m.Name, Name: "samples", Msg: "must be positive unless a time-limit is set"}
	}
	return sampler{cfg}, nil
}

func init() {
	var gm, mm, bm, cm, om, tm, sm infer.Method
	gm = infer.Method{
		Name:    "gibbs",
		Summary: "Gibbs sampling: single-site sweeps with joint moves of strongly coupled pairs, several seeded chains, Rao-Blackwellised marginals",
		Tasks:   []infer.Task{infer.Marginals},
		Props: append(append([]infer.Property(nil), props...),
			infer.Property{Name: "pairs", Default: "on", Help: "joint moves of strongly coupled pairs (a long clause's auxiliary variable with each atom, two atoms that want one true but not both): on, or off for single-site sweeps only"}),
		New: func(p infer.Properties) (infer.Algorithm, error) { return newSampler(gm, Gibbs, p) },
	}
	mm = infer.Method{
		Name:    "mcsat",
		Summary: "MC-SAT (slice sampling; SampleSAT-style moves on the satisfying worlds, unit clauses as weights, blocked moves): exact with hard formulas and zeros",
		Tasks:   []infer.Task{infer.Marginals},
		Props: append(append([]infer.Property(nil), props...),
			infer.Property{Name: "sat-sweeps", Default: "1", Help: "uniform sweeps over the satisfying worlds per step"},
			infer.Property{Name: "block-prob", Default: "0.1", Help: "probability of a block move on a constrained factor that single moves could serve"},
			infer.Property{Name: "sat-blocks", Default: "auto", Help: "blocked moves over the satisfying worlds each sweep (blocks as bgibbs's, block-size and block-states): on, off, or auto (on when a sweep over the blocks makes at most 256 table reads per variable)"},
			infer.Property{Name: "block-size", Default: strconv.Itoa(DefaultBlockSize), Help: "most variables in a block of sat-blocks"},
			infer.Property{Name: "block-states", Default: strconv.Itoa(DefaultBlockStates), Help: "most joint states of a block of sat-blocks"}),
		New: func(p infer.Properties) (infer.Algorithm, error) { return newSampler(mm, MCSAT, p) },
	}
	bm = infer.Method{
		Name:    "bgibbs",
		Summary: "blocked Gibbs sampling: blocks of bounded treewidth (or of a few enumerated variables), each drawn jointly from its exact conditional",
		Tasks:   []infer.Task{infer.Marginals},
		Props: append(append([]infer.Property(nil), props...),
			infer.Property{Name: "max-samples", Default: "8000", Help: "with junction-tree blocks, a run not mixed is repeated with twice the samples and burn-in while samples stay at most this and the draws' table entries (all runs) at most " + fmt.Sprintf("%g", BGibbsMaxWork)},
			infer.Property{Name: "blocks", Default: "auto", Help: "jtree (blocks of bounded junction-tree table size, block-table, in covers that hold every factor inside some block, each drawn by forward filtering and backward sampling), enumerate (blocks of at most block-size variables and block-states joint states, enumerated at each step; hard constraints of the exactly-one kind kept inside one block), or auto (jtree on a model without zero entries unless block-size or block-states is set, else enumerate)"},
			infer.Property{Name: "block-table", Default: strconv.Itoa(DefaultBlockTable), Help: "largest junction-tree table (entries) of a block (blocks jtree)"},
			infer.Property{Name: "block-size", Default: strconv.Itoa(DefaultBlockSize), Help: "most variables in a block (blocks enumerate)"},
			infer.Property{Name: "block-states", Default: strconv.Itoa(DefaultBlockStates), Help: "most joint states of a block (blocks enumerate; a block is enumerated at each step)"}),
		New: func(p infer.Properties) (infer.Algorithm, error) { return newSampler(bm, BGibbs, p) },
	}
	cm = infer.Method{
		Name:    "swendsen-wang",
		Summary: "Swendsen-Wang cluster moves on the Ising-like pairwise factors (bonds on satisfied couplings, clusters flipped by heat bath on the rest of the model), each followed by a Gibbs sweep",
		Tasks:   []infer.Task{infer.Marginals},
		Props:   growProps,
		New:     func(p infer.Properties) (infer.Algorithm, error) { return newSampler(cm, Cluster, p) },
	}
	infer.Register(gm)
	infer.Register(mm)
	infer.Register(bm)
	om = infer.Method{
		Name:    "orbital",
		Summary: "orbital MCMC (Niepert 2012): Gibbs sweeps, each after an orbit move that maps the world by a random symmetry of the model (automorphisms of the factor graph with its evidence); jumps between symmetric modes and between the solutions of symmetric hard constraints (matchings, permutations)",
		Tasks:   []infer.Task{infer.Marginals},
		Props:   growProps,
		New:     func(p infer.Properties) (infer.Algorithm, error) { return newSampler(om, Orbital, p) },
	}
	tm = infer.Method{
		Name:    "tree-gibbs",
		Summary: "tree-blocked Gibbs sampling (Hamze and de Freitas 2004): the variables covered by a few forests, each drawn exactly given the rest by forward filtering and backward sampling; for pairwise models (grids) with strong couplings",
		Tasks:   []infer.Task{infer.Marginals},
		Props:   growProps,
		New:     func(p infer.Properties) (infer.Algorithm, error) { return newSampler(tm, Tree, p) },
	}
	sm = infer.Method{
		Name:    "swap",
		Summary: "Gibbs sweeps after partner swaps: two true and two false atoms of the hard constraints flipped together (Metropolis-Hastings), which keep permutation and assignment constraints (exactly one per row and column) satisfied where single flips never move",
		Tasks:   []infer.Task{infer.Marginals},
		Props:   growProps,
		New:     func(p infer.Properties) (infer.Algorithm, error) { return newSampler(sm, Swap, p) },
	}
	infer.Register(cm)
	infer.Register(om)
	infer.Register(tm)
	infer.Register(sm)
}

// runChains runs nc chains at once, chain k by run(k, its record),
// reporting progress (samples kept, worst R-hat) every 200 ms when cfg
// asks for it, and returns their records; an error of a chain other than
// the context's ending is returned.
func runChains(ctx context.Context, nc int, cfg Config, run func(k int, r *chainRun) error) ([]*chainRun, error) {
	runs := make([]*chainRun, nc)
	for k := range runs {
		runs[k] = &chainRun{}
	}
	return runs, continueChains(ctx, runs, cfg, run)
}

// continueChains runs chain k by run(k, runs[k]) for every record of runs
// at once (records a previous call filled go on: chainRun.loop resumes
// them), reporting progress as runChains; an error of a chain other than
// the context's ending is returned.
func continueChains(ctx context.Context, runs []*chainRun, cfg Config, run func(k int, r *chainRun) error) error {
	var wg sync.WaitGroup
	for k := range runs {
		runs[k].err = nil
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[k].err = run(k, runs[k])
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if cfg.Progress != nil {
		tick := time.NewTicker(200 * time.Millisecond)
	wait:
		for {
			select {
			case <-done:
				break wait
			case <-tick.C:
				n, burn, r := snapshot(runs)
				cfg.Progress(n, burn, r)
			}
		}
		tick.Stop()
	} else {
		<-done
	}
	for _, r := range runs {
		if r.err != nil && !errors.Is(r.err, ctx.Err()) {
			return r.err
		}
	}
	return nil
}

// samplerProgress is the Config.Progress of a sampler run that reports
// to p: samples kept of the total, burn-in steps of theirs (all chains; 0
// totals when the chains run until a time limit).
func samplerProgress(p func(infer.Progress), cfg Config) func(int, int, float64) {
	nc := defaultChains(cfg.Chains)
	total, burnTotal := nc*cfg.Samples, 0
	if cfg.Samples > 0 {
		burnTotal = nc * cfg.BurnIn
	}
	return func(n, burn int, r float64) {
		// A run that has not mixed goes on with doubled samples (bgibbs,
		// tempering, auto's escalation): the total doubles with it, so the
		// progress never reads "14978 of 8000 (187%, about -3s left)".
		for total > 0 && n > total {
			total *= 2
		}
		p(infer.Progress{Samples: n, RHat: r, Sampling: true, SamplesTotal: total, BurnIn: burn, BurnInTotal: burnTotal})
	}
}

// collect gathers the chains' sums, sample and sweep counts (and traces)
// into a Result; no sample kept is an error (the context's, when it ended
// the run). who prefixes the error.
func collect(ctx context.Context, runs []*chainRun, cfg Config, who string) (*Result, error) {
	res := &Result{ChainSum: make([][]float64, len(runs)), ChainSamples: make([]int, len(runs))}
	for k, r := range runs {
		res.ChainSum[k] = r.sum
		res.ChainSamples[k] = r.n
		res.Samples += r.n
		res.Sweeps += r.steps
		res.TimeLimited = res.TimeLimited || r.cut
		if cfg.Trace {
			res.Trace = append(res.Trace, r.trace)
		}
	}
	res.Interrupted = ctx.Err() != nil
	if res.Samples == 0 {
		if res.Interrupted {
			return nil, ctx.Err()
		}
		return nil, errors.New(who + ": no sample was kept (the time limit ended the burn-in)")
	}
	return res, nil
}

// record counts a step of the chain and, when it is kept, adds its
// Rao-Blackwellised conditionals cond to the sums (and the trace).
func (r *chainRun) record(keep bool, cond, point []float64, trace bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.steps++
	if !keep {
		return
	}
	r.diag.Add(point)
	for i, p := range cond {
		r.sum[i] += p
		r.sumsq[i] += p * p
	}
	r.n++
	if trace {
		r.trace = append(r.trace, append([]float64(nil), cond...))
	}
}

// loop runs a chain's steps: burn-in, then kept steps (all of them until
// the deadline when cfg.Samples is 0), stopping at the context's end or the
// deadline. step advances the chain by one step; for a kept step it gets
// the slice (of size entries) to write the Rao-Blackwellised conditionals
// into, during burn-in nil. A record that a previous loop filled is
// resumed: its sums, trace and step count are kept, and the chain goes on
// from its last step to cfg.BurnIn + cfg.Samples steps (resumable
// tempering: a run not mixed is extended, not restarted).
func (r *chainRun) loop(ctx context.Context, cfg Config, deadline time.Time, size int, sel []int, nc int, score func() float64, step func(cond []float64) error) error {
	cond := make([]float64, size)
	point := make([]float64, len(sel)+1)
	r.mu.Lock()
	if r.sum == nil {
		r.sum, r.sumsq = make([]float64, size), make([]float64, size)
		r.diag = diag.NewTrace(len(point), traceLen(nc, len(point)))
	}
	k0, kept0 := r.steps, r.n > 0
	r.mu.Unlock()
	// Sampling until a deadline, the burn-in ends after BurnIn steps or
	// half the time, whichever comes first, so that a slow chain keeps
	// samples (and the diagnostics judge them) instead of none.
	var burnEnd time.Time
	if cfg.Samples == 0 && !deadline.IsZero() && cfg.TimeLimit > 0 {
		burnEnd = deadline.Add(-cfg.TimeLimit / 2)
	}
	// A chain the deadline reaches before it kept a step keeps one more
	// (a loaded machine can spend a short time limit on the set-up): an
	// answer whose diagnostics say "not mixed" rather than none.
	burnt, kept := kept0, kept0
	for k := k0; cfg.Samples == 0 || k < cfg.BurnIn+cfg.Samples; k++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := time.Time{}
		late := false
		if !deadline.IsZero() {
			now = time.Now()
			if now.After(deadline) {
				if kept {
					r.cut = true
					return nil
				}
				late = true
			}
		}
		burnt = burnt || late || k >= cfg.BurnIn || !burnEnd.IsZero() && now.After(burnEnd)
		kept = kept || burnt
		keep := burnt
		c := cond
		if !keep {
			c = nil
		}
		if err := step(c); err != nil {
			return err
		}
		if keep {
			for j, i := range sel {
				point[j] = cond[i]
			}
			point[len(sel)] = score()
		}
		r.record(keep, cond, point, cfg.Trace)
	}
	return nil
}

// average sets Off (g's variables' states in the flat vectors) and Mean,
// the average over all chains' kept steps of the conditionals they summed.
func (res *Result) average(g *fg.Graph, runs []*chainRun) {
	res.Off = make([]int, g.NumVars()+1)
	for v := range g.NumVars() {
		res.Off[v+1] = res.Off[v] + int(g.Card[v])
	}
	res.Mean = make([]float64, res.Off[g.NumVars()])
	for _, r := range runs {
		for i, s := range r.sum {
			res.Mean[i] += s
		}
	}
	for i := range res.Mean {
		res.Mean[i] /= float64(res.Samples)
	}
}

// blockDefaults fills the block limits left 0 with DefaultBlockSize and
// DefaultBlockStates and returns ev, or no evidence for g when ev is nil.
func (cfg *Config) blockDefaults(g *fg.Graph, ev fg.Evidence) fg.Evidence {
	if cfg.BlockSize <= 0 {
		cfg.BlockSize = DefaultBlockSize
	}
	if cfg.BlockStates <= 0 {
		cfg.BlockStates = DefaultBlockStates
	}
	if cfg.BlockTable <= 0 {
		cfg.BlockTable = DefaultBlockTable
	}
	if ev == nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	return ev
}

// entries copies the per-entry diagnostics (Pass, EntryRHat and the
// spread of the chains' own estimates) into ans: each pair of each names
// an entry of ans.Belief and the entry of Mean it holds.
func (res *Result) entries(ans *infer.Answer, each iter.Seq2[int, int]) {
	n := len(ans.Belief)
	ans.EntryMixed, ans.EntryRHat = make([]bool, n), make([]float64, n)
	ans.ChainLo, ans.ChainHi = make([]float64, n), make([]float64, n)
	for i := range n {
		ans.EntryRHat[i] = math.NaN()
		ans.ChainLo[i], ans.ChainHi[i] = math.NaN(), math.NaN()
	}
	for at, i := range each {
		if res.Pass != nil {
			ans.EntryMixed[at], ans.EntryRHat[at] = res.Pass[i], res.EntryRHat[i]
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for k, sum := range res.ChainSum {
			if n := res.ChainSamples[k]; n > 0 && i < len(sum) {
				m := sum[i] / float64(n)
				lo, hi = min(lo, m), max(hi, m)
			}
		}
		if lo <= hi {
			ans.ChainLo[at], ans.ChainHi[at] = lo, hi
		}
		if res.Diag.Frozen {
			// Some chain never left a world: the chains' spread says
			// nothing of where the marginal lies (MC-SAT on a perfect
			// matching: the spread missed the exact marginal on half
			// the atoms).
			ans.ChainLo[at], ans.ChainHi[at], ans.EntryRHat[at] = 0, 1, math.MaxFloat64
		}
	}
}
