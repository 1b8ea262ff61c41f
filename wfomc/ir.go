package wfomc

import (
	"fmt"

	"github.com/lifted-dev/lifted/mln"
)

// The compiler works on a small first-order language of its own: problems
// whose predicates carry literal weights and whose formulas carry a
// parameter index (the θ_j whose e^θ_j each true grounding contributes, or
// −1 for hard formulas). Problems are rewritten step by step — constants
// shattered away, quantifiers replaced by Skolem predicates — each step
// giving a new problem.

type nodeKind uint8

const (
	nTrue nodeKind = iota
	nFalse
	nAtom
	nEq
	nNot
	nAnd
	nOr
	nIff
	nExists
	nForall
	// nCard is a cardinality constraint |P| cmp cnt: kids[0] is the atom
	// P(v1,…,vn) over distinct variables that the node binds.
	nCard
	// nLin is a linear cardinality constraint Σ_i coefs[i]·|P_i| cmp cnt
	// (cmp "=", "<=", ">=", "!="): kids[i] is the atom P_i(v1,…,vn) over
	// distinct variables that the node binds.
	nLin
)

// term is a variable (v ≥ 0, an index into formula.vars) or a constant
// (v < 0, c its name).
type term struct {
	v int
	c string
}

func (t term) isVar() bool { return t.v >= 0 }

type node struct {
	k    nodeKind
	pred int    // nAtom: index into problem.preds
	args []term // nAtom: the arguments; nEq: the two sides
	kids []*node
	qv   int // nExists, nForall: the bound variable
	// nExists: a counting quantifier of C2 when cmp is "=", "<=" or ">="
	// (cnt the bound); "" for a plain ∃.
	cmp string
	cnt int
	// nLin: the coefficient of each kid.
	coefs []int
}

var (
	trueNode  = &node{k: nTrue}
	falseNode = &node{k: nFalse}
)

func boolNode(b bool) *node {
	if b {
		return trueNode
	}
	return falseNode
}

// fvar is a variable of a formula: its name (for messages), its type (an
// index into problem.types) and, for query variables, the evidence block it
// is restricted to (see Compile).
type fvar struct {
	name string
	typ  int
	// anon: the variable ranges over the anonymous elements only (never over
	// named constants); set for the variables that replace the constants of
	// a query.
	anon bool
}

type formula struct {
	src   int // index of the MLN formula it comes from, −1 if none
	param int // parameter index, −1 for a hard formula
	vars  []fvar
	free  []int // free variables (indices into vars)
	body  *node
	text  string // for messages
}

// ptype is a domain of a problem: the elements of MLN type base that remain
// once off named constants have been taken out.
type ptype struct {
	name string
	base int   // index into the MLN's types
	off  int64 // named constants split off
}

type predKind uint8

const (
	pUser   predKind = iota // an MLN predicate or a piece of one
	pAux                    // stands for a quantified subformula
	pSkolem                 // Skolem predicate: weight −1 when false
	pMember                 // "x is in evidence block b"
)

type pred struct {
	name  string
	types []int // argument types (indices into problem.types)
	kind  predKind
	// parent is the predicate of the previous problem this one is a piece
	// of (−1 for predicates introduced by the step); atoms counts how many
	// of the parent's ground atoms it covers is done by the caller.
	parent int
	// ord marks the predicates of the linear order axiom (order.go): LEQ,
	// PRED/PREDk (dist k) and CIRCULAR_PRED.
	ord  orderKind
	dist int
}

func (p *pred) negWeight() float64 {
	if p.kind == pSkolem {
		return -1
	}
	return 1
}

type problem struct {
	types    []ptype
	preds    []pred
	formulas []*formula
	// counts are the counting constraints of C2 that normalize took out
	// of the formulas (count.go); only a normalized problem has them.
	counts []countCons
	// lins are the linear cardinality constraints (count.go): their
	// members are counts with cmp "free".
	lins []linCons
}

// size returns the number of elements of type t for base sizes n.
func (pb *problem) size(t int, n []int64) int64 { return n[pb.types[t].base] - pb.types[t].off }

// fromMLN converts an MLN formula body into a node. vars maps variable
// names to indices (extended with quantified variables as met).
func fromMLN(m *mln.MLN, e mln.Expr, f *formula, vars map[string]int) (*node, error) {
	switch e := e.(type) {
	case *mln.Atom:
		if e.Star {
			return nil, fmt.Errorf("starred atoms (*%s) are not supported; write out the sign combinations", e.Pred)
		}
		pi := m.PredIndex(e.Pred)
		if pi < 0 {
			return nil, fmt.Errorf("unknown predicate %s", e.Pred)
		}
		args := make([]term, len(e.Args))
		for i, a := range e.Args {
			t, err := termOf(a, vars)
			if err != nil {
				return nil, err
			}
			args[i] = t
		}
		return &node{k: nAtom, pred: pi, args: args}, nil
	case *mln.Equal:
		l, err := termOf(e.L, vars)
		if err != nil {
			return nil, err
		}
		r, err := termOf(e.R, vars)
		if err != nil {
			return nil, err
		}
		return &node{k: nEq, args: []term{l, r}}, nil
	case *mln.Not:
		x, err := fromMLN(m, e.X, f, vars)
		if err != nil {
			return nil, err
		}
		return &node{k: nNot, kids: []*node{x}}, nil
	case *mln.And:
		return binNode(m, nAnd, e.L, e.R, f, vars, false)
	case *mln.Or:
		return binNode(m, nOr, e.L, e.R, f, vars, false)
	case *mln.Implies:
		return binNode(m, nOr, e.L, e.R, f, vars, true)
	case *mln.Iff:
		return binNode(m, nIff, e.L, e.R, f, vars, false)
	case *mln.Exists:
		n, err := quantNode(m, nExists, e.Vars, e.Body, f, vars)
		if err != nil || e.Cmp == "" {
			return n, err
		}
		// A count of the true atoms of one predicate over exactly the
		// quantified variables is a cardinality constraint.
		body, bound := n, map[int]bool{}
		for range e.Vars {
			bound[body.qv] = true
			body = body.kids[0]
		}
		if body.k == nAtom && len(body.args) == len(e.Vars) {
			seen := map[int]bool{}
			for _, a := range body.args {
				if a.isVar() && bound[a.v] {
					seen[a.v] = true
				}
			}
			if len(seen) == len(e.Vars) {
				return &node{k: nCard, cmp: e.Cmp, cnt: e.K, kids: []*node{body}}, nil
			}
		}
		if len(e.Vars) != 1 {
			return nil, fmt.Errorf("a counting quantifier over several variables is supported only as a cardinality constraint |P| = k (EXIST%s%d over an atom of P whose arguments are exactly those variables)", e.Cmp, e.K)
		}
		n.cmp, n.cnt = e.Cmp, e.K
		return n, nil
	case *mln.Forall:
		return quantNode(m, nForall, e.Vars, e.Body, f, vars)
	case *mln.Cardinality:
		n := &node{k: nLin, cmp: e.Cmp, cnt: e.K}
		for _, t := range e.Terms {
			pi := m.PredIndex(t.Pred)
			if pi < 0 {
				return nil, fmt.Errorf("unknown predicate %s", t.Pred)
			}
			a := &node{k: nAtom, pred: pi}
			for i, ty := range m.Preds[pi].ArgTypes {
				a.args = append(a.args, term{v: len(f.vars)})
				f.vars = append(f.vars, fvar{name: fmt.Sprintf("%s_%d", t.Pred, i+1), typ: m.TypeIndex(ty)})
			}
			n.kids = append(n.kids, a)
			n.coefs = append(n.coefs, t.Coef)
		}
		return n, nil
	}
	return nil, fmt.Errorf("unsupported expression %v", e)
}

func binNode(m *mln.MLN, k nodeKind, l, r mln.Expr, f *formula, vars map[string]int, negLeft bool) (*node, error) {
	a, err := fromMLN(m, l, f, vars)
	if err != nil {
		return nil, err
	}
	b, err := fromMLN(m, r, f, vars)
	if err != nil {
		return nil, err
	}
	if negLeft {
		a = &node{k: nNot, kids: []*node{a}}
	}
	return &node{k: k, kids: []*node{a, b}}, nil
}

func quantNode(m *mln.MLN, k nodeKind, qs []*mln.Var, body mln.Expr, f *formula, vars map[string]int) (*node, error) {
	// Sibling quantifiers may reuse a name: give each binding its own index
	// and restore the outer mapping afterwards.
	saved := map[string]int{}
	had := map[string]bool{}
	idx := make([]int, len(qs))
	for i, q := range qs {
		if old, ok := vars[q.Name]; ok {
			saved[q.Name], had[q.Name] = old, true
		}
		ti := m.TypeIndex(q.Type)
		if ti < 0 {
			return nil, fmt.Errorf("variable %s has no type", q.Name)
		}
		idx[i] = len(f.vars)
		vars[q.Name] = idx[i]
		f.vars = append(f.vars, fvar{name: q.Name, typ: ti})
	}
	b, err := fromMLN(m, body, f, vars)
	for _, q := range qs {
		if had[q.Name] {
			vars[q.Name] = saved[q.Name]
		} else {
			delete(vars, q.Name)
		}
	}
	if err != nil {
		return nil, err
	}
	for i := len(qs) - 1; i >= 0; i-- {
		b = &node{k: k, qv: idx[i], kids: []*node{b}}
	}
	return b, nil
}

func termOf(t mln.Term, vars map[string]int) (term, error) {
	if t.Func {
		return term{}, fmt.Errorf("function terms (%s) are not supported", t.String())
	}
	if t.IsVar {
		v, ok := vars[t.Name]
		if !ok {
			return term{}, fmt.Errorf("variable %s is not bound", t.Name)
		}
		return term{v: v}, nil
	}
	return term{v: -1, c: t.Name}, nil
}

// mapNode rebuilds n bottom-up, calling f on every node after its children
// have been rebuilt; f returns the replacement.
func mapNode(n *node, f func(*node) *node) *node {
	if len(n.kids) > 0 {
		kids := make([]*node, len(n.kids))
		changed := false
		for i, k := range n.kids {
			kids[i] = mapNode(k, f)
			changed = changed || kids[i] != k
		}
		if changed {
			c := *n
			c.kids = kids
			n = &c
		}
	}
	return f(n)
}

// simplify folds constants.
func simplify(n *node) *node {
	return mapNode(n, func(n *node) *node {
		switch n.k {
		case nNot:
			switch n.kids[0].k {
			case nTrue:
				return falseNode
			case nFalse:
				return trueNode
			case nNot:
				return n.kids[0].kids[0]
			}
		case nAnd, nOr:
			absorb, unit := nFalse, nTrue
			if n.k == nOr {
				absorb, unit = nTrue, nFalse
			}
			kids := n.kids[:0:0]
			for _, k := range n.kids {
				if k.k == absorb {
					return boolNode(absorb == nTrue)
				}
				if k.k != unit {
					kids = append(kids, k)
				}
			}
			switch len(kids) {
			case 0:
				return boolNode(unit == nTrue)
			case 1:
				return kids[0]
			}
			if len(kids) != len(n.kids) {
				return &node{k: n.k, kids: kids}
			}
		case nIff:
			a, b := n.kids[0], n.kids[1]
			switch {
			case a.k == nTrue:
				return b
			case b.k == nTrue:
				return a
			case a.k == nFalse:
				return simplify(&node{k: nNot, kids: []*node{b}})
			case b.k == nFalse:
				return simplify(&node{k: nNot, kids: []*node{a}})
			}
		case nEq:
			l, r := n.args[0], n.args[1]
			if !l.isVar() && !r.isVar() {
				return boolNode(l.c == r.c)
			}
			if l.isVar() && r.isVar() && l.v == r.v {
				return trueNode
			}
		}
		// ∃z true and ∀z false are not folded: they depend on whether z's
		// domain is empty, which only the domain sizes tell; Skolemization
		// gets them right either way.
		return n
	})
}

// isConst reports whether n is true or false.
func isConst(n *node) bool { return n.k == nTrue || n.k == nFalse }

// freeVarsOf returns the variables occurring free in n.
func freeVarsOf(n *node) map[int]bool {
	set := map[int]bool{}
	var walk func(n *node, bound map[int]bool)
	walk = func(n *node, bound map[int]bool) {
		switch n.k {
		case nAtom, nEq:
			for _, a := range n.args {
				if a.isVar() && !bound[a.v] {
					set[a.v] = true
				}
			}
		case nCard, nLin:
			return // closed: binds every variable of its atoms
		case nExists, nForall:
			nb := make(map[int]bool, len(bound)+1)
			for k, v := range bound {
				nb[k] = v
			}
			nb[n.qv] = true
			walk(n.kids[0], nb)
			return
		}
		for _, k := range n.kids {
			walk(k, bound)
		}
	}
	walk(n, map[int]bool{})
	return set
}

// hasCounting reports whether n has a counting quantifier or a
// cardinality constraint.
func hasCounting(n *node) bool {
	if n.k == nExists && n.cmp != "" || n.k == nCard || n.k == nLin {
		return true
	}
	for _, k := range n.kids {
		if hasCounting(k) {
			return true
		}
	}
	return false
}

func hasQuantifier(n *node) bool {
	if n.k == nExists || n.k == nForall || n.k == nCard || n.k == nLin {
		return true
	}
	for _, k := range n.kids {
		if hasQuantifier(k) {
			return true
		}
	}
	return false
}

// predsOf adds the predicates occurring in n to set.
func predsOf(n *node, set map[int]bool) {
	if n.k == nAtom {
		set[n.pred] = true
	}
	for _, k := range n.kids {
		predsOf(k, set)
	}
}
