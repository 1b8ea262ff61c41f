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
	"github.com/lifted-dev/lifted/wfomc"
)

// Auto is the method "auto": exact lifted inference (wfomc) when it lifts
// the MLN within Budget, lifted BP with the given properties otherwise.
type Auto struct {
	LBP infer.Algorithm // the fallback, "lbp" with auto's BP properties
	// Work is the most work units allowed to wfomc's compile and
	// evaluation (wfomc.Work: steps of their long loops, cell-pair
	// weights, terms; 0: no limit): whether wfomc answers or auto goes on
	// to the grounding is then the same on every run, whatever the load.
	Work float64
	// WorkPerAtom, when positive, shrinks wfomc's share for a model
	// whose grounding is predicted cheap: wfomc gets WorkPerAtom units
	// per unknown ground atom, at least MinWFOMCWork, at most Work
	// (WFOMCWork).
	WorkPerAtom float64
	// Budget, when positive, also bounds wfomc's wall time: the choice
	// then depends on the machine's load.
	Budget time.Duration
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
	// EscalateWork is the budget, in edge visits, of the sampler tried
	// when the first did not mix (escalation: orbital on frozen chains of
	// a model with hard constraints, tempering on a model without); 0:
	// DefaultEscalateWork; < 0: none (property escalate-work 0).
	EscalateWork float64
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
	why, err := a.try(ctx, m, a.WFOMCWork(unknown), func(wctx context.Context) (err error) {
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
// unknown is the number of unknown ground atoms (WFOMCWork).
func (a *Auto) TryUngrounded(ctx context.Context, m *infer.Model, q infer.Query, atoms iter.Seq2[int, []int], unknown float64) (*infer.AtomAnswer, string, error) {
	switch {
	case q.Task == infer.MAP:
		return nil, "wfomc does not answer MAP queries", nil
	case m.Weights == nil:
		return nil, "Alchemy's clause weighting (--alchemy-cnf) is for propositional methods; wfomc follows the MLN semantics", nil
	}
	var ans *infer.AtomAnswer
	why, err := a.try(ctx, m, a.WFOMCWork(unknown), func(wctx context.Context) (err error) {
		ans, err = WFOMC{}.RunAtoms(wctx, m, q, atoms)
		return err
	})
	if err != nil || why != "" {
		return nil, why, err
	}
	ans.Stats.MethodReason = a.Reason(m)
	return ans, "", nil
}

// MinWFOMCWork is the least work wfomc gets (when Work allows), about a
// second of one core (wfomc.Work: a unit is about 0.1 µs): the textbook
// models it lifts answer in a fraction of it.
const MinWFOMCWork = 1e7

// DefaultWFOMCWork is the default Work, about 5 s of one core.
const DefaultWFOMCWork = 5e7

// DefaultWFOMCWorkPerAtom is the default WorkPerAtom, about 0.1 ms of one
// core per unknown ground atom.
const DefaultWFOMCWorkPerAtom = 1e3

// WFOMCWork is wfomc's share, in work units, for a model with unknown
// unknown ground atoms: Work, or with WorkPerAtom set WorkPerAtom per
// unknown atom within [MinWFOMCWork, Work]. Grounding and the ground
// methods cost about as much per atom as this share (UW-CSE: 4,624 atoms,
// 0.05 s to ground), so a model whose grounding is cheap does not wait
// seconds for a wfomc that cannot lift its evidence.
func (a *Auto) WFOMCWork(unknown float64) float64 {
	if a.WorkPerAtom <= 0 || math.IsNaN(unknown) {
		return a.Work
	}
	return min(a.Work, max(MinWFOMCWork, a.WorkPerAtom*unknown))
}

// try runs run, a wfomc call on m, within work units of wfomc's work
// (and Budget's wall time, when set). It returns "" when run answered,
// otherwise why wfomc did not answer; an error only when ctx ends.
func (a *Auto) try(ctx context.Context, m *infer.Model, work float64, run func(context.Context) error) (string, error) {
	// wfomc runs under a context that ends once it has done more than its
	// work (wfomc.WithWorkLimit): compile and evaluation poll it and stop,
	// so an overrun does not go on computing beside the fallback. The
	// decision is Over's, asked after the run: the same on every run.
	limit := int64(min(work, 1e18))
	if work <= 0 || math.IsInf(work, 1) {
		limit = 0
	}
	wctx, w, cancel := wfomc.WithWorkLimit(ctx, limit)
	defer cancel()
	if a.Budget > 0 {
		var stop context.CancelFunc
		wctx, stop = context.WithTimeout(wctx, a.Budget)
		defer stop()
	}
	done := make(chan error, 1)
	go func() { done <- run(wctx) }()
	var err error
	select {
	case err = <-done:
	case <-wctx.Done():
		// Wait for wfomc to stop (it polls wctx within milliseconds), so
		// that the fallback has the processors to itself; a part that does
		// not poll (RunModel's own preparation) is left after stopGrace.
		grace := time.NewTimer(stopGrace)
		defer grace.Stop()
		select {
		case err = <-done:
		case <-grace.C:
			err = wctx.Err()
		}
	}
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case w.Over():
		return fmt.Sprintf("wfomc did not finish within its share of %.3g work units (%s)", work, DomainText(m)), nil
	case err == nil:
		return "", nil
	case wctx.Err() != nil && errors.Is(err, wctx.Err()):
		return fmt.Sprintf("wfomc did not finish within its budget of %v wall time (%s)", a.Budget, DomainText(m)), nil
	}
	return "wfomc cannot answer exactly: " + shortError(err), nil
}

// stopGrace bounds the wait for a cancelled wfomc run to return.
const stopGrace = time.Second

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
	{Name: "wfomc-work", Default: fmt.Sprintf("%g", DefaultWFOMCWork), Help: "the most work units (steps of compilation's loops, cell-pair weights, steps of the sums, each weighed to about 0.1 µs of one core) allowed to wfomc before the ground methods answer instead (deterministic, whatever the load; 0: no limit)"},
	{Name: "wfomc-work-per-atom", Default: fmt.Sprintf("%g", DefaultWFOMCWorkPerAtom), Help: fmt.Sprintf("wfomc's work units per unknown ground atom, at least %g, at most wfomc-work (0: always wfomc-work)", MinWFOMCWork)},
	{Name: "budget", Default: "0", Help: "also bounds wfomc by this many seconds of wall time (the choice then depends on the load; 0: work units only)"},
	{Name: "bp-iter", Default: "400", Help: "lifted BP's slice: iterations shared by BP as asked and with damping 0.5 (half each) before the sampler answers (0: no BP)"},
	{Name: "bp-work", Default: "1e8", Help: "caps bp-iter at this many edge updates (iterations × lifted edges), at least 20 iterations (0: no cap)"},
	{Name: "bp-check", Default: "1", Help: "1: when lifted BP's messages converge the sampler runs too and answers, BP's fixed point checked against it (converged messages say nothing of the marginals' accuracy); 0: BP's fixed point answers"},
	{Name: "sampler", Default: "auto", Help: "the sampler when BP does not converge in its slice: mcsat, gibbs, bgibbs, tempering, or auto (mcsat where a factor is (nearly) deterministic, else gibbs)"},
	{Name: "sampler-work", Default: fmt.Sprintf("%g", DefaultSamplerWork), Help: fmt.Sprintf("the sampler's budget in edge visits (a Gibbs sweep visits each edge of the grounding once), all %d chains together: each keeps %d to %d samples after a burn-in of a quarter of its steps, at most %d (deterministic under --seed, whatever the load)", SamplerChains, MinSamplerSamples, MaxSamplerSamples, maxSamplerBurnIn)},
	{Name: "cpu-budget", Default: "0", Help: "instead of sampler-work: the sampler runs until the process has used this many CPU seconds (at least 1 s of wall time; the answer then depends on the load, marked time-limited; 0: sampler-work)"},
	{Name: "sampler-time", Default: "0", Help: "instead of sampler-work: seconds of wall time for the sampler (the answer then depends on the load, marked time-limited; 0: sampler-work)"},
	{Name: "sampler-samples", Default: "0", Help: "samples per chain for the sampler instead of sampler-work's share (0: sampler-work)"},
	{Name: "escalate-work", Default: fmt.Sprintf("%g", DefaultEscalateWork), Help: "when the sampler has not mixed, the budget in edge visits of the sampler tried next: orbital (moves along the model's symmetries) where the chains never left their states on hard constraints, tempering where the model has none; the answer with more mixed marginals is printed (0: no such step)"},
	{Name: "max-table", Default: "16777216", Help: "jtree's largest clique table (entries, 8 bytes each) on the grounding and on each component"},
	{Name: "max-total", Default: "134217728", Help: "jtree's clique tables together (entries)"},
}

// autoOwn are the properties auto does not pass to lbp.
var autoOwn = map[string]bool{"bp-check": true, "sampler-work": true, "budget": true, "wfomc-work": true, "wfomc-work-per-atom": true, "bp-iter": true, "bp-work": true, "sampler": true, "cpu-budget": true, "sampler-time": true, "sampler-samples": true, "escalate-work": true, "max-table": true, "max-total": true}

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
	for _, c := range []struct {
		name string
		to   *float64
	}{{"wfomc-work", &a.Work}, {"wfomc-work-per-atom", &a.WorkPerAtom}} {
		if *c.to, err = p.Float(m, c.name); err != nil {
			return nil, err
		}
		if !(*c.to >= 0) || math.IsInf(*c.to, 1) {
			return nil, &infer.PropertyError{Method: "auto", Name: c.name, Msg: "must be a non-negative number of work units, got " + p.String(m, c.name)}
		}
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
	if a.EscalateWork, err = p.Float(m, "escalate-work"); err != nil {
		return nil, err
	}
	if !(a.EscalateWork >= 0 && a.EscalateWork <= 1e15) {
		return nil, &infer.PropertyError{Method: "auto", Name: "escalate-work", Msg: "must be a non-negative number of edge visits (at most 1e15), got " + p.String(m, "escalate-work")}
	}
	if a.EscalateWork == 0 {
		a.EscalateWork = -1
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
