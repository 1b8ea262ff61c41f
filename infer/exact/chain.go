package exact

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/jtree"
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

// DefaultSamplerTime is the time auto gives MC-SAT when BP does not
// converge.
const DefaultSamplerTime = 30 * time.Second

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
	chain := &bpChain{lbp: a.LBP, samplerTime: a.SamplerTime}
	if q.Task == infer.MAP {
		return infer.Choice{Name: "lbp", Algorithm: chain, Lifted: true, Reason: join(too + "; max-product lifted BP")}, nil
	}
	return infer.Choice{Name: "lbp", Algorithm: chain, Lifted: true,
		Reason: join(too + "; lifted BP (damping and the sequential schedule if it does not converge, then MC-SAT)")}, nil
}

// bpChain is auto's approximate path: lifted BP as asked; when it does
// not converge or fails (messages not normalizable), BP's fallbacks
// (damping, the sequential schedule), each a BP answer of the same model
// when it converges; when none converges, MC-SAT on the ground graph
// within samplerTime, its answer marked converged only when its chains
// mixed (infer/mcmc/diag's rule). MAP queries stop after BP.
type bpChain struct {
	lbp         infer.Algorithm
	samplerTime time.Duration
}

func (b *bpChain) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	ans, err := b.lbp.Run(ctx, c, q)
	if err == nil && (ans.Converged || ans.Stats.Interrupted) {
		return ans, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var tried []string
	var iters int
	var msgs int64
	note := func(name string, a *infer.Answer, err error) {
		if err != nil {
			tried = append(tried, name+" ("+shortError(err)+")")
			return
		}
		tried = append(tried, name)
		iters += a.Stats.BPIterations
		msgs += a.Stats.Messages
	}
	note("as asked", ans, err)
	lastErr := err
	if fb, ok := b.lbp.(infer.Fallbacks); ok {
		for _, f := range fb.Fallbacks() {
			next, err := f.Algorithm.Run(ctx, c, q)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			note(f.Name, next, err)
			if err != nil {
				lastErr = err
				continue
			}
			ans = next
			if ans.Converged {
				ans.Stats.Fallback = f.Name
				ans.Stats.BPIterations, ans.Stats.Messages = iters, msgs
				return ans, nil
			}
		}
	}
	bpFailed := "lifted BP did not converge (tried " + strings.Join(tried, ", ") + ")"
	if q.Task != infer.Marginals {
		if ans == nil {
			return nil, fmt.Errorf("%s: %w", bpFailed, lastErr)
		}
		ans.Stats.BPIterations, ans.Stats.Messages = iters, msgs
		return ans, nil
	}
	st := b.samplerTime
	if st <= 0 {
		st = DefaultSamplerTime
	}
	mc, _, err := infer.New("mcsat", infer.Properties{"time-limit": st.String(), "samples": "100000"})
	if err != nil {
		return nil, err
	}
	ev := make(fg.Evidence, c.Ground.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	gc, err := lift.Ground(c.Ground, ev)
	if err != nil {
		return nil, err
	}
	s, err := mc.Run(ctx, gc, q)
	if err != nil {
		if ans != nil {
			ans.Stats.BPIterations, ans.Stats.Messages = iters, msgs
			return ans, nil // BP's last answer, marked not converged
		}
		return nil, fmt.Errorf("%s; mcsat: %w", bpFailed, err)
	}
	s.Stats.Method = "mcsat"
	s.Stats.MethodReason = fmt.Sprintf("%s; MC-SAT within %v (mixed only by the diagnostics' rule: rank-normalised R-hat < 1.01, bulk and tail ESS >= 100 per chain)", bpFailed, st)
	return s, nil
}

// statesText writes a number of joint states (+Inf past 2^1023).
func statesText(s float64) string {
	if math.IsInf(s, 1) {
		return "more than 2^1023"
	}
	return fmt.Sprintf("%.3g", s)
}
