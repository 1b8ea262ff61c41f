package exact

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/jtree"
	"github.com/lifted-dev/lifted/infer/mcmc"
	"github.com/lifted-dev/lifted/lift"

	_ "github.com/lifted-dev/lifted/infer/mcmc" // registers "mcsat", the BP chain's last resort
)

// TinyStates is the largest joint state space that auto enumerates: below
// it enumeration (an independent, trivially correct computation) takes
// milliseconds; above it the junction tree is faster.
const TinyStates = 1 << 16

// planWork bounds the adjacency scanning of auto's min-fill planning
// (about a quarter of a second): a graph whose order it does not find
// within it is not one jtree answers quickly anyway.
const planWork = 50_000_000

// ground picks a method for the ground graph g under ev (nil: none),
// after why (what was tried before, "" for none): enumeration when g has
// at most TinyStates joint states, the junction tree when its min-fill
// plan fits jtree's limits (a.JTree), else lifted BP with its fallbacks
// and then MC-SAT (bpChain). For marginals and log Z, a graph larger than
// TinyStates states whose unobserved variables fall into two or more
// connected components is answered component by component instead
// (byComponents), each by the first of the same methods that fits it.
func (a *Auto) ground(ctx context.Context, g *fg.Graph, ev fg.Evidence, q infer.Query, why string) (infer.Choice, error) {
	join := func(s string) string {
		if why == "" {
			return s
		}
		return why + "; " + s
	}
	s := States(g, ev)
	if s <= TinyStates && q.Task != infer.MAP {
		return infer.Choice{Name: "enumerate", Algorithm: Enumerate{MaxStates: DefaultMaxStates},
			Reason: join(fmt.Sprintf("the grounding has %.0f joint states, so exact by enumeration", s))}, nil
	}
	if q.Task != infer.MAP {
		comps, err := g.Components(ev)
		if err != nil {
			return infer.Choice{}, err
		}
		if comps.Len() >= 2 {
			// Each component by the cheapest method that fits it
			// (byComponents); its answer says which answered.
			return infer.Choice{Name: "components", Algorithm: &byComponents{auto: a},
				Reason: join(fmt.Sprintf("the grounding has %s joint states in %d connected components given the evidence, each answered by the cheapest method that fits it", statesText(s), comps.Len()))}, nil
		}
	}
	j := a.JTree
	p, err := j.CheckWithin(ctx, g, ev, planWork)
	if ctx.Err() != nil {
		return infer.Choice{}, ctx.Err()
	}
	if err == nil {
		return infer.Choice{Name: "jtree", Algorithm: j,
			Reason: join(fmt.Sprintf("min-fill elimination: treewidth %d, largest table %s entries (%s), so exact by junction tree",
				p.Treewidth, jtree.Count(p.Largest), jtree.Bytes(8*p.Largest)))}, nil
	}
	too := "exact inference is too large"
	if p != nil {
		too = "jtree refuses: " + p.Describe()
	}
	chain := a.chain()
	if q.Task == infer.MAP {
		return infer.Choice{Name: "lbp", Algorithm: chain, Lifted: true, Reason: join(too + "; max-product lifted BP")}, nil
	}
	return infer.Choice{Name: "lbp", Algorithm: chain, Lifted: true,
		Reason: join(too + "; lifted BP (as asked, then damping 0.5, within its slice of iterations), then the sampler within its work budget")}, nil
}

// bpChain is auto's approximate path: lifted BP as asked, then its first
// fallback (damping 0.5), within a slice of bpIter BP iterations (half
// each); a try that converges answers (damping does not change BP's fixed
// points). When neither converges in the slice — or BP fails (messages not
// normalizable) — the sampler (MC-SAT by default) on the ground graph for
// the rest of auto's CPU budget (samplerWall), its answer marked converged
// only when its chains mixed (infer/mcmc/diag's rule) and carrying its
// standard errors. MAP queries stop after BP.
type bpChain struct {
	lbp infer.Algorithm
	// bpIter is BP's slice: < 0 skips BP, 0 lets every try (as asked and
	// all of BP's fallbacks) run to its own iteration limit.
	bpIter int
	// bpWork, when positive, caps the slice at bpWork lifted-edge updates
	// (iterations × the compressed graph's edges), at least minSlice
	// iterations: a large graph gets fewer iterations.
	bpWork      float64
	sampler     string        // "" : mcsat
	samplerTime time.Duration // > 0: fixed wall time (asked for: the answer is time-limited)
	cpuBudget   time.Duration // > 0: the rest of this process CPU time (asked for)
	samples     int           // > 0: samples per chain
	work        float64       // <= 0: DefaultSamplerWork (edge visits, all chains)
	// noCheck returns BP's converged answer without running the sampler
	// to check it (bp-check 0).
	noCheck bool
	// escalateWork is the budget of the sampler tried when the first
	// one did not mix (escalation), in edge visits; 0: the default,
	// DefaultEscalateWork; < 0: none.
	escalateWork float64
}

// ApproxAlgorithm implements infer.Approximator: under a tolerance the
// approximate liftings run lifted BP as asked (with its fallbacks), and
// the chain answers on the exact compression when none meets it.
func (b *bpChain) ApproxAlgorithm() infer.Algorithm { return b.lbp }

// chain is a's approximate path.
func (a *Auto) chain() *bpChain {
	return &bpChain{lbp: a.LBP, bpIter: a.BPIter, sampler: a.Sampler, samplerTime: a.SamplerTime, cpuBudget: a.CPUBudget, samples: a.SamplerSamples, bpWork: a.BPWork, work: a.SamplerWork, noCheck: a.NoBPCheck, escalateWork: a.EscalateWork}
}

// iterLimiter is BP's iteration limit (infer/bp.Algorithm).
type iterLimiter interface {
	WithMaxIter(n int) infer.Algorithm
	MaxIterations() int
}

// tries is the list of BP runs within the slice: as asked, then (unless
// the slice is 0, no slice) only the first fallback; each with its share
// of the slice as its iteration limit where the algorithm has one.
func (b *bpChain) tries(slice int) []infer.Fallback {
	if b.bpIter < 0 {
		return nil
	}
	out := []infer.Fallback{{Name: "as asked", Algorithm: b.lbp}}
	if fb, ok := b.lbp.(infer.Fallbacks); ok {
		out = append(out, fb.Fallbacks()...)
	}
	if b.bpIter == 0 {
		return out
	}
	out = out[:min(len(out), 2)]
	left := slice
	for i := range out {
		share := left / (len(out) - i)
		left -= share
		if l, ok := out[i].Algorithm.(iterLimiter); ok {
			out[i].Algorithm = l.WithMaxIter(min(l.MaxIterations(), max(share, 1)))
		}
	}
	return out
}

// minSlice is the fewest BP iterations a work-capped slice allows.
const minSlice = 20

// slice is BP's slice on c: bpIter, capped by bpWork over c's edges.
func (b *bpChain) slice(c *lift.Compressed) int {
	n := b.bpIter
	if b.bpWork > 0 && n > 0 {
		n = min(n, max(minSlice, int(b.bpWork/float64(max(c.NumEdges(), 1)))))
	}
	return n
}

func (b *bpChain) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	slice := b.slice(c)
	var tried []string
	var iters int
	var msgs int64
	var ans, bpAns *infer.Answer
	var lastErr error
	for k, t := range b.tries(slice) {
		next, err := t.Algorithm.Run(ctx, c, q)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err != nil {
			tried = append(tried, t.Name+" ("+shortError(err)+")")
			lastErr = err
			continue
		}
		name := t.Name
		if l, ok := t.Algorithm.(iterLimiter); ok && b.bpIter > 0 {
			name += fmt.Sprintf(" %d iterations", l.MaxIterations())
		}
		tried = append(tried, name)
		iters += next.Stats.BPIterations
		msgs += next.Stats.Messages
		ans = next
		if ans.Converged || ans.Stats.Interrupted {
			if k > 0 {
				ans.Stats.Fallback = t.Name
			}
			ans.Stats.BPIterations, ans.Stats.Messages = iters, msgs
			if q.Task != infer.Marginals || ans.Stats.Interrupted || b.noCheck {
				return ans, nil
			}
			// BP's messages converged, which says nothing of the
			// marginals' accuracy: the sampler answers, and BP's fixed
			// point is checked against it.
			bpAns = ans
			break
		}
	}
	bpFailed := "lifted BP did not converge (tried " + strings.Join(tried, ", ") + ")"
	switch {
	case bpAns != nil:
		bpFailed = fmt.Sprintf("lifted BP's messages converged (tried %s; %d iterations), which says nothing of the marginals' accuracy", strings.Join(tried, ", then "), iters)
	case b.bpIter < 0:
		bpFailed = "lifted BP skipped (bp-iter 0)"
	case b.bpIter > 0:
		bpFailed = fmt.Sprintf("lifted BP did not converge within its slice of %d iterations (tried %s)", slice, strings.Join(tried, ", "))
	}
	if q.Task != infer.Marginals {
		if ans == nil {
			if lastErr == nil {
				lastErr = errors.New("no BP run")
			}
			return nil, fmt.Errorf("%s: %w", bpFailed, lastErr)
		}
		ans.Stats.BPIterations, ans.Stats.Messages = iters, msgs
		return ans, nil
	}
	name, why := b.sampler, ""
	if name == "" || name == "auto" {
		name, why = ChooseSampler(c.Ground)
		why = " (" + why + ")"
	}
	chains := SamplerChains
	var st time.Duration
	var props infer.Properties
	var how string
	timed := false
	switch {
	case b.samples > 0:
		props = infer.Properties{"samples": strconv.Itoa(b.samples), "chains": strconv.Itoa(chains)}
		how = fmt.Sprintf("%d samples per chain", b.samples)
	case b.samplerTime > 0 || b.cpuBudget > 0:
		st, timed = b.samplerWall(), true
		props = infer.Properties{"time-limit": st.String(), "samples": "0", "chains": strconv.Itoa(chains)}
		how = fmt.Sprintf("for %v (sampler-time)", st.Round(time.Millisecond))
		if b.samplerTime <= 0 {
			how = fmt.Sprintf("for %v (the rest of auto's CPU budget of %v)", st.Round(time.Millisecond), b.cpuBudget)
		}
	}
	ev := make(fg.Evidence, c.Ground.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	gc, err := lift.GroundContext(ctx, c.Ground, ev)
	if err != nil {
		return nil, err
	}
	var probe infer.Properties // a first run on a share of the work
	var probeHow string
	if props == nil {
		cost := StepWork(name, c.Ground, ev)
		burn, keep := SamplerSweeps(b.work, chains, cost)
		props = infer.Properties{"samples": strconv.Itoa(keep), "burn-in": strconv.Itoa(burn), "chains": strconv.Itoa(chains)}
		edges := fmt.Sprintf("a step visiting %.0f: %d edges", cost, c.Ground.NumEdges())
		if extra := int(cost) - c.Ground.NumEdges(); extra > 0 {
			edges += fmt.Sprintf(" and %d for the joint moves of strongly coupled pairs", extra)
		}
		how = fmt.Sprintf("%d samples per chain after %d burn-in steps (%d chains; sampler-work %.3g edge visits, %s)", keep, burn, chains, b.workOrDefault(), edges)
		if pb, pk := SamplerSweeps(b.workOrDefault()/ProbeShare, chains, cost); b.escalateWork >= 0 && mcmc.NoZeros(c.Ground) && pb+pk < burn+keep {
			probe = infer.Properties{"samples": strconv.Itoa(pk), "burn-in": strconv.Itoa(pb), "chains": strconv.Itoa(chains)}
			probeHow = fmt.Sprintf("%d samples per chain after %d burn-in steps (%d chains; 1/%d of sampler-work %.3g edge visits, %s)", pk, pb, chains, ProbeShare, b.workOrDefault(), edges)
		}
	}
	var s *infer.Answer
	if probe != nil {
		// A model without hard constraints gets a probe first (a share of
		// the work): far from mixed there, the rest of the budget goes
		// to the escalation instead (tempering, built for the strong
		// couplings that hold single-site chains); otherwise the full
		// run follows, as without the probe (the same answer, bit for
		// bit).
		mc, _, err := infer.New(name, probe)
		if err != nil {
			return nil, err
		}
		p, err := mc.Run(ctx, gc, q)
		switch {
		case err != nil || ctx.Err() != nil || p.Converged:
		case p.Stats.RHat >= ProbeRHat && !p.Stats.Interrupted:
			far := fmt.Sprintf("worst R-hat %.3g ≥ %g", p.Stats.RHat, ProbeRHat)
			if p.Stats.RHat >= math.MaxFloat64 {
				far = "chains in different states they never left"
			}
			s, how = p, fmt.Sprintf("%s, far from mixed (%s): the rest of sampler-work is left to the escalation", probeHow, far)
		}
	}
	if s == nil {
		var mc infer.Algorithm
		if mc, _, err = infer.New(name, props); err != nil {
			return nil, err
		}
		s, err = mc.Run(ctx, gc, q)
	}
	if err != nil && bpAns != nil {
		bpAns.Stats.Method = "lbp"
		bpAns.Stats.MethodReason = fmt.Sprintf("%s; %s gave no answer to check it against (%s): BP's fixed point", bpFailed, name, shortError(err))
		return bpAns, nil
	}
	if err != nil {
		if ans != nil {
			ans.Stats.BPIterations, ans.Stats.Messages = iters, msgs
			ans.Stats.Method = "lbp"
			ans.Stats.MethodReason = fmt.Sprintf("%s; %s gave no answer (%s): BP's last answer, not converged", bpFailed, name, shortError(err))
			return ans, nil // BP's last answer, marked not converged
		}
		return nil, fmt.Errorf("%s; %s: %w", bpFailed, name, err)
	}
	s.Stats.Method = name
	s.Stats.BPIterations, s.Stats.Messages = iters, msgs
	mixed := "mixed by the diagnostics' rule: rank-normalised R-hat < 1.01, bulk and tail ESS >= 100 per chain"
	if !s.Converged {
		mixed = "NOT mixed by the diagnostics' rule (R-hat < 1.01, ESS >= 100 per chain): its standard errors are not to be trusted"
	}
	s.Stats.TimeLimited = s.Stats.TimeLimited || timed
	s.Stats.MethodReason = fmt.Sprintf("%s; %s%s %s, %s", bpFailed, name, why, how, mixed)
	if !timed && b.samples <= 0 && b.escalateWork >= 0 {
		s = b.escalate(ctx, gc, q, name, s)
		s.Stats.BPIterations, s.Stats.Messages = iters, msgs
	}
	if bpAns != nil {
		s.Stats.MethodReason += "; " + checkBP(s, bpAns)
	}
	return s, nil
}

// ProbeShare and ProbeRHat rule the probe of auto's sampler on a model
// without hard constraints (zero entries), when escalation is on: a first
// run on 1/ProbeShare of sampler-work, whose answer stands when its worst
// R-hat is ProbeRHat or more (far from mixed: the chains sit in modes
// that strong couplings separate, as on a frustrated 40×40 grid, where
// the rest of the budget would not mix them either, and the escalation's
// tempering is tried sooner: auto on that grid went from 14.5 to 8 CPU s);
// otherwise the full run follows and answers, as without the probe.
const (
	ProbeShare = 4
	ProbeRHat  = 1.1
)

// BPAgree is how far (beyond four standard errors) BP's fixed point may
// lie from a sampler's mixed estimate and count as agreeing with it.
const BPAgree = 0.01

// checkBP compares BP's converged beliefs (on its counted graph) with the
// sampler's answer s (on the ground graph) entry by entry: where the
// chains mixed the sampler's estimate stands, and BP agrees when within
// four standard errors plus BPAgree; where they did not, BP's belief,
// when inside the interval the chains span (two standard errors wider),
// replaces the chains' pooled mean as the point estimate (the entry stays
// unresolved). It returns what it found, in words.
func checkBP(s, bpAns *infer.Answer) string {
	c := bpAns.Graph
	var mixed, agree, unresolved, used int
	worst := 0.0
	for v := range s.Graph.NodeOf {
		X, Y := int(s.Graph.NodeOf[v]), int(c.NodeOf[v])
		sb, bb := s.NodeBelief(X), bpAns.NodeBelief(Y)
		o := s.NodeOff[X]
		if c.NodeEvidence[Y] >= 0 || len(sb) != len(bb) {
			continue
		}
		inside := true
		for x := range sb {
			i := o + x
			se := s.StdErr[i]
			if s.EntryMixed == nil || s.EntryMixed[i] {
				mixed++
				d := math.Abs(bb[x] - sb[x])
				worst = max(worst, d)
				if d <= 4*se+BPAgree {
					agree++
				}
				inside = false
				continue
			}
			unresolved++
			w := 0.0
			if se >= 0 && !math.IsInf(se, 0) {
				w = 2 * se
			}
			lo, hi := min(s.ChainLo[i], sb[x])-w, max(s.ChainHi[i], sb[x])+w
			if !(bb[x] >= lo && bb[x] <= hi) {
				inside = false
			}
		}
		if inside && len(sb) > 0 {
			copy(sb, bb)
			used++
		}
	}
	msg := fmt.Sprintf("BP's fixed point agrees with the sampler on %d of its %d mixed entries (within 4 standard errors + %g; largest difference %.3g)", agree, mixed, BPAgree, worst)
	if unresolved > 0 {
		msg += fmt.Sprintf("; on %d variables the chains have not mixed but span BP's belief, which is printed there (still unresolved)", used)
	}
	return msg
}

// NearDeterministic is the log-ratio within one factor's table (or a zero
// entry) from which ChooseSampler counts the factor near-deterministic:
// e^5 ≈ 148.
const NearDeterministic = 5.0

// NearDeterministicShare is the share of factors near-deterministic from
// which ChooseSampler picks MC-SAT. Measured: Cora 24% (a weight-10
// exclusion between every two categories of a paper), UW-CSE 1.07% (the
// hard definitions of the auxiliary atoms of its 68-atom clauses).
const NearDeterministicShare = 0.05

// ChooseSampler is auto's sampler for g and why: MC-SAT (slice sampling
// over the satisfying worlds, built for it) when at least
// NearDeterministicShare of the factors are deterministic or nearly so
// — a zero entry, or entries NearDeterministic or more apart in log
// space — where single-site Gibbs stalls (Cora: a weight-10 mutual
// exclusion on every paper); else Gibbs, whose sweeps are cheaper and
// which crosses between the modes of softly weighted models where
// MC-SAT's chains stick (UW-CSE, whose few hard factors define the
// auxiliary atoms of its long clauses: bench/realdata/MARGINALS.md).
func ChooseSampler(g *fg.Graph) (string, string) {
	near := make([]bool, len(g.Tables))
	for t := range g.Tables {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range g.Tables[t].Values {
			lo, hi = min(lo, v), max(hi, v)
		}
		near[t] = hi > 0 && (lo <= 0 || math.Log(hi)-math.Log(lo) >= NearDeterministic)
	}
	n := 0
	for _, t := range g.FactorTable {
		if near[t] {
			n++
		}
	}
	share := float64(n) / float64(max(g.NumFactors(), 1))
	if n > 0 && share >= NearDeterministicShare {
		return "mcsat", fmt.Sprintf("%.3g%% of the factors are deterministic or nearly so (entries e^%g or more apart)", 100*share, NearDeterministic)
	}
	return "gibbs", fmt.Sprintf("%.3g%% of the factors are deterministic or nearly so (entries e^%g or more apart), under %g%%", 100*share, NearDeterministic, 100*NearDeterministicShare)
}

// DefaultSamplerWork is auto's default sampler budget, in edge visits
// (a Gibbs sweep visits every edge of the ground graph once): the chains
// together make about this many, about 10 CPU seconds of Gibbs on
// UW-CSE's 680,000 edges. A budget in work rather than time keeps the
// answer the same under any load (the same seed, the same bytes).
const DefaultSamplerWork = 2e8

// Bounds of the samples per chain that SamplerSweeps gives: at least
// MinSamplerSteps steps, a quarter of them burn-in, so that the rule's
// effective sample size of 100 per chain can be reached at all (with the
// old floor of 50 kept samples it never was: UW-CSE's 4,624 atoms were
// all unresolved whatever the chains did).
const (
	MinSamplerSteps   = 400
	MinSamplerSamples = 300
	MaxSamplerSamples = 10000
	maxSamplerBurnIn  = 100
)

// SamplerChains is the number of chains of auto's sampler, whatever the
// machine (R-hat compares chains; a count that followed the cores would
// change the answer from one machine to another).
const SamplerChains = 4

// SamplerSweeps shares work edge visits (<= 0: DefaultSamplerWork) out
// among chains chains whose steps visit cost edges each (StepWork): each
// chain's burn-in steps (a quarter of its steps, at most 100) and kept
// steps; every chain gets at least MinSamplerSteps steps and keeps at most
// MaxSamplerSamples.
func SamplerSweeps(work float64, chains int, cost float64) (burnIn, samples int) {
	if work <= 0 {
		work = DefaultSamplerWork
	}
	steps := work / float64(max(chains, 1)) / max(cost, 1)
	steps = min(max(steps, MinSamplerSteps), MaxSamplerSamples+maxSamplerBurnIn)
	burnIn = min(maxSamplerBurnIn, int(steps/4))
	samples = min(MaxSamplerSamples, max(MinSamplerSamples, int(steps)-burnIn))
	return burnIn, samples
}

// StepWork is the edge visits of one step of sampler name on g given ev
// (nil: none): the edges, and for gibbs those of its pair moves
// (gibbs.Pairs.Work).
func StepWork(name string, g *fg.Graph, ev fg.Evidence) float64 {
	w := float64(g.NumEdges())
	if name == "gibbs" {
		w += float64(gibbs.NewPairs(g, ev).Work(g))
	}
	return w
}

func (b *bpChain) workOrDefault() float64 {
	if b.work > 0 {
		return b.work
	}
	return DefaultSamplerWork
}

// MinSamplerTime is the least wall time the sampler gets when the CPU
// budget is spent before it starts.
const MinSamplerTime = time.Second

// samplerWall is the sampler's wall time when the user asked for one:
// samplerTime when set, else the CPU budget left (cpuBudget − the
// process's CPU time so far) spread over the cores the sampler's chains
// run on, at least MinSamplerTime.
func (b *bpChain) samplerWall() time.Duration {
	if b.samplerTime > 0 {
		return b.samplerTime
	}
	left := b.cpuBudget - processCPU()
	return max(MinSamplerTime, left/time.Duration(min(SamplerChains, runtime.GOMAXPROCS(0))))
}

// statesText writes a number of joint states (+Inf past 2^1023).
func statesText(s float64) string {
	if math.IsInf(s, 1) {
		return "more than 2^1023"
	}
	return fmt.Sprintf("%.3g", s)
}
