package score

import (
	"errors"
	"fmt"
	"math"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// Options configure Score.
type Options struct {
	// Preds names the predicates to score; empty: those of the answer's
	// atoms.
	Preds []string
	// Clip clips the probabilities of the conditional log-likelihood to
	// [Clip, 1−Clip]; 0 means DefaultClip, negative no clipping.
	Clip float64
	// Missing is the probability given to an atom of the universe that
	// the answer does not list (Tuffy leaves out atoms of probability 0;
	// Alchemy and lifted list every query atom). NaN: such an atom is an
	// error.
	Missing float64
	// MaxAtoms bounds the universe (default 10⁸).
	MaxAtoms int
	// KeepPredictions keeps every scored atom's probability and truth in
	// the report (for a PR curve).
	KeepPredictions bool
}

// Report is what Score found.
type Report struct {
	// Universe says in words which atoms were scored.
	Universe string `json:"universe"`
	// Overall pools the atoms of every scored predicate.
	Overall Metrics `json:"overall"`
	// PerPred has one entry per scored predicate, in the model's order.
	PerPred []PredMetrics `json:"predicates"`
	// Listed: universe atoms the answer gave; Missing: those it did not
	// (scored with Options.Missing); Evidence: atoms of the scored
	// predicates left out because the evidence gives them; Unknown: left
	// out because the truth database marks them unknown (?P(…));
	// Ignored: answer atoms of predicates not scored.
	Listed   int `json:"listed"`
	Missing  int `json:"missing"`
	Evidence int `json:"evidence"`
	Unknown  int `json:"unknown"`
	Ignored  int `json:"ignored"`
	// Probs and Truth are the scored atoms' probabilities and true values
	// (Options.KeepPredictions), in universe order.
	Probs []float64 `json:"-"`
	Truth []bool    `json:"-"`
}

// PredMetrics are the metrics of one predicate's atoms.
type PredMetrics struct {
	Pred string `json:"predicate"`
	Metrics
}

// Score scores ans against the true world truth under the closed-world
// rule: the universe is every ground atom of the scored predicates over
// the domains of truth (the model's constants and the database's, per
// type), less those that evidence (nil: none) gives and those that truth
// marks unknown; an atom truth does not list is false. An answer atom
// outside the universe (an unknown predicate or constant, or a repeated
// atom) is an error that names its line.
func Score(m *mln.MLN, truth, evidence *mln.DB, ans *Answer, opt Options) (*Report, error) {
	if opt.Clip == 0 {
		opt.Clip = DefaultClip
	}
	if opt.MaxAtoms <= 0 {
		opt.MaxAtoms = 1e8
	}
	predOf := func(name string) int {
		if p := m.PredIndex(name); p >= 0 {
			return p
		}
		q := -1
		for i, d := range m.Preds { // Alchemy's files may differ in case
			if strings.EqualFold(d.Name, name) {
				if q >= 0 {
					return -1
				}
				q = i
			}
		}
		return q
	}
	scored := make([]bool, len(m.Preds))
	if len(opt.Preds) == 0 {
		for _, a := range ans.Atoms {
			p := predOf(a.Pred)
			if p < 0 {
				return nil, fmt.Errorf("%s: unknown predicate %q", where(ans, a), a.Pred)
			}
			scored[p] = true
		}
	}
	for _, n := range opt.Preds {
		p := predOf(n)
		if p < 0 {
			return nil, fmt.Errorf("unknown predicate %q", n)
		}
		scored[p] = true
	}
	// the answer's probabilities by atom key
	key := func(p int, args []int) string {
		var b strings.Builder
		fmt.Fprint(&b, p)
		for _, a := range args {
			fmt.Fprintf(&b, ",%d", a)
		}
		return b.String()
	}
	probs := map[string]float64{}
	r := &Report{}
	for _, a := range ans.Atoms {
		p := predOf(a.Pred)
		if p < 0 || !scored[p] {
			r.Ignored++
			continue
		}
		d := m.Preds[p]
		if len(a.Args) != len(d.TypeIdx) {
			return nil, fmt.Errorf("%s: %s has %d arguments, %s takes %d", where(ans, a), a.Pred, len(a.Args), d.Name, len(d.TypeIdx))
		}
		idx := make([]int, len(a.Args))
		for i, c := range a.Args {
			typ := m.Types[d.TypeIdx[i]].Name
			j := truth.ConstIndex(typ, c)
			if j < 0 {
				j = truth.ConstIndex(typ, strings.Trim(c, `"`))
			}
			if j < 0 {
				return nil, fmt.Errorf("%s: constant %q of type %s is in neither the model nor the truth database", where(ans, a), c, typ)
			}
			idx[i] = j
		}
		k := key(p, idx)
		if _, dup := probs[k]; dup {
			return nil, fmt.Errorf("%s: %s(%s) is listed twice", where(ans, a), a.Pred, strings.Join(a.Args, ","))
		}
		probs[k] = a.P
	}
	var desc []string
	total := 0
	for p, d := range m.Preds {
		if !scored[p] {
			continue
		}
		n := 1
		var dims []string
		for _, t := range d.TypeIdx {
			s := len(truth.Domain(m.Types[t].Name))
			dims = append(dims, fmt.Sprintf("%d %s", s, m.Types[t].Name))
			n *= s
			if n > opt.MaxAtoms {
				return nil, fmt.Errorf("%s has more than %d ground atoms", d.Name, opt.MaxAtoms)
			}
		}
		total += n
		if total > opt.MaxAtoms {
			return nil, fmt.Errorf("more than %d ground atoms to score", opt.MaxAtoms)
		}
		if len(dims) == 0 {
			desc = append(desc, d.Name)
		} else {
			desc = append(desc, fmt.Sprintf("%s (%s: %d)", d.Name, strings.Join(dims, " × "), n))
		}
	}
	var allP []float64
	var allY []bool
	for p, d := range m.Preds {
		if !scored[p] {
			continue
		}
		var ps []float64
		var ys []bool
		sizes := make([]int, len(d.TypeIdx))
		for i, t := range d.TypeIdx {
			sizes[i] = len(truth.Domain(m.Types[t].Name))
		}
		args := make([]int, len(sizes))
		empty := false
		for _, s := range sizes {
			empty = empty || s == 0
		}
		for !empty {
			skip := false
			if evidence != nil {
				if _, ok := evidence.Lookup(p, args); ok {
					r.Evidence++
					skip = true
				}
			}
			t, ok := truth.Lookup(p, args)
			if !skip && ok && t == mln.Unknown {
				r.Unknown++
				skip = true
			}
			if !skip {
				q, listed := probs[key(p, args)]
				if listed {
					r.Listed++
				} else {
					if math.IsNaN(opt.Missing) {
						return nil, fmt.Errorf("the answer does not give %s", atomName(m, truth, p, args))
					}
					r.Missing++
					q = opt.Missing
				}
				ps = append(ps, q)
				ys = append(ys, ok && t == mln.True)
			}
			i := len(args) - 1
			for ; i >= 0; i-- {
				args[i]++
				if args[i] < sizes[i] {
					break
				}
				args[i] = 0
			}
			if i < 0 {
				break
			}
		}
		r.PerPred = append(r.PerPred, PredMetrics{Pred: d.Name, Metrics: Compute(ps, ys, opt.Clip)})
		allP = append(allP, ps...)
		allY = append(allY, ys...)
	}
	if len(allP) == 0 {
		return nil, errors.New("no atoms to score")
	}
	r.Overall = Compute(allP, allY, opt.Clip)
	r.Universe = fmt.Sprintf("every ground atom of %s over the truth database's domains (the model's constants and the database's), %d in all", strings.Join(desc, ", "), total)
	if r.Evidence > 0 {
		r.Universe += fmt.Sprintf(", less %d the evidence gives", r.Evidence)
	}
	if r.Unknown > 0 {
		r.Universe += fmt.Sprintf(", less %d the truth database marks unknown", r.Unknown)
	}
	r.Universe += fmt.Sprintf("; closed world: an atom the truth database does not list is false; %d atoms scored", len(allP))
	if r.Missing > 0 {
		r.Universe += fmt.Sprintf(", %d of them not in the answer and scored as probability %g", r.Missing, opt.Missing)
	}
	if opt.KeepPredictions {
		r.Probs, r.Truth = allP, allY
	}
	return r, nil
}

func where(ans *Answer, a AnswerAtom) string {
	if a.Line > 0 {
		return fmt.Sprintf("%s:%d", ans.Name, a.Line)
	}
	return ans.Name
}

func atomName(m *mln.MLN, db *mln.DB, p int, args []int) string {
	d := m.Preds[p]
	var cs []string
	for i, a := range args {
		cs = append(cs, db.Domain(m.Types[d.TypeIdx[i]].Name)[a])
	}
	return d.Name + "(" + strings.Join(cs, ",") + ")"
}

// Files names the inputs of a scoring run as lifted score takes them.
type Files struct {
	Truth    []string // the true world (.db files)
	Evidence []string // evidence atoms, not scored (.db files; optional)
	Result   string   // the answer (ReadAnswerFile)
}

// Run is a scoring run read from files: what was read and the report.
type Run struct {
	Truth, Evidence *mln.DB // Evidence nil without files
	Answer          *Answer
	Report          *Report
}

// ScoreFiles reads f's files for m and scores the answer against the true
// world (Score with opt).
func ScoreFiles(m *mln.MLN, f Files, opt Options) (*Run, error) {
	truth, err := mlnfile.ReadDBFiles(m, f.Truth...)
	if err != nil {
		return nil, err
	}
	run := &Run{Truth: truth}
	if len(f.Evidence) > 0 {
		if run.Evidence, err = mlnfile.ReadDBFiles(m, f.Evidence...); err != nil {
			return nil, err
		}
	}
	if run.Answer, err = ReadAnswerFile(f.Result); err != nil {
		return nil, err
	}
	if run.Report, err = Score(m, truth, run.Evidence, run.Answer, opt); err != nil {
		return nil, err
	}
	return run, nil
}

// PRCurves are the precision-recall curves of the run (scored with
// KeepPredictions; see the function PRCurves).
func (r *Run) PRCurves(m *mln.MLN, opt Options) ([]Curve, error) {
	return PRCurves(m, r.Truth, r.Evidence, r.Answer, r.Report, opt)
}
