package infer_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// flaky converges only when its variant is at least want.
type flaky struct {
	variant, want int
}

func (f *flaky) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	ok := f.variant >= f.want
	return &infer.Answer{Graph: c, Converged: ok, MaxChange: 0.5,
		Stats: infer.Stats{BPIterations: 10, Messages: 100, Converged: ok}}, nil
}

func (f *flaky) Fallbacks() []infer.Fallback {
	return []infer.Fallback{
		{Name: "v1", Algorithm: &flaky{variant: 1, want: f.want}},
		{Name: "v2", Algorithm: &flaky{variant: 2, want: f.want}},
	}
}

func TestUnconvergedPolicy(t *testing.T) {
	b := fg.NewBuilder()
	v := b.AddVar(2)
	if _, err := b.AddFactor([]int32{v}, []float64{1, 2}); err != nil {
		t.Fatal(err)
	}
	graph := b.Build()
	run := func(want int, pol infer.Unconverged) (*infer.Answer, error) {
		return infer.Run(context.Background(), &flaky{want: want}, graph, nil, infer.Options{Unconverged: pol})
	}
	// Accept: as today, the answer comes back marked.
	if ans, err := run(9, infer.Accept); err != nil || ans.Converged || ans.Stats.BPIterations != 10 {
		t.Fatalf("accept: %+v %v", ans, err)
	}
	// Retry: the first variant that converges answers, work summed.
	ans, err := run(2, infer.Retry)
	if err != nil || !ans.Converged || ans.Stats.Fallback != "v2" || ans.Stats.BPIterations != 30 || ans.Stats.Messages != 300 {
		t.Fatalf("retry: %+v %v", ans, err)
	}
	if ans, err := run(9, infer.Retry); err != nil || ans.Converged {
		t.Fatalf("retry, none converges: %+v %v", ans, err)
	}
	// Refuse: an error that carries the last answer.
	_, err = run(9, infer.Refuse)
	var nc *infer.NotConvergedError
	if !errors.As(err, &nc) || nc.Answer == nil || nc.Answer.Converged || len(nc.Tried) != 3 || nc.Answer.Stats.Variables != 1 {
		t.Fatalf("refuse: %v", err)
	}
	if ans, err := run(1, infer.Refuse); err != nil || ans.Stats.Fallback != "v1" {
		t.Fatalf("refuse, v1 converges: %+v %v", ans, err)
	}
}
