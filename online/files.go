package online

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/pos"
)

// FileResult is the answer of LearnFiles.
type FileResult struct {
	*LearnResult
	// Data are the data learned from (Data.User is the model the weights
	// are for).
	Data *Data
	// Lines are the run's figures for the user, in words: the exact test
	// log-likelihood of each holdout database that has one, then the
	// summary ("smd: …, test CMLL …, 1.2 s"). Header is the comment of
	// the learned MLN (learn.WriteMLN's header).
	Lines  []string
	Header string
}

// LearnFiles loads the MLN at input and the databases of c (LoadDataContext, with
// the non-evidence predicates ne) and learns by c.Method (Learn): what
// "lifted learn --method smd|sgd|scg|lbfgs-bp" does. Before learning it
// calls warn with the parser's warnings and note with what the run
// decided, if anything (every predicate predicted, without ne); either may
// be nil. A missing ne on partly observed data is a *NEError.
func LearnFiles(ctx context.Context, input string, ne []string, c Config, warn func([]*pos.Error), note func(string)) (*FileResult, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	d, err := LoadDataContext(ctx, input, c.Train, c.Holdout, ne)
	if d != nil && warn != nil {
		warn(d.Warnings)
	}
	if err != nil {
		return nil, err
	}
	if d.Generative && note != nil {
		note(fmt.Sprintf("%s: no --ne: the data observe every predicate, so all are predicted (generative, as Alchemy's -g): %s",
			c.Method, strings.Join(d.NE, ",")))
	}
	res, err := Learn(ctx, d, c)
	if err != nil {
		return nil, err
	}
	r := &FileResult{LearnResult: res, Data: d,
		Header: fmt.Sprintf("Learned by lifted learn --method %s from %s\n%s", c.Method, learn.TrainNames(c.Train), res.Summary)}
	for i, ll := range res.Curve.TestLogLik {
		if ll != nil {
			r.Lines = append(r.Lines, fmt.Sprintf("%s: exact test log-likelihood %.10g", filepath.Base(c.Holdout[i]), *ll))
		}
	}
	last := ""
	if cmll := res.Curve.LastCMLL(); cmll != nil {
		last = fmt.Sprintf(", test CMLL %.6g", *cmll)
	}
	r.Lines = append(r.Lines, fmt.Sprintf("%s: %s%s, %.3f s", c.Method, res.Summary, last, res.Curve.Seconds))
	return r, nil
}
