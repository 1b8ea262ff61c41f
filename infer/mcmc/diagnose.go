package mcmc

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/mcmc/diag"
)

// DefaultChains is the number of chains when Config.Chains is 0, whatever
// the machine's cores (a count that followed the cores would change the
// answer from one machine to another): the diagnostics (diag) compare
// split chains, and the paper they follow recommends at least four.
const DefaultChains = 8

// ProbTol is the absolute precision to which the diagnostics judge a
// marginal probability (diag.SummariseTol): conditionals that differ by
// less are one value. The standard errors and the calibration's 1/N are
// far above it; without it, an atom whose conditional stays below 1e-12
// in every chain (most advisedBy atoms of UW-CSE) was "frozen" because a
// neighbour made it 9e-13 in one chain and 2e-12 in another.
const ProbTol = 1e-9

// defaultChains returns the number of chains to run for Config.Chains n.
func defaultChains(n int) int {
	if n > 0 {
		return n
	}
	return DefaultChains
}

// traceBudget bounds the numbers the diagnostic traces keep, all chains
// together (64 MiB of float64), but for the floor of 16 points per
// quantity and chain.
const traceBudget = 1 << 23

// traceLen is the L of diag.NewTrace for nc chains of q quantities: 512
// (raw draws up to 1023 kept steps), less when the budget is short.
func traceLen(nc, q int) int {
	l := 512
	if per := traceBudget / max(2*nc*q, 1); per < l {
		l = max(per, 16)
	}
	return l
}

// diagnosed returns the entries of the flat conditional vector that the
// diagnostics follow: per unobserved variable, its state 1 when it is
// binary (state 0 is its complement: the same diagnostics), else every
// state.
func diagnosed(g *fg.Graph, ev fg.Evidence) []int {
	var sel []int
	off := 0
	for v := range g.NumVars() {
		k := int(g.Card[v])
		switch {
		case ev != nil && ev[v] >= 0 || k < 2:
		case k == 2:
			sel = append(sel, off+1)
		default:
			for s := range k {
				sel = append(sel, off+s)
			}
		}
		off += k
	}
	return sel
}

// Diagnostics are a run's convergence diagnostics (package diag) over
// every diagnosed marginal entry and the state's score.
type Diagnostics struct {
	// RHat is the worst rank-normalised split-R-hat (math.MaxFloat64 for
	// chains stuck in different states), BulkESS and TailESS the smallest
	// effective sample sizes, all over the quantities.
	RHat, BulkESS, TailESS float64
	// Mixed says every quantity passed diag's rule (R-hat < 1.01, bulk
	// and tail ESS ≥ 100 per chain).
	Mixed bool
	// Why says, when not Mixed, which diagnostic failed where, and what
	// can help.
	Why string
	// Frozen says some quantity was constant within every chain but not
	// across chains: the chains sit in states their moves cannot leave.
	Frozen bool
	// Batch is the number of kept steps each diagnosed point averages
	// (1: the draws themselves; see diag.Trace).
	Batch int
}

// diagnose computes the diagnostics of the chains' traces into res: its
// Diagnostics, RHat, and StdErr (parallel to Mean, offsets off; nil off
// means one entry per quantity of sel, as lbg's atoms). sel names the
// entries the traces follow; the trace's last quantity is the score.
func (res *Result) diagnose(runs []*chainRun, sel []int, off []int, k Kernel) {
	var ts []*diag.Trace
	for _, r := range runs {
		if r.diag != nil && r.diag.Len() > 0 {
			ts = append(ts, r.diag)
		}
	}
	size := len(res.Mean)
	res.StdErr = make([]float64, size)
	res.Pass, res.EntryRHat = make([]bool, size), make([]float64, size)
	for i := range size {
		res.Pass[i], res.EntryRHat[i] = true, 1
	}
	d := Diagnostics{RHat: 1, BulkESS: math.Inf(1), TailESS: math.Inf(1), Mixed: true}
	if len(ts) < 2 {
		d = Diagnostics{RHat: math.MaxFloat64, Why: fmt.Sprintf("%d chain(s) kept samples; the diagnostics compare at least two", len(ts))}
		res.Diag, res.RHat = d, d.RHat
		for i := range res.StdErr {
			res.StdErr[i], res.Pass[i], res.EntryRHat[i] = math.Inf(1), false, math.MaxFloat64
		}
		return
	}
	diag.Align(ts)
	d.Batch = ts[0].Batch()
	nq := len(sel) + 1
	sums := make([]diag.Summary, nq)
	var wg sync.WaitGroup
	workers := min(runtime.GOMAXPROCS(0), nq)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cols := make([][]float64, len(ts))
			for j := w; j < nq; j += workers {
				for c, t := range ts {
					cols[c] = t.Column(j)
				}
				tol := 0.0
				if j < len(sel) {
					tol = ProbTol
				}
				sums[j] = diag.SummariseTol(cols, tol)
			}
		}()
	}
	wg.Wait()
	worst := -1 // the failing quantity with the largest R-hat, else the smallest ESS
	for j, s := range sums {
		if !s.Pass() {
			if worst < 0 {
				worst = j
			} else if w := sums[worst]; s.RHat > w.RHat || s.RHat == w.RHat && min(s.BulkESS, s.TailESS) < min(w.BulkESS, w.TailESS) {
				worst = j
			}
		}
		d.RHat = max(d.RHat, s.RHat)
		d.BulkESS = min(d.BulkESS, s.BulkESS)
		d.TailESS = min(d.TailESS, s.TailESS)
		if !s.Pass() {
			d.Mixed = false
		}
		if math.IsInf(s.RHat, 1) {
			d.Frozen = true
		}
		if j < len(sel) {
			res.StdErr[sel[j]] = s.MCSE
			res.Pass[sel[j]], res.EntryRHat[sel[j]] = s.Pass(), min(s.RHat, math.MaxFloat64)
		}
	}
	// An entry counts as mixed on its own only when the state as a whole
	// did too (the score's diagnostics pass, no chain frozen): chains
	// that hard constraints hold in different worlds can agree on an
	// atom whose conditional those worlds share (calibration: Gibbs on
	// MLNs with hard formulas had such atoms 0.2 off).
	if !sums[len(sel)].Pass() || d.Frozen {
		for _, i := range sel {
			res.Pass[i] = false
		}
	}
	// A binary variable's state 0 has the standard error of its state 1.
	if off != nil {
		for v := 0; v+1 < len(off); v++ {
			if off[v+1]-off[v] == 2 {
				res.StdErr[off[v]] = res.StdErr[off[v]+1]
				res.Pass[off[v]], res.EntryRHat[off[v]] = res.Pass[off[v]+1], res.EntryRHat[off[v]+1]
			}
		}
	}
	name := func(j int) string {
		if j == len(sel) {
			if k == lbgKernel {
				return "the number of true atoms of the state"
			}
			return "the log-score of the state"
		}
		i := sel[j]
		if off == nil {
			return fmt.Sprintf("atom %d", i)
		}
		v := 0
		for off[v+1] <= i {
			v++
		}
		return fmt.Sprintf("P(variable %d = %d)", v, i-off[v])
	}
	if !d.Mixed {
		s := sums[worst]
		need := float64(diag.ESSPerChain * len(ts))
		switch {
		case d.Frozen && res.soft && k != temperKernel:
			d.Why = fmt.Sprintf("the chains sit in different states they never left (%s is constant in each chain but differs between them): the model has no hard constraints, so strong couplings separate its modes; more samples will not help; use --method tempering (an adaptive ladder that doubles its samples until mixed)", name(worst))
		case d.Frozen && k == Gibbs:
			d.Why = fmt.Sprintf("the chains sit in different states that single-site moves cannot leave (%s is constant in each chain but differs between them): hard constraints (zero entries) separate the worlds, and more samples will not help; %s", name(worst), frozenHint)
		case d.Frozen:
			d.Why = fmt.Sprintf("the chains sit in different states they never left (%s is constant in each chain but differs between them); more samples will not help; %s", name(worst), frozenHint)
		case s.RHat >= diag.RHatMax && k == temperKernel:
			d.Why = fmt.Sprintf("the chains disagree: R-hat %.4g ≥ %.2f on %s (bulk ESS %.0f, tail ESS %.0f) after the samples were doubled up to max-samples or max-work; the slowest mode needs more steps: raise --prop max-samples and --prop max-work (on frustrated grids neither base=tree-gibbs nor more rungs bought effective samples per CPU second: bench/frustrated/RESULTS.md)", s.RHat, diag.RHatMax, name(worst), s.BulkESS, s.TailESS)
		case s.RHat >= diag.RHatMax:
			d.Why = fmt.Sprintf("the chains disagree: R-hat %.4g ≥ %.2f on %s (bulk ESS %.0f, tail ESS %.0f); the model may have several modes the chains do not cross between: raise --samples and --burn-in, or use --method tempering (an adaptive ladder that doubles its samples until mixed)", s.RHat, diag.RHatMax, name(worst), s.BulkESS, s.TailESS)
		default:
			d.Why = fmt.Sprintf("too few effective samples: bulk ESS %.0f, tail ESS %.0f on %s, need %.0f (%d per chain); raise --samples", s.BulkESS, s.TailESS, name(worst), need, diag.ESSPerChain)
		}
	}
	res.Diag = d
	res.RHat = d.RHat
	if math.IsInf(res.RHat, 1) {
		res.RHat = math.MaxFloat64
	}
}

// NoZeros reports whether no table of g has a zero entry (no hard
// constraints: chains that never leave their states are held by strong
// couplings, which tempering crosses, not by zeros); auto's escalation
// asks it too.
func NoZeros(g *fg.Graph) bool {
	for _, t := range g.Tables {
		for _, v := range t.Values {
			if v == 0 {
				return false
			}
		}
	}
	return true
}

// frozenHint is what the diagnostics advise when chains never leave their
// states: the moves measured to cross hard constraints of each kind
// (internal/calib's classes: orbital on perfect matchings, swap on
// permutations; mcsat and bgibbs on small constrained blocks; on the event
// calculus's runs of atoms tied along time no sampler, and the junction
// tree answers exactly: LoMRF's Yale shooting, 135 atoms, in 0.01 s).
const frozenHint = "for matching or permutation constraints (exactly one per row and column) use --method swap (partner swaps); when the model is symmetric (interchangeable constants, as in a matching) --method orbital (moves along its symmetries); for small tied blocks --method bgibbs or mcsat; for runs of atoms that hard constraints tie along a sequence (event calculus, time steps) --method jtree answers exactly where the treewidth is small"

// fillStats copies the diagnostics into a run's statistics (infinite
// sizes, of quantities that never vary, as the number of samples: JSON
// has no infinity).
func (res *Result) fillStats(st *infer.Stats) {
	d := res.Diag
	st.RHat = res.RHat
	fin := func(x float64) float64 {
		if math.IsInf(x, 1) {
			return float64(res.Samples)
		}
		return x
	}
	st.BulkESS, st.TailESS = fin(d.BulkESS), fin(d.TailESS)
	st.Converged = d.Mixed
	st.Mixing = d.Why
	st.SwapRates = res.SwapRates
	st.Temperatures = res.Temps
}
