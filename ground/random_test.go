package ground

import (
	"fmt"
	"math/rand/v2"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// randomMLN writes a random small MLN: two types, two or three predicates
// (one possibly with a mutually exclusive argument), and a few formulas
// with connectives, quantifiers, equality, constants, starred atoms,
// per-constant variables, hard and negative weights.
type randomMLN struct {
	r     *rand.Rand
	types [][]string // constants per type
	preds []rpred
	b     strings.Builder
	// variables in scope while generating a formula, by type
	vars  [][]string
	fresh int
	// funcs adds Alchemy functions: declarations, function terms (nested
	// and in equalities) over the free variables, and their values in the
	// evidence, defined for every argument or for about two thirds.
	funcs bool
}

// rfuncs are the functions of a random MLN with funcs set: return type,
// name and argument types.
var rfuncs = []struct {
	ret  int
	name string
	args []int
}{{1, "fa", []int{0}}, {0, "fb", []int{1}}, {0, "fc", []int{0, 1}}}

type rpred struct {
	name  string
	args  []int // type per argument
	mutex int   // argument with "!", or -1
}

func newRandomMLN(seed uint64) *randomMLN {
	return &randomMLN{r: rand.New(rand.NewPCG(seed, seed*7+1))}
}

// text generates the .mln source.
func (g *randomMLN) text() string {
	r := g.r
	names := [][]string{{"A", "B", "C"}, {"1", "2", "3"}}
	g.types = nil
	for t := 0; t < 2; t++ {
		n := 2 + r.IntN(2)
		g.types = append(g.types, names[t][:n])
		fmt.Fprintf(&g.b, "t%d = {%s}\n", t, strings.Join(names[t][:n], ", "))
	}
	np := 2 + r.IntN(2)
	for i := 0; i < np; i++ {
		p := rpred{name: string(rune('P' + i)), mutex: -1}
		ar := r.IntN(3)
		if i == 0 && ar == 0 {
			ar = 1
		}
		for a := 0; a < ar; a++ {
			p.args = append(p.args, r.IntN(2))
		}
		if ar == 2 && r.IntN(5) == 0 {
			p.mutex = 1
		}
		g.preds = append(g.preds, p)
		g.b.WriteString(p.name)
		if ar > 0 {
			g.b.WriteByte('(')
			for a, t := range p.args {
				if a > 0 {
					g.b.WriteString(", ")
				}
				fmt.Fprintf(&g.b, "t%d", t)
				if a == p.mutex {
					g.b.WriteByte('!')
				}
			}
			g.b.WriteByte(')')
		}
		g.b.WriteByte('\n')
	}
	if g.funcs {
		for _, f := range rfuncs {
			var args []string
			for _, a := range f.args {
				args = append(args, fmt.Sprintf("t%d", a))
			}
			fmt.Fprintf(&g.b, "t%d %s(%s)\n", f.ret, f.name, strings.Join(args, ", "))
		}
	}
	nf := 1 + r.IntN(3)
	for i := 0; i < nf; i++ {
		g.formula()
	}
	return g.b.String()
}

func (g *randomMLN) formula() {
	r := g.r
	g.vars = [][]string{{"x", "y"}, {"u", "v"}}
	g.fresh = 0
	body := g.expr(0)
	switch k := r.IntN(10); {
	case k < 2:
		fmt.Fprintf(&g.b, "%s.\n", body)
	case k < 3:
		fmt.Fprintf(&g.b, "%s\n", body) // unweighted: needs a default weight
	default:
		w := float64(r.IntN(41)-20) / 10
		fmt.Fprintf(&g.b, "%g %s\n", w, body)
	}
}

func (g *randomMLN) expr(depth int) string {
	r := g.r
	if depth >= 2 || r.IntN(3) == 0 {
		return g.literal()
	}
	switch r.IntN(8) {
	case 0:
		return "!(" + g.expr(depth+1) + ")"
	case 1, 2:
		return "(" + g.expr(depth+1) + " ^ " + g.expr(depth+1) + ")"
	case 3, 4:
		return "(" + g.expr(depth+1) + " v " + g.expr(depth+1) + ")"
	case 5:
		return "(" + g.expr(depth+1) + " => " + g.expr(depth+1) + ")"
	case 6:
		return "(" + g.expr(depth+1) + " <=> " + g.expr(depth+1) + ")"
	default:
		// a quantifier over a fresh variable used in an atom of its body
		t := r.IntN(2)
		name := fmt.Sprintf("q%d", g.fresh)
		g.fresh++
		kw := "EXIST"
		if r.IntN(2) == 0 {
			kw = "FORALL"
		}
		p, ok := g.predWith(t)
		if !ok {
			return g.literal()
		}
		atom := g.atomWith(p, t, name)
		g.vars[t] = append(g.vars[t], name)
		inner := g.expr(depth + 1)
		g.vars[t] = g.vars[t][:len(g.vars[t])-1]
		op := " v "
		if r.IntN(2) == 0 {
			op = " ^ "
		}
		return "(" + kw + " " + name + " (" + atom + op + inner + "))"
	}
}

// predWith returns a predicate with an argument of type t.
func (g *randomMLN) predWith(t int) (rpred, bool) {
	for _, i := range g.r.Perm(len(g.preds)) {
		for _, a := range g.preds[i].args {
			if a == t {
				return g.preds[i], true
			}
		}
	}
	return rpred{}, false
}

// atomWith writes an atom of p with variable v at an argument of type t.
func (g *randomMLN) atomWith(p rpred, t int, v string) string {
	placed := false
	var args []string
	for _, a := range p.args {
		if a == t && !placed {
			args = append(args, v)
			placed = true
			continue
		}
		args = append(args, g.termOf(a))
	}
	return p.name + "(" + strings.Join(args, ", ") + ")"
}

func (g *randomMLN) termOf(t int) string {
	r := g.r
	if g.funcs && r.IntN(3) == 0 {
		return g.funcTerm(t, 0)
	}
	if r.IntN(6) == 0 {
		return g.types[t][r.IntN(len(g.types[t]))]
	}
	v := g.vars[t][r.IntN(len(g.vars[t]))]
	if r.IntN(12) == 0 && !strings.HasPrefix(v, "q") {
		return "+" + v
	}
	return v
}

// funcTerm writes a function term of return type t whose arguments are
// free variables, constants or (rarely) function terms.
func (g *randomMLN) funcTerm(t, depth int) string {
	r := g.r
	var cands []int
	for i, f := range rfuncs {
		if f.ret == t {
			cands = append(cands, i)
		}
	}
	f := rfuncs[cands[r.IntN(len(cands))]]
	var args []string
	for _, a := range f.args {
		switch k := r.IntN(8); {
		case k == 0 && depth < 1:
			args = append(args, g.funcTerm(a, depth+1))
		case k == 1:
			args = append(args, g.types[a][r.IntN(len(g.types[a]))])
		default:
			args = append(args, g.vars[a][r.IntN(2)]) // x, y or u, v: never quantified
		}
	}
	return f.name + "(" + strings.Join(args, ", ") + ")"
}

func (g *randomMLN) literal() string {
	r := g.r
	if r.IntN(7) == 0 {
		t := r.IntN(2)
		l, rt := g.vars[t][r.IntN(len(g.vars[t]))], g.termOf(t)
		rt = strings.TrimPrefix(rt, "+")
		op := " = "
		if r.IntN(2) == 0 {
			op = " != "
		}
		// an equality alone cannot type a variable: pair it with an atom
		p, ok := g.predWith(t)
		if !ok {
			return "(" + l + op + rt + ")"
		}
		return "(" + l + op + rt + " v " + g.atomWith(p, t, l) + ")"
	}
	p := g.preds[r.IntN(len(g.preds))]
	var args []string
	for _, a := range p.args {
		args = append(args, g.termOf(a))
	}
	s := p.name
	if len(args) > 0 {
		s += "(" + strings.Join(args, ", ") + ")"
	}
	switch r.IntN(8) {
	case 0, 1, 2:
		s = "!" + s
	case 3:
		s = "*" + s
	}
	return s
}

// evidence fills db with random evidence and returns the options (query,
// world overrides) for the instance.
func (g *randomMLN) evidence(m *mln.MLN, db *mln.DB) Options {
	r := g.r
	var opt Options
	for _, p := range m.Preds {
		switch r.IntN(4) {
		case 0:
			opt.Query = append(opt.Query, p.Name)
		case 1:
			opt.OpenWorld = append(opt.OpenWorld, p.Name)
		}
	}
	doms := mln.Domains(m, db)
	for _, p := range m.Preds {
		if r.IntN(3) == 0 {
			continue
		}
		n := 1
		for _, t := range p.ArgTypes {
			n *= len(doms[t])
		}
		for k := 0; k < n; k++ {
			args := make([]string, len(p.ArgTypes))
			rem := k
			for a := len(args) - 1; a >= 0; a-- {
				d := doms[p.ArgTypes[a]]
				args[a] = d[rem%len(d)]
				rem /= len(d)
			}
			var v mln.Truth
			switch r.IntN(6) {
			case 0, 1:
				v = mln.False
			case 2:
				v = mln.True
			case 3:
				v = mln.Unknown
			default:
				continue
			}
			_ = db.AddAtom(p.Name, args, v) // a second true atom of a mutex block is refused
		}
	}
	if g.funcs {
		total := r.IntN(2) == 0
		var lines strings.Builder
		for _, f := range rfuncs {
			n := 1
			for _, a := range f.args {
				n *= len(g.types[a])
			}
			for k := 0; k < n; k++ {
				if !total && r.IntN(3) == 0 {
					continue
				}
				args := make([]string, len(f.args))
				rem := k
				for i := len(args) - 1; i >= 0; i-- {
					d := g.types[f.args[i]]
					args[i] = d[rem%len(d)]
					rem /= len(d)
				}
				ret := g.types[f.ret]
				fmt.Fprintf(&lines, "%s = %s(%s)\n", ret[r.IntN(len(ret))], f.name, strings.Join(args, ","))
			}
		}
		if err := mlnfile.ReadDBInto(db, strings.NewReader(lines.String()), "funcs.db"); err != nil {
			panic(err)
		}
	}
	opt.DefaultWeight, opt.UseDefaultWeight = 0.7, true
	return opt
}
