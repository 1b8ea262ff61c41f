package exact

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/jtree"
	"github.com/lifted-dev/lifted/lift"
)

// Auto is the method "auto": exact lifted inference (wfomc) when it lifts
// the MLN within Budget, lifted BP with the given properties otherwise.
type Auto struct {
	LBP    infer.Algorithm // the fallback, "lbp" with auto's BP properties
	Budget time.Duration   // the most time allowed to wfomc's compile and evaluation
	// BudgetPerAtom, when positive, shrinks wfomc's share for a model
	// whose grounding is predicted cheap: wfomc gets BudgetPerAtom per
	// unknown ground atom, at least MinWFOMCBudget, at most Budget
	// (WFOMCBudget).
	BudgetPerAtom time.Duration
	// BPIter is lifted BP's slice on the approximate path: the iterations
	// shared by BP as asked and its first fallback (damping 0.5) before
	// the sampler answers; < 0 skips BP, 0 is no slice (every fallback to
	// its own iteration limit).
	BPIter int
	// BPWork, when positive, caps the slice at BPWork lifted-edge
	// updates (iterations × edges of the compressed graph), at least 20
	// iterations.
	BPWork float64
	// Sampler names the sampler of the approximate path ("" or "auto":
	// ChooseSampler's).
	Sampler string
	// SamplerWork is the sampler's budget in edge visits, all chains
	// together (0: DefaultSamplerWork; SamplerSweeps): deterministic
	// under the seed, whatever the machine's load.
	SamplerWork float64
	// CPUBudget, when positive, makes the sampler run until the process
	// has used this much CPU time instead (the answer then depends on the
	// machine's load, and is marked time-limited); SamplerTime, when
	// positive, fixes the sampler's wall time instead.
	CPUBudget time.Duration
	// SamplerSamples, when positive, makes the sampler keep this many
	// samples per chain instead of SamplerWork's share.
	SamplerSamples int
	// NoBPCheck returns lifted BP's converged answer as it is (marked a
	// fixed point, with no accuracy statement) instead of running the
	// sampler to check it against (property bp-check 0).
	NoBPCheck bool
	// Tried, when set, says why wfomc did not answer this model in an
	// earlier try (TryUngrounded): Choose does not run it again.
	Tried       string
	SamplerTime time.Duration
	// JTree holds the junction tree's limits for the ground path, the
	// whole graph's and each component's (zero: jtree's defaults).
	JTree jtree.JTree
}

// Run runs the fallback: on a bare counted graph there is no first-order
// model to count (infer.Run asks Choose first, which picks the same).
func (a *Auto) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	return a.LBP.Run(ctx, c, q)
}

// Choose picks a method for m (see the package documentation): wfomc
// when it lifts the MLN within the budget, else on the grounding (or the
// factor graph) enumeration, jtree, lifted BP and its fallbacks, MC-SAT.
func (a *Auto) Choose(ctx context.Context, m *infer.Model, q infer.Query) (infer.Choice, error) {
	switch {
	case m == nil || m.Graph == nil && m.MLN == nil:
		return infer.Choice{Algorithm: a.chain(), Lifted: true}, nil
	case m.MLN == nil:
		return a.ground(ctx, m.Graph, m.Evidence, q, "")
	case q.Task == infer.MAP:
		return a.small(ctx, m, q, "wfomc does not answer MAP queries")
	case m.Weights == nil:
		return a.small(ctx, m, q, "Alchemy's clause weighting (--alchemy-cnf) is for propositional methods; wfomc follows the MLN semantics")
	}
	if a.Tried != "" {
		return a.small(ctx, m, q, a.Tried)
	}
	var ans *infer.Answer
	unknown := math.Inf(1)
	if m.Graph != nil {
		unknown = float64(m.Graph.NumVars())
		for _, e := range m.Evidence {
			if e >= 0 {
				unknown--
			}
		}
	}
	why, err := a.try(ctx, m, a.WFOMCBudget(unknown), func(wctx context.Context) (err error) {
		ans, err = WFOMC{}.RunModel(wctx, m, q)
		return err
	})
	switch {
	case err != nil:
		return infer.Choice{}, err
	case why != "":
		return a.small(ctx, m, q, why)
	}
	return infer.Choice{Name: "wfomc", Reason: a.Reason(m), Algorithm: WFOMC{}, Answer: ans}, nil
}

// Reason is auto's reason for the answer of wfomc on m.
func (a *Auto) Reason(m *infer.Model) string {
	return fmt.Sprintf("exact: wfomc lifts the MLN (%s)", DomainText(m)) // no timing: the JSON stays deterministic (stats.seconds has it)
}

// TryUngrounded runs wfomc on m without its grounding (WFOMC.RunAtoms,
// query atoms atoms) within the budget. It returns wfomc's answer, with
// auto's reason in its statistics, or nil and why wfomc did not answer
// (for Tried).
//
// unknown is the number of unknown ground atoms (WFOMCBudget).
func (a *Auto) TryUngrounded(ctx context.Context, m *infer.Model, q infer.Query, atoms iter.Seq2[int, []int], unknown float64) (*infer.AtomAnswer, string, error) {
	switch {
	case q.Task == infer.MAP:
		return nil, "wfomc does not answer MAP queries", nil
	case m.Weights == nil:
		return nil, "Alchemy's clause weighting (--alchemy-cnf) is for propositional methods; wfomc follows the MLN semantics", nil
	}
	var ans *infer.AtomAnswer
	why, err := a.try(ctx, m, a.WFOMCBudget(unknown), func(wctx context.Context) (err error) {
		ans, err = WFOMC{}.RunAtoms(wctx, m, q, atoms)
		return err
	})
	if err != nil || why != "" {
		return nil, why, err
	}
	ans.Stats.MethodReason = a.Reason(m)
	return ans, "", nil
}

// MinWFOMCBudget is the least time wfomc gets (when Budget allows): the
// textbook models it lifts answer in milliseconds.
const MinWFOMCBudget = time.Second

// WFOMCBudget is wfomc's share for a model with unknown unknown ground
// atoms: Budget, or with BudgetPerAtom set BudgetPerAtom per unknown atom
// within [MinWFOMCBudget, Budget]. Grounding and the ground methods cost
// about as much per atom as this share (UW-CSE: 4,624 atoms, 0.05 s to
// ground), so a model whose grounding is cheap does not wait seconds for a
// wfomc that cannot lift its evidence.
func (a *Auto) WFOMCBudget(unknown float64) time.Duration {
	if a.BudgetPerAtom <= 0 || math.IsNaN(unknown) {
		return a.Budget
	}
	share := float64(a.BudgetPerAtom) * unknown
	if share >= float64(a.Budget) {
		return a.Budget
	}
	return min(a.Budget, max(MinWFOMCBudget, time.Duration(share)))
}

// try runs run, a wfomc call on m, within budget. It returns "" when run
// answered, otherwise why wfomc did not answer; an error only when ctx
// ends.
func (a *Auto) try(ctx context.Context, m *infer.Model, budget time.Duration, run func(context.Context) error) (string, error) {
	// wfomc runs under a context that ends with the budget: compile and
	// evaluation poll it and stop, so an overrun does not go on computing
	// beside the fallback. A share below Budget (WFOMCBudget) is counted
	// in the process's CPU time, so that a loaded machine does not cut it
	// short; the whole Budget bounds the wall time.
	wall := max(budget, a.Budget)
	wctx, cancel := context.WithTimeout(ctx, wall)
	defer cancel()
	var tick <-chan time.Time
	cpu0 := processCPU()
	if budget < wall {
		t := time.NewTicker(cpuPoll)
		defer t.Stop()
		tick = t.C
	}
	done := make(chan error, 1)
	go func() { done <- run(wctx) }()
	for {
		select {
		case err := <-done:
			switch {
			case err == nil:
				return "", nil
			case ctx.Err() != nil:
				return "", ctx.Err()
			case wctx.Err() != nil && errors.Is(err, wctx.Err()):
				return a.overBudget(m, budget), nil
			}
			return "wfomc cannot answer exactly: " + shortError(err), nil
		case <-tick:
			if processCPU()-cpu0 < budget {
				continue
			}
		case <-wctx.Done():
		}
		cancel()
		// Wait for wfomc to stop (it polls wctx within milliseconds), so
		// that the fallback has the processors to itself; a part that does
		// not poll (RunModel's own preparation) is left after stopGrace.
		grace := time.NewTimer(stopGrace)
		defer grace.Stop()
		select {
		case <-done:
		case <-grace.C:
		}
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return a.overBudget(m, budget), nil
	}
}

// cpuPoll is how often try reads the process's CPU time.
const cpuPoll = 10 * time.Millisecond

// stopGrace bounds the wait for a cancelled wfomc run to return.
const stopGrace = time.Second

func (a *Auto) overBudget(m *infer.Model, budget time.Duration) string {
	if budget < a.Budget {
		return fmt.Sprintf("wfomc did not finish within its share of %v CPU (%s)", budget, DomainText(m))
	}
	return fmt.Sprintf("wfomc did not finish within its budget of %v (%s)", budget, DomainText(m))
}

// small chooses on m's grounding (Auto.ground); why says why wfomc did
// not answer.
func (a *Auto) small(ctx context.Context, m *infer.Model, q infer.Query, why string) (infer.Choice, error) {
	if m.Graph == nil {
		return infer.Choice{Name: "lbp", Reason: why, Algorithm: a.chain(), Lifted: true}, nil
	}
	return a.ground(ctx, m.Graph, m.Evidence, q, why)
}

// shortError keeps the first line of an error, at most 200 bytes.
func shortError(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

var autoProps = []infer.Property{
	{Name: "budget", Default: "5", Help: "the most seconds allowed to wfomc before the ground methods answer instead"},
	{Name: "budget-per-atom", Default: "1e-4", Help: "wfomc's seconds per unknown ground atom, at least 1, at most budget (0: always budget)"},
	{Name: "bp-iter", Default: "400", Help: "lifted BP's slice: iterations shared by BP as asked and with damping 0.5 (half each) before the sampler answers (0: no BP)"},
	{Name: "bp-work", Default: "3e7", Help: "caps bp-iter at this many edge updates (iterations × lifted edges), at least 20 iterations (0: no cap)"},
	{Name: "bp-check", Default: "1", Help: "1: when lifted BP's messages converge the sampler runs too and answers, BP's fixed point checked against it (converged messages say nothing of the marginals' accuracy); 0: BP's fixed point answers"},
	{Name: "sampler", Default: "auto", Help: "the sampler when BP does not converge in its slice: mcsat, gibbs, bgibbs, tempering, or auto (mcsat where a factor is (nearly) deterministic, else gibbs)"},
	{Name: "sampler-work", Default: fmt.Sprintf("%g", DefaultSamplerWork), Help: fmt.Sprintf("the sampler's budget in edge visits (a Gibbs sweep visits each edge of the grounding once), all %d chains together: each keeps %d to %d samples after a burn-in of a quarter of its steps, at most %d (deterministic under --seed, whatever the load)", SamplerChains, MinSamplerSamples, MaxSamplerSamples, maxSamplerBurnIn)},
	{Name: "cpu-budget", Default: "0", Help: "instead of sampler-work: the sampler runs until the process has used this many CPU seconds (at least 1 s of wall time; the answer then depends on the load, marked time-limited; 0: sampler-work)"},
	{Name: "sampler-time", Default: "0", Help: "instead of sampler-work: seconds of wall time for the sampler (the answer then depends on the load, marked time-limited; 0: sampler-work)"},
	{Name: "sampler-samples", Default: "0", Help: "samples per chain for the sampler instead of sampler-work's share (0: sampler-work)"},
	{Name: "max-table", Default: "16777216", Help: "jtree's largest clique table (entries, 8 bytes each) on the grounding and on each component"},
	{Name: "max-total", Default: "134217728", Help: "jtree's clique tables together (entries)"},
}

// autoOwn are the properties auto does not pass to lbp.
var autoOwn = map[string]bool{"bp-check": true, "sampler-work": true, "budget": true, "budget-per-atom": true, "bp-iter": true, "bp-work": true, "sampler": true, "cpu-budget": true, "sampler-time": true, "sampler-samples": true, "max-table": true, "max-total": true}

func init() {
	infer.Register(infer.Method{
		Name:    "wfomc",
		Summary: "exact lifted inference on the MLN by weighted first-order model counting (MLNs that it lifts)",
		Tasks:   []infer.Task{infer.Marginals, infer.PartitionFunction},
		New:     func(infer.Properties) (infer.Algorithm, error) { return WFOMC{}, nil },
	})
	lbp, ok := infer.Lookup("lbp")
	if !ok {
		panic("exact: lbp is not registered")
	}
	infer.Register(infer.Method{
		Name:    "auto",
		Summary: "exact where cheap, never no answer (the default): wfomc when it lifts the MLN within its budget, else enumerate (tiny), jtree (small treewidth), lbp with its fallbacks, mcsat",
		Lifted:  true,
		Tasks:   lbp.Tasks,
		Props:   append(append([]infer.Property(nil), lbp.Props...), autoProps...),
		New: func(p infer.Properties) (infer.Algorithm, error) {
			m, _ := infer.Lookup("auto")
			bpProps := infer.Properties{}
			for k, v := range p {
				if !autoOwn[k] {
					bpProps[k] = v
				}
			}
			alg, _, err := infer.New("lbp", bpProps)
			if err != nil {
				var pe *infer.PropertyError
				if errors.As(err, &pe) {
					pe.Method = "auto"
				}
				return nil, err
			}
			return newAuto(m, p, alg)
		},
	})
}

// Fallbacks offers lbp's retry variants: auto's BP path converges or fails
// under the same rule as lbp.
func (a *Auto) Fallbacks() []infer.Fallback {
	if fb, ok := a.LBP.(infer.Fallbacks); ok {
		return fb.Fallbacks()
	}
	return nil
}

// newAuto reads auto's own properties.
func newAuto(m infer.Method, p infer.Properties, lbp infer.Algorithm) (*Auto, error) {
	secs := func(name string, positive bool) (time.Duration, error) {
		v, err := strconv.ParseFloat(p.String(m, name), 64)
		if err != nil || !(v >= 0) || positive && v == 0 || v > 1e9 {
			want := "a non-negative"
			if positive {
				want = "a positive"
			}
			return 0, &infer.PropertyError{Method: "auto", Name: name, Msg: "must be " + want + " number of seconds, got " + p.String(m, name)}
		}
		return time.Duration(v * float64(time.Second)), nil
	}
	a := &Auto{LBP: lbp}
	var err error
	if a.Budget, err = secs("budget", false); err != nil {
		return nil, err
	}
	if a.BudgetPerAtom, err = secs("budget-per-atom", false); err != nil {
		return nil, err
	}
	if a.CPUBudget, err = secs("cpu-budget", false); err != nil {
		return nil, err
	}
	if a.SamplerWork, err = p.Float(m, "sampler-work"); err != nil {
		return nil, err
	}
	if !(a.SamplerWork > 0 && a.SamplerWork <= 1e15) {
		return nil, &infer.PropertyError{Method: "auto", Name: "sampler-work", Msg: "must be a positive number of edge visits (at most 1e15), got " + p.String(m, "sampler-work")}
	}
	if a.SamplerTime, err = secs("sampler-time", false); err != nil {
		return nil, err
	}
	if a.SamplerSamples, err = p.Int(m, "sampler-samples"); err != nil {
		return nil, err
	}
	if a.SamplerSamples < 0 {
		return nil, &infer.PropertyError{Method: "auto", Name: "sampler-samples", Msg: fmt.Sprintf("must not be negative, got %d", a.SamplerSamples)}
	}
	n, err := p.Int(m, "bp-iter")
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, &infer.PropertyError{Method: "auto", Name: "bp-iter", Msg: fmt.Sprintf("must not be negative, got %d", n)}
	}
	a.BPIter = n
	if n == 0 {
		a.BPIter = -1
	}
	switch v := p.String(m, "bp-check"); v {
	case "0", "1":
		a.NoBPCheck = v == "0"
	default:
		return nil, &infer.PropertyError{Method: "auto", Name: "bp-check", Value: v, Want: "0 or 1"}
	}
	if a.BPWork, err = p.Float(m, "bp-work"); err != nil {
		return nil, err
	}
	if !(a.BPWork >= 0) || math.IsInf(a.BPWork, 1) {
		return nil, &infer.PropertyError{Method: "auto", Name: "bp-work", Msg: "must be a non-negative number of edge updates, got " + p.String(m, "bp-work")}
	}
	switch s := p.String(m, "sampler"); s {
	case "auto", "mcsat", "gibbs", "bgibbs", "tempering":
		a.Sampler = s
	default:
		return nil, &infer.PropertyError{Method: "auto", Name: "sampler", Value: s, Want: "auto, mcsat, gibbs, bgibbs or tempering"}
	}
	for _, c := range []struct {
		name string
		to   *float64
	}{{"max-table", &a.JTree.MaxTable}, {"max-total", &a.JTree.MaxTotal}} {
		v, err := p.Float(m, c.name)
		if err != nil {
			return nil, err
		}
		if !(v >= 2) || math.IsInf(v, 1) {
			return nil, &infer.PropertyError{Method: "auto", Name: c.name, Msg: "must be a number of entries, at least 2, got " + p.String(m, c.name)}
		}
		*c.to = v
	}
	return a, nil
}
