package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lifted-dev/lifted/infer"
)

func TestExplain(t *testing.T) {
	plain := errors.New("disk full")
	if Explain("m.mln", nil) != nil || Explain("m.mln", plain) != plain {
		t.Error("nil and errors with nothing to add must pass unchanged")
	}
	nc := &infer.NotConvergedError{Tried: []string{"as asked"}, Iterations: 5, Answer: &infer.Answer{}}
	for _, tc := range []struct {
		err                error
		msg                string
		usage, interrupted bool
	}{
		{&infer.PropertyError{Method: "bp", Name: "schedule", Value: "zigzag", Want: "flood or seq"}, `unknown --schedule "zigzag" (want flood or seq)`, true, false},
		{&infer.PropertyError{Method: "bp", Name: "damping", Msg: "must be in [0, 1), got 2"}, "--damping must be in [0, 1), got 2", true, false},
		{requestErrorf("no such predicate"), "no such predicate", true, false},
		{fmt.Errorf("run: %w", context.Canceled), "m.mln: interrupted before any answer", false, true},
		{nc, "m.mln: BP " + nc.Error() + "; raise --max-iter, or use --allow-unconverged to print the non-converged answer (marked as such)", false, false},
	} {
		err := Explain("m.mln", tc.err)
		var x *Explained
		if !errors.As(err, &x) || x.Msg != tc.msg || x.Usage != tc.usage || x.Interrupted != tc.interrupted || !errors.Is(err, tc.err) {
			t.Errorf("%v: got %#v", tc.err, err)
		}
	}
	var got *infer.NotConvergedError
	if !errors.As(Explain("m.mln", nc), &got) {
		t.Error("a run that did not converge must stay one for errors.As (exit status 3)")
	}
}
