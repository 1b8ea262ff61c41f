package exact

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/mcmc"
	"github.com/lifted-dev/lifted/lift"
)

// DefaultEscalateWork is the budget, in edge visits, of the sampler auto
// tries when its first sampler did not mix (escalation): a replica's or a
// chain's step visits every edge of the grounding once. Work, not time:
// the same seed gives the same answer under any load.
const DefaultEscalateWork = 2e8

// escalation names the sampler that auto tries on g after its first
// sampler's answer s did not mix, with the reason; "" when none is
// measured to help:
//   - chains that never left their states (frozen) on a model with hard
//     constraints (zero entries): orbital, moves along the model's
//     symmetries (internal/calib's TestCalibrationClasses: on the perfect
//     matchings gibbs and mcsat stay frozen, orbital mixes; the deskmate
//     model at 10 students mixes in 1.4·10⁸ edge visits);
//   - any chains that did not mix on a model without zero entries: the
//     modes are separated by strong soft couplings (frustrated grids),
//     which replica exchange crosses (bench/frustrated).
//
// A model with hard constraints whose chains moved but did not mix (the
// hard definitions of UW-CSE's auxiliary atoms) gets none: neither method
// was measured to help there.
func escalation(g *fg.Graph, first string, s *infer.Answer) (string, string) {
	if s.Converged || s.Stats.Interrupted {
		return "", ""
	}
	frozen := s.Stats.RHat >= math.MaxFloat64
	switch {
	case !mcmc.NoZeros(g) && frozen && first != "orbital":
		return "orbital", "its chains never left their states and the model has hard constraints (zero entries): orbit moves along the model's symmetries jump between its solutions"
	case mcmc.NoZeros(g) && first != "tempering":
		return "tempering", "the model has no hard constraints, so strong soft couplings separate its modes: replica exchange crosses them"
	}
	return "", ""
}

// escalate runs the escalation's sampler name on gc within work edge
// visits (4 chains) and returns its answer, with how it was run.
func escalate(ctx context.Context, name string, gc *lift.Compressed, q infer.Query, work float64) (*infer.Answer, string, error) {
	chains := SamplerChains
	edges := float64(max(gc.Ground.NumEdges(), 1))
	var props infer.Properties
	var how string
	switch name {
	case "tempering":
		props = infer.Properties{"chains": strconv.Itoa(chains), "max-work": fmt.Sprintf("%g", work)}
		how = fmt.Sprintf("within %.3g edge visits (%d chains, each a ladder of replicas; max-work)", work, chains)
	default:
		// Samples double from 1000 with the burn-in (grow restarts the
		// run: about 2.2 times the last run's kept steps in all) while
		// that stays within work.
		per := work / (float64(chains) * edges)
		samples, most := 1000, 1000
		for 2.2*float64(2*most) <= per {
			most *= 2
		}
		if 1.1*float64(samples) > per {
			samples = max(MinSamplerSamples, int(per/1.1))
			most = samples
		}
		props = infer.Properties{"chains": strconv.Itoa(chains), "samples": strconv.Itoa(samples), "max-samples": strconv.Itoa(most), "burn-in": strconv.Itoa(samples / 10)}
		how = fmt.Sprintf("%d samples per chain doubled until mixed up to %d (%d chains; %.3g edge visits over %d edges at most)", samples, most, chains, work, gc.Ground.NumEdges())
	}
	alg, _, err := infer.New(name, props)
	if err != nil {
		return nil, "", err
	}
	ans, err := alg.Run(ctx, gc, q)
	return ans, how, err
}

// mixedEntries counts the entries of a sampler's answer labelled mixed.
func mixedEntries(a *infer.Answer) int {
	if a.EntryMixed == nil {
		if a.Converged {
			return len(a.Belief)
		}
		return 0
	}
	n := 0
	for _, m := range a.EntryMixed {
		if m {
			n++
		}
	}
	return n
}

// escalate tries, after the sampler first's answer s did not mix, the
// sampler escalation names (within escalateWork edge visits), and returns
// the answer with more entries labelled mixed (the escalated one on a
// tie: the sampler meant for the model class), its reason saying both.
func (b *bpChain) escalate(ctx context.Context, gc *lift.Compressed, q infer.Query, first string, s *infer.Answer) *infer.Answer {
	name, why := escalation(gc.Ground, first, s)
	if name == "" {
		return s
	}
	work := b.escalateWork
	if work == 0 {
		work = DefaultEscalateWork
	}
	e, how, err := escalate(ctx, name, gc, q, work)
	if ctx.Err() != nil {
		return s
	}
	if err != nil {
		s.Stats.MethodReason += fmt.Sprintf("; then %s (%s) gave no answer (%s)", name, why, shortError(err))
		return s
	}
	verdict := "mixed"
	if !e.Converged {
		verdict = "NOT mixed"
	}
	me, ms := mixedEntries(e), mixedEntries(s)
	text := fmt.Sprintf("then %s, since %s: %s %s, %s (%d entries mixed, %s %d)", name, why, name, how, verdict, me, first, ms)
	if me < ms {
		s.Stats.MethodReason += "; " + text + ": " + first + "'s answer stands"
		return s
	}
	e.Stats.Method = first + "+" + name
	e.Stats.TimeLimited = e.Stats.TimeLimited || s.Stats.TimeLimited
	e.Stats.MethodReason = s.Stats.MethodReason + "; " + text + ": " + name + "'s answer"
	return e
}
