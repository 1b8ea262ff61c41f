package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/wfomc"
)

// Explained is an error of a run phrased for the user of a front end (the
// command line, the Python package), whose options are named as the
// command's flags: request mistakes name the flags, runs that did not
// converge say what to try. It wraps the original error, so that
// errors.As still finds it (exit statuses depend on the kind).
type Explained struct {
	Err error
	Msg string
	// Usage marks a mistake of the call (a wrong option or query), and
	// Interrupted a run cancelled before any answer.
	Usage, Interrupted bool
}

// Error returns the message of the Explained.
func (e *Explained) Error() string { return e.Msg }

// Unwrap returns the error the Explained wraps.
func (e *Explained) Unwrap() error { return e.Err }

// Explain phrases an error of Load, Run, Compress or the counters for the
// user (nil stays nil; errors with nothing to add are returned as they
// are). path is the model's.
func Explain(path string, err error) error {
	var pe *infer.PropertyError
	var nc *infer.NotConvergedError
	var snc *StepsNotConvergedError
	var re *RequestError
	var fe *format.UsageError
	var we *wfomc.InputError
	x := &Explained{Err: err}
	switch {
	case err == nil:
		return nil
	case errors.As(err, &pe) && pe.Want != "":
		x.Msg, x.Usage = fmt.Sprintf("unknown --%s %q (want %s)", pe.Name, pe.Value, pe.Want), true
	case errors.As(err, &pe):
		x.Msg, x.Usage = fmt.Sprintf("--%s %s", pe.Name, pe.Msg), true
	case errors.As(err, &nc) && nc.Answer.Stats.Chains > 0:
		who := "the sampler"
		if m := nc.Answer.Stats.Method; m != "" {
			who = "the sampler " + m
		}
		x.Msg = fmt.Sprintf("%s: the chains of %s have not mixed after %d samples: %s; or use --allow-unconverged to print the estimates (marked as such)",
			path, who, nc.Answer.Stats.Samples, nc.Answer.Stats.Mixing)
	case errors.As(err, &nc) && nc.Answer.Stats.Mixing != "":
		x.Msg = fmt.Sprintf("%s: BP %v: its messages settled, but %s; the default method (auto) answers with a sampler, or use --allow-unconverged to print BP's answer (marked as such)", path, nc, nc.Answer.Stats.Mixing)
	case errors.As(err, &nc):
		x.Msg = fmt.Sprintf("%s: BP %v; raise --max-iter, or use --allow-unconverged to print the non-converged answer (marked as such)", path, nc)
	case errors.As(err, &snc):
		x.Msg = fmt.Sprintf("%v; raise --max-iter (or --samples), add --damping, or use --allow-unconverged", snc)
	case errors.As(err, &re), errors.As(err, &fe), errors.As(err, &we):
		x.Msg, x.Usage = err.Error(), true
	case errors.Is(err, context.Canceled):
		x.Msg, x.Interrupted = path+": interrupted before any answer", true
	default:
		return err
	}
	return x
}

// CheckOptions checks, before any work, the request's options that the
// front ends take as flags (--color-mode, --workers, --construction),
// phrased as the flags: a *RequestError.
func CheckOptions(req Request) error {
	switch req.ColourMode {
	case "auto", "", "positional", "cnf", "symmetric":
	default:
		return requestErrorf("unknown --color-mode %q (want auto, positional, symmetric or cnf)", req.ColourMode)
	}
	if req.Workers < 0 {
		return requestErrorf("--workers must be at least 0, got %d", req.Workers)
	}
	switch req.Ground.Construction {
	case "", ConstructFirstOrder, ConstructGround:
		return nil
	}
	return requestErrorf("unknown --construction %q (want first-order or ground)", req.Ground.Construction)
}
