package mln

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/pos"
)

// A dynamic MLN (DMLN; Section 4.1 of the lifted BP paper) has a time type,
// whose constants are the steps 0, 1, …, T; fluents, the predicates whose last
// argument has the time type; and the successor of a time variable,
// "succ(t)" (also "t+1" or LoMRF's "t++"), Term.Succ. Intra-time formulas
// relate the atoms of one step (one time variable, no successor), inter-time
// formulas those of step t and t+1 (one time variable and its successor),
// and formulas with time constants only (the initial-slice priors
// "Smokes(x, 0)") those of the steps they name, which may be at most one step
// apart (the Markov assumption).

// TimeType returns the DMLN's time type: the type of the variables written
// with a successor, or else a type named "time" (any case). It returns ""
// when there is neither.
func TimeType(m *MLN) string {
	var typ string
	for _, f := range m.Formulas {
		Inspect(f.Expr, func(e Expr) bool {
			if a, ok := e.(*Atom); ok && typ == "" {
				for _, t := range a.Args {
					if t.Succ && t.Type != "" {
						typ = t.Type
						break
					}
				}
			}
			return typ == ""
		})
		if typ != "" {
			return typ
		}
	}
	for _, t := range m.Types {
		if strings.EqualFold(t.Name, "time") {
			return t.Name
		}
	}
	return ""
}

// IsDynamic reports whether some formula of m uses a successor term.
func IsDynamic(m *MLN) bool {
	dyn := false
	for _, f := range m.Formulas {
		Inspect(f.Expr, func(e Expr) bool {
			if a, ok := e.(*Atom); ok {
				for _, t := range a.Args {
					dyn = dyn || t.Succ
				}
			}
			return !dyn
		})
	}
	return dyn
}

// Unroll writes the DMLN m out as a static MLN over the time steps
// 0..horizon of type timeType: the time type is declared with exactly those
// constants ("0", "1", …), every inter-time formula becomes one formula per
// step t < horizon with t and succ(t) replaced by the constants t and t+1
// (each copy with the written weight), and all other formulas are kept (an
// intra-time formula's time variable ranges over the steps at grounding).
// origin[i] is the index in m.Formulas of out.Formulas[i]. With horizon < 0
// the time type must already be declared as the integer range 0..T and T is
// the horizon. It stops with ctx's error when ctx is done (a horizon of
// 10^5 steps takes seconds).
//
// Formulas that could link steps more than one apart are positioned errors:
// two time variables, a time variable with a time constant, a quantified time
// variable, a successor of a variable that is not of the time type, and time
// constants more than one step apart.
func Unroll(ctx context.Context, m *MLN, timeType string, horizon int) (out *MLN, origin []int, err error) {
	td := m.Type(timeType)
	if td == nil {
		return nil, nil, fmt.Errorf("dynamic MLN: no time type %q (declare e.g. \"%s = {0,...,9}\" or give a horizon)", timeType, timeType)
	}
	explicit := horizon >= 0
	if !explicit {
		if !td.Declared || td.NumDeclared == 0 {
			return nil, nil, fmt.Errorf("%s: dynamic MLN: the time type %s has no declared steps; declare \"%s = {0,...,T}\" or give a horizon", td.Pos, timeType, timeType)
		}
		horizon = td.NumDeclared - 1
	}
	steps := make([]string, horizon+1)
	for k := range steps {
		steps[k] = strconv.Itoa(k)
	}
	// Every constant the formulas give the time type must be a step (and,
	// without a horizon, every declared one).
	given := td.Constants
	if explicit {
		given = given[td.NumDeclared:]
	}
	for _, c := range given {
		k, err := strconv.Atoi(c)
		if err != nil || k < 0 || k > horizon {
			return nil, nil, fmt.Errorf("%s: dynamic MLN: time constant %q is not one of the steps 0..%d", td.Pos, c, horizon)
		}
	}
	type plan struct {
		tv    string // time variable of an inter-time formula, or ""
		inter bool
	}
	plans := make([]plan, len(m.Formulas))
	var errs pos.ErrorList
	for j, f := range m.Formulas {
		p, perr := classify(f, timeType)
		if perr != nil {
			errs = append(errs, perr)
			continue
		}
		plans[j] = plan{tv: p, inter: p != ""}
	}
	if len(errs) > 0 {
		return nil, nil, errs
	}
	b := NewBuilder()
	for _, t := range m.Types {
		switch {
		case t.Name == timeType:
			b.DeclareType(t.Name, t.Pos, steps)
		case t.Declared:
			b.DeclareType(t.Name, t.Pos, t.Constants[:t.NumDeclared])
		}
	}
	if !td.Declared {
		b.DeclareType(td.Name, td.Pos, steps)
	}
	typeAt := func(types []string) []pos.Position {
		at := make([]pos.Position, len(types))
		for i, t := range types {
			if td := m.Type(t); td != nil {
				at[i] = td.Pos
			}
		}
		return at
	}
	for _, d := range m.Funcs {
		b.DeclareFunc(&FuncDecl{Name: d.Name, RetType: d.RetType, ArgTypes: slices.Clone(d.ArgTypes), Pos: d.Pos}, typeAt(d.ArgTypes))
	}
	for _, d := range m.Preds {
		b.DeclarePred(&PredDecl{Name: d.Name, ArgTypes: slices.Clone(d.ArgTypes), MutexArgs: slices.Clone(d.MutexArgs), ClosedWorld: d.ClosedWorld, Pos: d.Pos}, typeAt(d.ArgTypes))
	}
	for j, f := range m.Formulas {
		if !plans[j].inter {
			b.AddFormula(copyFormula(f, substitute(f.Expr, nil, nil)))
			origin = append(origin, j)
			continue
		}
		tv := plans[j].tv
		for k := 0; k < horizon; k++ {
			if k%256 == 255 && ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			sub := map[string]string{tv: steps[k], "succ(" + tv + ")": steps[k+1]}
			g := copyFormula(f, substitute(f.Expr, sub, nil))
			g.Text = g.bodyString()
			b.AddFormula(g)
			origin = append(origin, j)
		}
	}
	out, err = b.Finish()
	if err != nil {
		return nil, nil, fmt.Errorf("unrolling the dynamic MLN: %w", err)
	}
	out.Warnings = m.Warnings
	return out, origin, nil
}

// classify checks the time terms of f and returns the time variable of an
// inter-time formula ("" for any other formula).
func classify(f *Formula, timeType string) (string, *pos.Error) {
	var (
		tvars   []string
		tvarAt  pos.Position
		consts  []int
		constAt pos.Position
		succ    string
		succAt  pos.Position
		bad     *pos.Error
	)
	quantified := map[string]bool{}
	Inspect(f.Expr, func(e Expr) bool {
		switch e := e.(type) {
		case *Exists:
			for _, v := range e.Vars {
				quantified[v.Name] = true
			}
		case *Forall:
			for _, v := range e.Vars {
				quantified[v.Name] = true
			}
		case *Atom:
			for _, t := range e.Args {
				if t.Succ && t.Type != timeType && bad == nil {
					bad = &pos.Error{Pos: t.Pos, Msg: fmt.Sprintf("succ(%s): %s has type %s, not the time type %s", t.Name, t.Name, t.Type, timeType)}
				}
				if t.Type != timeType {
					continue
				}
				switch {
				case t.Succ:
					if succ == "" {
						succ, succAt = t.Name, t.Pos
					}
					fallthrough
				case t.IsVar:
					if quantified[t.Name] && bad == nil {
						bad = &pos.Error{Pos: t.Pos, Msg: fmt.Sprintf("the time variable %s is quantified, which links every time step; a dynamic MLN relates one step to the next (the Markov assumption)", t.Name)}
					}
					if !slices.Contains(tvars, t.Name) {
						if len(tvars) == 0 {
							tvarAt = t.Pos
						}
						tvars = append(tvars, t.Name)
					}
				case !t.Func:
					k, err := strconv.Atoi(t.Name)
					if err != nil {
						if bad == nil {
							bad = &pos.Error{Pos: t.Pos, Msg: fmt.Sprintf("time constant %s is not an integer step", t.Name)}
						}
						continue
					}
					if len(consts) == 0 {
						constAt = t.Pos
					}
					consts = append(consts, k)
				}
			}
		}
		return true
	})
	switch {
	case bad != nil:
		return "", bad
	case len(tvars) > 1:
		return "", &pos.Error{Pos: tvarAt, Msg: fmt.Sprintf("the formula has two time variables, %s and %s, which links steps arbitrarily far apart; a dynamic MLN relates step t to t and succ(t) only (the Markov assumption)", tvars[0], tvars[1])}
	case len(tvars) == 1 && len(consts) > 0:
		return "", &pos.Error{Pos: constAt, Msg: fmt.Sprintf("the formula has the time variable %s and the time constant %d, which links steps arbitrarily far apart; a dynamic MLN relates step t to t and succ(t) only (the Markov assumption)", tvars[0], consts[0])}
	case len(consts) > 0 && slices.Max(consts)-slices.Min(consts) > 1:
		return "", &pos.Error{Pos: constAt, Msg: fmt.Sprintf("the formula links time steps %d and %d, more than one step apart (the Markov assumption)", slices.Min(consts), slices.Max(consts))}
	}
	_ = succAt
	return succ, nil
}

// CheckStatic returns a positioned error at the first successor term of m,
// or nil when m has none. Code that does not unroll time (the grounder,
// wfomc) refuses dynamic MLNs with it rather than read succ(t) as t.
func CheckStatic(m *MLN) error {
	for _, f := range m.Formulas {
		var at *Term
		Inspect(f.Expr, func(e Expr) bool {
			if a, ok := e.(*Atom); ok && at == nil {
				for i := range a.Args {
					if a.Args[i].Succ {
						at = &a.Args[i]
						break
					}
				}
			}
			return at == nil
		})
		if at != nil {
			return &pos.Error{Pos: at.Pos, Msg: fmt.Sprintf("succ(%s) is a dynamic MLN's successor term; unroll the model over its time steps first (lifted infer --dynamic, package dynamic)", at.Name)}
		}
	}
	return nil
}
