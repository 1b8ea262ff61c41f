package infer

import (
	"context"
	"fmt"
	"strings"

	"github.com/lifted-dev/lifted/lift"
)

// Fallbacks is implemented by iterative algorithms that can retry a run
// that did not converge with variants more likely to converge (BP: more
// damping, then the sequential schedule). A variant must have the same
// fixed points as the original, so that its answer, when it converges, is
// an answer of the method that was asked for. Run and RunModel try the
// variants in order when Options.Unconverged asks for it.
type Fallbacks interface {
	Fallbacks() []Fallback
}

// Fallback is one retry variant of an iterative algorithm.
type Fallback struct {
	Name      string // what changed, as properties: "damping=0.5", "schedule=seq damping=0.5"
	Algorithm Algorithm
}

// Unconverged is the policy for an iterative run that stops at its
// iteration limit without converging.
type Unconverged uint8

const (
	// Accept returns the answer as it is, with Converged false (callers
	// such as learners that tolerate approximate answers; the zero value).
	Accept Unconverged = iota
	// Retry tries the algorithm's Fallbacks in order, each with the full
	// iteration limit, and returns the first converged answer, or the last
	// one with Converged false.
	Retry
	// Refuse retries as Retry does and returns a *NotConvergedError (which
	// carries the last answer) when no variant converged: no caller can take
	// a non-converged answer for a converged one.
	Refuse
)

// NotConvergedError reports an iterative method that did not converge,
// not even with its fallbacks. Answer is the last attempt's answer (marked
// Converged false), for callers that want to report it anyway.
type NotConvergedError struct {
	Tried      []string // the attempts: "as asked", then the fallbacks' names
	Iterations int      // iterations of the last attempt
	Answer     *Answer
}

// Error returns the message of the NotConvergedError.
func (e *NotConvergedError) Error() string {
	return fmt.Sprintf("did not converge (tried %s; last attempt: %d iterations, max change %.3g)",
		strings.Join(e.Tried, ", then "), e.Iterations, e.Answer.MaxChange)
}

// runConverging runs alg on c and applies the policy pol when the answer
// did not converge. The returned answer's Stats hold the work of every
// attempt (iterations and messages summed) and, when a fallback converged,
// its name in Stats.Fallback.
func runConverging(ctx context.Context, alg Algorithm, c *lift.Compressed, q Query, pol Unconverged) (*Answer, error) {
	ans, err := alg.Run(ctx, c, q)
	if err != nil || ans.Converged || pol == Accept || ans.Stats.Interrupted {
		// An interrupted run (a sampler stopped by its context) is
		// returned as it is: its estimates so far, marked.
		return ans, err
	}
	tried := []string{"as asked"}
	iters, msgs := ans.Stats.BPIterations, ans.Stats.Messages
	last := ans.Stats.BPIterations
	if fb, ok := alg.(Fallbacks); ok {
		for _, f := range fb.Fallbacks() {
			next, err := f.Algorithm.Run(ctx, c, q)
			tried = append(tried, f.Name)
			if err != nil {
				// A variant that fails (e.g. messages not normalizable)
				// is one more attempt that did not converge.
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				continue
			}
			iters += next.Stats.BPIterations
			msgs += next.Stats.Messages
			last = next.Stats.BPIterations
			ans = next
			if ans.Converged {
				ans.Stats.Fallback = f.Name
				break
			}
		}
	}
	ans.Stats.BPIterations, ans.Stats.Messages = iters, msgs
	if ans.Converged || pol == Retry {
		return ans, nil
	}
	return ans, &NotConvergedError{Tried: tried, Iterations: last, Answer: ans}
}
