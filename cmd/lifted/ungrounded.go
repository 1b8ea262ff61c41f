package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/mln"
)

// inferUngrounded answers an MLN marginal query with a method that needs
// no grounding for this model (infer.Ungrounded: lifted blocked Gibbs when
// every cluster is lifted and no formula is hard), and reports whether it
// did. A method that needs the grounding says so before any work of note,
// and the caller grounds. --construction ground forces the grounding.
func inferUngrounded(ctx context.Context, f *inferFlags, pm *parsedMLN, path string, alg infer.Algorithm, opt infer.Options, stdout io.Writer) (bool, error) {
	u, ok := alg.(infer.Ungrounded)
	if !ok || f.construction == constructGround || opt.Query.Task != infer.Marginals || pm.opt.AlchemyCNF {
		return false, nil
	}
	model, err := ungroundedModel(pm)
	if err != nil {
		return true, withPath(path, err)
	}
	prog := newProgress(f.quiet)
	progressHooks(&opt, prog)
	ans, err := u.RunUngrounded(ctx, model, opt.Query)
	prog.done()
	if errors.Is(err, infer.ErrNeedsGrounding) {
		return false, nil
	}
	if err != nil {
		return true, mlnError(path, err)
	}
	st := mlnStats{Stats: ans.Stats, GroundAtoms: int64(ans.Stats.Variables), GroundFormulas: int64(ans.Stats.Factors), LiftedConstruction: true}
	return true, writeUngrounded(f, pm, ans, st, stdout)
}

// ungroundedModel is the first-order model of pm without its grounding:
// the MLN, the evidence, the world assumption and the weights; an error
// where grounding would refuse a formula's weight.
func ungroundedModel(pm *parsedMLN) (*infer.Model, error) {
	for i := range pm.m.Formulas {
		if _, err := ground.Weight(pm.m, i, pm.opt); err != nil {
			return nil, err
		}
	}
	closed, err := mln.ClosedWorld(pm.m, pm.db, pm.opt.QueryAtoms.Preds(), pm.opt.ClosedWorld, pm.opt.OpenWorld)
	if err != nil {
		return nil, err
	}
	db := pm.db
	if db == nil {
		db = mln.NewDB(pm.m)
	}
	return &infer.Model{MLN: pm.m, DB: db, Closed: closed, Weights: exact.Weights(pm.m, pm.opt)}, nil
}

// writeUngrounded writes the answer of an ungrounded run and its summary
// line.
func writeUngrounded(f *inferFlags, pm *parsedMLN, ans *infer.AtomAnswer, st mlnStats, stdout io.Writer) error {
	reportRun(&infer.Answer{Converged: ans.Converged, Stats: ans.Stats}, f.quiet)
	err := writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return writeAtomJSON(w, pm, ans, st)
		}
		return writeAtomAlchemy(w, pm, ans)
	})
	if err == nil {
		summarize(f.quiet, ans.Stats, int(st.GroundAtoms), 0)
	}
	return err
}

// eachUnknownQuery calls fn with the name and marginal of every query atom
// that the evidence leaves unknown, in the grounding's query order.
func eachUnknownQuery(pm *parsedMLN, ans *infer.AtomAnswer, fn func(name []byte, p float64) error) error {
	var err error
	var buf []byte
	pm.opt.QueryAtoms.Each(pm.db, func(pred int, args []int) bool {
		p, unknown := ans.Marginal(pred, args)
		if !unknown {
			return true
		}
		buf = ground.AppendAtomName(buf[:0], pm.m, pm.db, pred, args)
		err = fn(buf, p)
		return err == nil
	})
	return err
}

// writeAtomAlchemy is writeAlchemy for an ungrounded run.
func writeAtomAlchemy(w io.Writer, pm *parsedMLN, ans *infer.AtomAnswer) error {
	if !ans.Converged {
		if _, err := fmt.Fprintf(w, "// NOT CONVERGED: the chains have not mixed (worst R-hat %s)\n", rhat(ans.Stats.RHat)); err != nil {
			return err
		}
	}
	var line []byte
	return eachUnknownQuery(pm, ans, func(name []byte, p float64) error {
		line = append(append(append(append(line[:0], name...), ' '), formatProb(p)...), '\n')
		_, err := w.Write(line)
		return err
	})
}

// writeAtomJSON is writeMLNJSON for an ungrounded run (log_z null unless
// the method computed it).
func writeAtomJSON(w io.Writer, pm *parsedMLN, ans *infer.AtomAnswer, st mlnStats) error {
	if _, err := io.WriteString(w, `{"marginals":{`); err != nil {
		return err
	}
	first := true
	err := eachUnknownQuery(pm, ans, func(name []byte, p float64) error {
		n, _ := json.Marshal(string(name))
		sep := ","
		if first {
			sep, first = "", false
		}
		_, err := fmt.Fprintf(w, "%s%s:%s", sep, n, strconv.FormatFloat(p, 'g', -1, 64))
		return err
	})
	if err != nil {
		return err
	}
	b, err := statsJSON(st)
	if err != nil {
		return err
	}
	var lz any
	if ans.LogZ != nil {
		lz = finite(*ans.LogZ)
	}
	lzb, _ := json.Marshal(lz)
	_, err = fmt.Fprintf(w, `},"log_z":%s,"stats":%s}`+"\n", lzb, b)
	return err
}
