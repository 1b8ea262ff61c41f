package wfomc

import (
	"strings"
)

// Shattering removes constants. Each type t is split into its named
// constants specials[t] and the anonymous rest R_t. Every free variable of
// a formula is instantiated to each named constant and to "an element of
// R_t"; every quantifier ∃z ψ becomes ψ[z:=c₁] ∨ … ∨ ∃z∈R ψ; and every atom
// becomes an atom of a piece of its predicate: P(x, Guy) with x ∈ R is the
// unary predicate P[_,Guy] over R, P(Guy, Nima) is the nullary P[Guy,Nima].
// The pieces of P partition its ground atoms, so the result is a
// constant-free problem with the same weighted model count.

// shatterResult is the constant-free problem with what is needed to count
// the ground atoms that no formula mentions.
type shatterResult struct {
	pb *problem
	// pieces maps "parent pred, pattern" to the new predicate index.
	pieces map[string]int
	// free lists the parent predicates, each with the pieces of it that
	// formulas use: the other ground atoms are unconstrained.
	parentPreds []int
	used        map[int][]int // parent pred → used pieces
}

func pieceKey(parent int, pattern []string) string {
	return itoa(parent) + "|" + strings.Join(pattern, "\x00")
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b [20]byte
	p := len(b)
	for i > 0 {
		p--
		b[p] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		p--
		b[p] = '-'
	}
	return string(b[p:])
}

type shatterer struct {
	pl       *poller
	src      *problem
	specials [][]string
	out      *problem
	res      *shatterResult
}

// shatter splits off specials[t] from every type t of src.
func shatter(pl *poller, src *problem, specials [][]string) *shatterResult {
	out := &problem{types: make([]ptype, len(src.types))}
	for i, t := range src.types {
		t.off += int64(len(specials[i]))
		out.types[i] = t
	}
	s := &shatterer{pl: pl, src: src, specials: specials, out: out,
		res: &shatterResult{pb: out, pieces: map[string]int{}, used: map[int][]int{}}}
	for pi, p := range src.preds {
		if p.kind != pMember { // membership atoms are not atoms of the model
			s.res.parentPreds = append(s.res.parentPreds, pi)
		}
	}
	for _, f := range src.formulas {
		pl.poll()
		s.formula(f)
	}
	s.res.finish()
	return s.res
}

// piece returns the index of the piece of parent with the given pattern
// ("" marks an argument position that stays a variable).
func (s *shatterer) piece(parent int, pattern []string) int {
	s.pl.poll()
	k := pieceKey(parent, pattern)
	if i, ok := s.res.pieces[k]; ok {
		return i
	}
	p := s.src.preds[parent]
	var types []int
	name := p.name
	allVar := true
	for i, c := range pattern {
		if c == "" {
			types = append(types, p.types[i])
		} else {
			allVar = false
		}
	}
	if !allVar {
		parts := make([]string, len(pattern))
		for i, c := range pattern {
			if c == "" {
				parts[i] = "_"
			} else {
				parts[i] = c
			}
		}
		name += "[" + strings.Join(parts, ",") + "]"
	}
	i := len(s.out.preds)
	s.out.preds = append(s.out.preds, pred{name: name, types: types, kind: p.kind, parent: parent, ord: p.ord, dist: p.dist})
	s.res.pieces[k] = i
	s.res.used[parent] = append(s.res.used[parent], i)
	return i
}

func (s *shatterer) formula(f *formula) {
	// Enumerate the instantiations of the free variables that may be named
	// constants.
	choices := make([][]string, len(f.free))
	for i, v := range f.free {
		fv := f.vars[v]
		choices[i] = []string{""} // "" = an element of R
		if !fv.anon {
			choices[i] = append(choices[i], s.specials[fv.typ]...)
		}
	}
	assign := make([]string, len(f.free))
	var rec func(i int)
	rec = func(i int) {
		if i == len(f.free) {
			s.instance(f, assign)
			return
		}
		for _, c := range choices[i] {
			assign[i] = c
			rec(i + 1)
		}
	}
	rec(0)
}

func (s *shatterer) instance(f *formula, assign []string) {
	sub := map[int]string{}
	var free []int
	for i, v := range f.free {
		if assign[i] != "" {
			sub[v] = assign[i]
		} else {
			free = append(free, v)
		}
	}
	body := simplify(s.rewrite(f, f.body, sub))
	g := &formula{src: f.src, param: f.param, vars: f.vars, free: free, body: body, text: f.text}
	s.out.formulas = append(s.out.formulas, g)
}

// rewrite substitutes constants for variables, expands quantifiers over the
// named constants and maps atoms to pieces.
func (s *shatterer) rewrite(f *formula, n *node, sub map[int]string) *node {
	resolve := func(t term) term {
		if t.isVar() {
			if c, ok := sub[t.v]; ok {
				return term{v: -1, c: c}
			}
		}
		return t
	}
	switch n.k {
	case nTrue, nFalse:
		return n
	case nAtom:
		pattern := make([]string, len(n.args))
		var args []term
		for i, a := range n.args {
			a = resolve(a)
			if a.isVar() {
				args = append(args, a)
			} else {
				pattern[i] = a.c
			}
		}
		return &node{k: nAtom, pred: s.piece(n.pred, pattern), args: args}
	case nEq:
		l, r := resolve(n.args[0]), resolve(n.args[1])
		switch {
		case !l.isVar() && !r.isVar():
			return boolNode(l.c == r.c)
		case l.isVar() != r.isVar():
			return falseNode // an element of R is never a named constant
		}
		return &node{k: nEq, args: []term{l, r}}
	case nExists, nForall:
		v := n.qv
		var kids []*node
		for _, c := range s.specials[f.vars[v].typ] {
			sub2 := make(map[int]string, len(sub)+1)
			for k, x := range sub {
				sub2[k] = x
			}
			sub2[v] = c
			kids = append(kids, s.rewrite(f, n.kids[0], sub2))
		}
		q := &node{k: n.k, qv: v, cmp: n.cmp, cnt: n.cnt, kids: []*node{s.rewrite(f, n.kids[0], sub)}}
		if len(kids) == 0 {
			return q
		}
		op := nOr
		if n.k == nForall {
			op = nAnd
		}
		return &node{k: op, kids: append(kids, q)}
	}
	kids := make([]*node, len(n.kids))
	for i, k := range n.kids {
		kids[i] = s.rewrite(f, k, sub)
	}
	c := *n // an nCard keeps its bound
	c.kids = kids
	return &c
}

// freeAtoms returns the number of ground atoms of the source problem's
// predicates that no formula of the shattered problem mentions, for base
// sizes n.
func (r *shatterResult) freeAtoms(src *problem, n []int64) float64 {
	total := 0.0
	for _, pi := range r.parentPreds {
		if src.preds[pi].ord != ordNone {
			continue // fixed by the order (order.go)
		}
		all := 1.0
		for _, t := range src.preds[pi].types {
			all *= float64(src.size(t, n))
		}
		for _, q := range r.used[pi] {
			c := 1.0
			for _, t := range r.pb.preds[q].types {
				c *= float64(r.pb.size(t, n))
			}
			all -= c
		}
		total += all
	}
	return total
}

// finish drops from used the pieces that no formula mentions any more
// (pieces are created on use, but a formula may simplify away).
func (r *shatterResult) finish() {
	set := map[int]bool{}
	for _, f := range r.pb.formulas {
		predsOf(f.body, set)
	}
	for p, qs := range r.used {
		var keep []int
		for _, q := range qs {
			if set[q] {
				keep = append(keep, q)
			}
		}
		r.used[p] = keep
	}
}
