package exact

import (
	"context"
	"errors"
	"fmt"
	"iter"
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
	Budget time.Duration   // time allowed to wfomc's compile and evaluation
	// Tried, when set, says why wfomc did not answer this model in an
	// earlier try (TryUngrounded): Choose does not run it again.
	Tried string
	// SamplerTime is the time MC-SAT gets when BP does not converge
	// (0: DefaultSamplerTime).
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
		return infer.Choice{Algorithm: &bpChain{lbp: a.LBP, samplerTime: a.SamplerTime}, Lifted: true}, nil
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
	why, err := a.try(ctx, m, func(wctx context.Context) (err error) {
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
func (a *Auto) TryUngrounded(ctx context.Context, m *infer.Model, q infer.Query, atoms iter.Seq2[int, []int]) (*infer.AtomAnswer, string, error) {
	switch {
	case q.Task == infer.MAP:
		return nil, "wfomc does not answer MAP queries", nil
	case m.Weights == nil:
		return nil, "Alchemy's clause weighting (--alchemy-cnf) is for propositional methods; wfomc follows the MLN semantics", nil
	}
	var ans *infer.AtomAnswer
	why, err := a.try(ctx, m, func(wctx context.Context) (err error) {
		ans, err = WFOMC{}.RunAtoms(wctx, m, q, atoms)
		return err
	})
	if err != nil || why != "" {
		return nil, why, err
	}
	ans.Stats.MethodReason = a.Reason(m)
	return ans, "", nil
}

// try runs run, a wfomc call on m, within the budget. It returns "" when
// run answered, otherwise why wfomc did not answer; an error only when ctx
// ends.
func (a *Auto) try(ctx context.Context, m *infer.Model, run func(context.Context) error) (string, error) {
	// wfomc runs under a context that expires with the budget: compile and
	// evaluation poll it and stop, so an overrun does not go on computing
	// beside the fallback.
	wctx, cancel := context.WithTimeout(ctx, a.Budget)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(wctx) }()
	select {
	case err := <-done:
		switch {
		case err == nil:
			return "", nil
		case ctx.Err() != nil:
			return "", ctx.Err()
		case wctx.Err() != nil && errors.Is(err, wctx.Err()):
			return a.overBudget(m), nil
		}
		return "wfomc cannot answer exactly: " + shortError(err), nil
	case <-wctx.Done():
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
		return a.overBudget(m), nil
	}
}

// stopGrace bounds the wait for a cancelled wfomc run to return.
const stopGrace = time.Second

func (a *Auto) overBudget(m *infer.Model) string {
	return fmt.Sprintf("wfomc did not finish within its budget of %v (%s)", a.Budget, DomainText(m))
}

// small chooses on m's grounding (Auto.ground); why says why wfomc did
// not answer.
func (a *Auto) small(ctx context.Context, m *infer.Model, q infer.Query, why string) (infer.Choice, error) {
	if m.Graph == nil {
		return infer.Choice{Name: "lbp", Reason: why, Algorithm: &bpChain{lbp: a.LBP, samplerTime: a.SamplerTime}, Lifted: true}, nil
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
	{Name: "budget", Default: "5", Help: "seconds allowed to wfomc before the ground methods answer instead"},
	{Name: "sampler-time", Default: "30", Help: "seconds allowed to MC-SAT when lifted BP does not converge"},
}

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
				if k != "budget" && k != "sampler-time" {
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
			b, err := strconv.ParseFloat(p.String(m, "budget"), 64)
			if err != nil || !(b >= 0) {
				return nil, &infer.PropertyError{Method: "auto", Name: "budget", Msg: "must be a non-negative number of seconds, got " + p.String(m, "budget")}
			}
			st, err := strconv.ParseFloat(p.String(m, "sampler-time"), 64)
			if err != nil || !(st > 0) {
				return nil, &infer.PropertyError{Method: "auto", Name: "sampler-time", Msg: "must be a positive number of seconds, got " + p.String(m, "sampler-time")}
			}
			return &Auto{LBP: alg, Budget: time.Duration(b * float64(time.Second)), SamplerTime: time.Duration(st * float64(time.Second))}, nil
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
