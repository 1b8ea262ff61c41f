package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/lifted-dev/lifted/dynamic"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// runDynamic unrolls a dynamic MLN and filters and/or smooths it.
func (m *Model) runDynamic(ctx context.Context, req Request) (*Result, error) {
	d := *req.Dynamic
	if !m.IsMLN() {
		return nil, requestErrorf("%s: a dynamic run needs a dynamic MLN", m.Path)
	}
	if req.Task != infer.Marginals {
		return nil, requestErrorf("a dynamic run answers marginal queries only")
	}
	if d.Protocol == "" {
		d.Protocol = "fb"
	}
	switch d.Protocol {
	case "fb", "flood":
	default:
		return nil, requestErrorf("unknown protocol %q (want fb or flood)", d.Protocol)
	}
	if d.Filter && d.Smooth {
		return nil, requestErrorf("filter and smooth exclude each other (without either, both are computed)")
	}
	if req.Tolerance != 0 {
		// Each step's BP runs on its own slice of the unrolled network,
		// lifted exactly; approximate lifting (and its error estimate
		// against ground BP) is not built for it.
		return nil, requestErrorf("--tolerance is not available for dynamic runs (their steps are lifted exactly); leave it out")
	}
	if req.Method == "" || req.Method == "auto" {
		req.Method = "lbp"
	}
	props := infer.Properties{}
	for k, v := range req.Properties {
		props[k] = v
	}
	if req.Method == "lbp" || req.Method == "bp" {
		props["schedule"] = d.Protocol // BP's message order
	}
	req.Properties = props
	s, err := m.setup(req)
	if err != nil {
		return nil, err
	}
	ro := dynamic.RunOptions{Lifted: s.opt.Lifted, Algorithm: s.alg, Lift: s.opt.Colour, Seed: req.Seed}
	queries := req.Query
	if len(req.QueryFiles) > 0 {
		qf, err := ParseQueryFiles(m.MLN, req.QueryFiles)
		if err != nil {
			return nil, err
		}
		queries = append(append([]string(nil), queries...), qf...)
	}
	if len(queries) == 0 {
		return nil, requestErrorf("a dynamic run needs query fluents, e.g. Cancer")
	}
	read := func(static *mln.MLN) (*mln.DB, error) {
		if len(m.EvidenceFiles) == 0 {
			return mln.NewDB(static), nil
		}
		db, err := mlnfile.ReadDBFiles(static, m.EvidenceFiles...)
		if err == nil && req.Warn != nil && len(db.Warnings) > 0 {
			req.Warn(db.Warnings)
		}
		return db, err
	}
	md, err := dynamic.Unroll(ctx, m.MLN, read, dynamic.Options{Horizon: d.Horizon, Query: queries, Ground: groundOptions(req.Ground)})
	var el pos.ErrorList
	if errors.As(err, &el) {
		return nil, err
	}
	if err != nil {
		return nil, mlnError(m.Path, err)
	}
	res := &Result{Task: infer.Marginals, Method: req.Method, Converged: true, Route: RouteDynamic, dyn: md}
	res.Dynamic = &DynamicStats{Horizon: md.Horizon, Protocol: d.Protocol,
		GroundAtoms: md.Grounding.NumAtoms, GroundFormulas: md.Grounding.NumFormulas, GroundSeconds: md.Grounding.Seconds}
	step := func(s dynamic.Step, smoothed bool) (Step, error) {
		res.Dynamic.add(s.Stats)
		out := Step{Step: s.Step, Smoothed: smoothed, Converged: s.Stats.Converged, Stats: s.Stats}
		for i, q := range md.Queries { // query order
			if p, ok := s.Marginals[i]; ok {
				out.Marginals = append(out.Marginals, StepAtom{Name: q.Name, P: p})
			}
		}
		res.Steps = append(res.Steps, out)
		if d.OnStep != nil {
			return out, d.OnStep(out)
		}
		return out, nil
	}
	last := map[int]float64{} // each query atom's latest answer
	if !d.Smooth {
		err := md.Filter(ctx, ro, func(s dynamic.Step) error {
			for i, p := range s.Marginals {
				last[i] = p
			}
			_, err := step(s, false)
			return err
		})
		if err != nil {
			return nil, mlnError(m.Path, err)
		}
	}
	if !d.Filter {
		s, err := md.Smooth(ctx, ro)
		if err != nil {
			return nil, mlnError(m.Path, err)
		}
		last = s.Marginals
		if _, err := step(s, true); err != nil {
			return nil, err
		}
	}
	if n := res.Dynamic.NotConverged; n > 0 {
		res.Converged = false
		if !req.AllowUnconverged {
			return nil, &StepsNotConvergedError{Path: m.Path, NotConverged: n, Runs: res.Dynamic.Runs}
		}
	}
	res.numAtoms = len(last)
	res.atoms = func(yield func(Atom) bool) {
		for i, q := range md.Queries {
			if p, ok := last[i]; ok && !yield(Atom{Name: q.Name, P: p, StdErr: math.NaN()}) {
				return
			}
		}
	}
	return res, nil
}

// ParseQueryFiles reads files of query atoms (Alchemy's -f, Tuffy's
// -queryFile: atoms separated by commas or line breaks, // comments) as
// Request.Query values.
func ParseQueryFiles(m *mln.MLN, paths []string) ([]string, error) {
	q, err := ground.ReadQueryFiles(m, paths)
	return q, queryError(err)
}

// Series returns the marginals over time of the query fluents, the
// smoothed ones where the run smoothed, else the filtered ones, and the
// title saying which: of the atoms named (without the time argument, e.g.
// "Cancer(A)"), or the first max. An atom that is no query fluent is a
// *NoSuchAtomError.
func (r *Result) Series(atoms []string, max int) ([]dynamic.Series, string, error) {
	if r.dyn == nil {
		return nil, "", errors.New("not a dynamic run")
	}
	p, title := map[int]float64{}, "filtered marginals"
	for _, s := range r.Steps {
		if s.Smoothed {
			p, title = map[int]float64{}, "smoothed marginals"
		}
		for _, a := range s.Marginals {
			p[r.queryIndex(a.Name)] = a.P
		}
	}
	series := r.dyn.SeriesOf(p)
	if len(atoms) == 0 {
		if len(series) > max {
			series = series[:max]
		}
		return series, title, nil
	}
	var keep []dynamic.Series
	for _, want := range atoms {
		want = strings.ReplaceAll(want, " ", "")
		found := false
		for _, s := range series {
			if s.Label == want {
				keep, found = append(keep, s), true
			}
		}
		if !found {
			return nil, "", &NoSuchAtomError{Atom: want}
		}
	}
	return keep, title, nil
}

// queryIndex is the index of the named query atom in the dynamic model.
func (r *Result) queryIndex(name string) int {
	if r.queryIdx == nil {
		r.queryIdx = map[string]int{}
		for i, q := range r.dyn.Queries {
			r.queryIdx[q.Name] = i
		}
	}
	return r.queryIdx[name]
}

// NoSuchAtomError names an atom that is not a query fluent of a dynamic
// run.
type NoSuchAtomError struct{ Atom string }

// Error returns the message of the NoSuchAtomError.
func (e *NoSuchAtomError) Error() string {
	return fmt.Sprintf("%s: no such query atom (write it without the time argument, e.g. Cancer(A))", e.Atom)
}
