package wfomc

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// The atom counting rule (generalised binomial). For a component that
// neither the cell algorithm nor the power rule handles, pick a unary
// predicate P over a type t of size n. Which set of elements satisfies P
// does not matter up to a permutation of t, so
//
//	Z = Σ_{k=0..n} C(n,k) · Z_k,
//
// Z_k the weighted count with P true on a fixed set of k elements and false
// on the other n − k. Z_k is a model of its own: t splits into two new
// types t⁺ (size k) and t⁻ (size n − k); every formula is instantiated for
// each way its free variables of type t can range over t⁺ or t⁻,
// quantifiers over t become a disjunction (conjunction) of one over t⁺ and
// one over t⁻, each predicate with arguments of type t splits into pieces
// by the side of each such argument, and P(x) becomes true on t⁺ and false
// on t⁻. This model no longer mentions P and is compiled recursively (it
// often falls apart into independent parts, and the power rule or the cell
// algorithm applies to each); its structure does not depend on k, so it is
// compiled once, and Evaluate sums its n + 1 evaluations. The expected
// counts come out of the same sum: ∂log Z/∂θ = Σ_k p_k ∂log Z_k/∂θ with
// p_k = C(n,k)·Z_k/Z. The sizes of t⁺ and t⁻ are two new entries of the
// vector of base sizes (ptype.base), set per term.

// Limits of the search for a predicate to count: compiled candidates per
// component of the model (nested attempts included), formulas of one split
// problem, and syntax nodes of one formula's instances in it.
const (
	maxAtomCountTries   = 64
	maxAtomCountFormula = 1024
	maxAtomCountNodes   = 1 << 16
)

// zeroError is an error saying that Z = 0 (the hard formulas have no
// model); the atom counting rule drops such terms.
type zeroError struct{ msg string }

func (e *zeroError) Error() string { return e.msg }

type atomComp struct {
	pb   *problem // the component (for the size of the counted type)
	typ  int      // the counted type
	nb   int      // base index of t⁺ (t⁻ is nb+1)
	lv   *level   // the model with P fixed
	name string   // for messages
}

// atomCounting applies the rule to a component, or returns errNoRule.
func (c *compiler) atomCounting(sub *problem, depth int) (component, error) {
	if depth == 0 {
		c.acTries = 0 // a budget per component of the model
	}
	c.liftOnly++
	defer func() { c.liftOnly-- }()
	for p, pr := range sub.preds {
		if len(pr.types) != 1 || pr.kind != pUser {
			continue
		}
		if c.acTries >= maxAtomCountTries {
			break
		}
		sh, nb, ok := splitOn(c.pl, sub, p)
		if !ok {
			continue
		}
		c.acTries++
		lv, err := c.compileLevel(sh.pb, nil, depth+1)
		if err != nil {
			if pe := (*pairsError)(nil); errors.As(err, &pe) {
				return nil, err // the budget is spent: no other candidate can run
			}
			continue
		}
		lv.sh, lv.parent = sh, sub
		return &atomComp{pb: sub, typ: pr.types[0], nb: nb, lv: lv, name: pr.name}, nil
	}
	return nil, errNoRule
}

// maxAtomCountTerms bounds the terms of one atom counting sum (each an
// evaluation of the model with P fixed).
const maxAtomCountTerms = 10_000_000

// atomChunk is the number of consecutive terms summed by one worker; the
// chunks are merged in order, so results do not depend on the number of
// processors.
const atomChunk = 16

func (a *atomComp) eval(ctx context.Context, theta []float64, n []int64, grad []float64) (float64, float64, error) {
	size := a.pb.size(a.typ, n)
	if size < 0 {
		return 0, 0, fmt.Errorf("domain %s is smaller than its named constants", a.pb.types[a.typ].name)
	}
	if size+1 > maxAtomCountTerms {
		return 0, 0, fmt.Errorf("counting the atoms of %s over %d elements needs %d evaluations; at most %d are supported", a.name, size, size+1, maxAtomCountTerms)
	}
	ensureLogFact(size)
	lf := logFactTable()
	dim := len(grad)
	type chunk struct {
		sum    *acc
		digits float64
		err    error
	}
	nchunks := int(size/atomChunk) + 1
	chunks := make([]chunk, nchunks)
	run := func(i int) {
		ch := &chunks[i]
		ch.sum = newAcc(dim)
		ext := make([]int64, a.nb+2)
		copy(ext, n[:a.nb])
		for k := int64(i) * atomChunk; k < int64(i+1)*atomChunk && k <= size; k++ {
			if err := ctx.Err(); err != nil {
				ch.err = err
				return
			}
			ext[a.nb], ext[a.nb+1] = k, size-k
			x := lnum{s: 1, g: make([]float64, dim)}
			l, d, err := a.lv.eval(ctx, theta, ext, x.g)
			var z *zeroError
			if errors.As(err, &z) {
				continue // no world with P true on exactly k elements
			}
			if err != nil {
				ch.err = err
				return
			}
			x.l, x.lo = twoSum(l, logBinom(lf, size, k))
			ch.sum.add(&x)
			ch.digits = max(ch.digits, d)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), nchunks)
	if workers <= 1 {
		for i := range chunks {
			run(i)
			if chunks[i].err != nil {
				break
			}
		}
	} else {
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					run(i)
				}
			}()
		}
		for i := range chunks {
			if ctx.Err() != nil {
				break // the chunks not handed out stay empty; ctx's error is returned below
			}
			next <- i
		}
		close(next)
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
	}
	sum := newAcc(dim)
	digits := 0.0
	for i := range chunks {
		if chunks[i].err != nil {
			return 0, 0, chunks[i].err
		}
		if chunks[i].sum == nil {
			continue // not run: the loop above stopped at an error
		}
		sum.merge(chunks[i].sum)
		digits = max(digits, chunks[i].digits)
	}
	z := newLnum(dim)
	sum.result(&z)
	if z.s <= 0 {
		return 0, 0, &zeroError{fmt.Sprintf("the hard formulas have no model at these domain sizes (Z = 0, counting the atoms of %s)", a.name)}
	}
	for i, v := range z.g {
		grad[i] += v
	}
	return z.logValue(), digits, nil
}

// splitOn builds the model Z_k of the rule for the unary predicate p of
// sub: the counted type split into t⁺ and t⁻, p replaced by its values.
// nb is the base index of t⁺. ok is false if the problem mentions a
// constant of the counted type (it never does after shattering).
func splitOn(pl *poller, sub *problem, p int) (sh *shatterResult, nb int, ok bool) {
	t := sub.preds[p].types[0]
	for _, ty := range sub.types {
		nb = max(nb, ty.base+1)
	}
	out := &problem{types: append(append([]ptype(nil), sub.types...),
		ptype{name: sub.types[t].name + "[" + sub.preds[p].name + "]", base: nb},
		ptype{name: sub.types[t].name + "[!" + sub.preds[p].name + "]", base: nb + 1})}
	// The size of the result, checked before it is built: each formula is
	// instantiated 2^m times (m free variables of type t), and a quantifier
	// over t doubles its scope.
	var size func(n *node, vars []fvar) int
	size = func(n *node, vars []fvar) int {
		s := 1
		for _, k := range n.kids {
			s += size(k, vars)
		}
		if (n.k == nExists || n.k == nForall) && vars[n.qv].typ == t {
			s = 2*s - 1
		}
		return min(s, 1<<40)
	}
	total := 0
	for _, f := range sub.formulas {
		m := 0
		for _, v := range f.free {
			if f.vars[v].typ == t {
				m++
			}
		}
		if m > 16 {
			return nil, 0, false
		}
		total += 1 << m
		if total > maxAtomCountFormula || (1<<m)*size(f.body, f.vars) > maxAtomCountNodes {
			return nil, 0, false
		}
	}
	tp, tm := len(sub.types), len(sub.types)+1
	s := &splitter{src: sub, out: out, t: t, tp: tp, tm: tm, p: p, ok: true,
		res: &shatterResult{pb: out, pieces: map[string]int{}, used: map[int][]int{}}}
	for pi, pr := range sub.preds {
		if pi != p && pr.kind != pMember {
			s.res.parentPreds = append(s.res.parentPreds, pi)
		}
	}
	for _, f := range sub.formulas {
		pl.poll()
		var tv []int // free variables of type t
		for _, v := range f.free {
			if f.vars[v].typ == t {
				tv = append(tv, v)
			}
		}
		for mask := 0; mask < 1<<len(tv); mask++ {
			vars := append([]fvar(nil), f.vars...)
			for i, v := range tv {
				vars[v].typ = tp
				if mask>>i&1 == 1 {
					vars[v].typ = tm
				}
			}
			body := simplify(s.rewrite(f.body, &vars, nil))
			out.formulas = append(out.formulas, &formula{src: f.src, param: f.param, vars: vars, free: f.free, body: body, text: f.text})
		}
	}
	if !s.ok {
		return nil, 0, false
	}
	s.res.finish()
	return s.res, nb, true
}

type splitter struct {
	src, out  *problem
	t, tp, tm int // the counted type and its two halves
	p         int // the counted predicate
	res       *shatterResult
	ok        bool
}

// rewrite maps the atoms of n to pieces; subst renames quantified
// variables of type t to their copies over t⁺ or t⁻.
func (s *splitter) rewrite(n *node, vars *[]fvar, subst map[int]int) *node {
	mapv := func(a term) term {
		if a.isVar() {
			if v, ok := subst[a.v]; ok {
				return term{v: v}
			}
		}
		return a
	}
	switch n.k {
	case nTrue, nFalse:
		return n
	case nAtom:
		pr := s.src.preds[n.pred]
		args := make([]term, len(n.args))
		pattern := make([]string, len(n.args))
		types := append([]int(nil), pr.types...)
		for i, a := range n.args {
			a = mapv(a)
			args[i] = a
			if pr.types[i] != s.t {
				continue
			}
			if !a.isVar() {
				s.ok = false
				return n
			}
			types[i] = (*vars)[a.v].typ
			pattern[i] = "-"
			if types[i] == s.tp {
				pattern[i] = "+"
			}
		}
		if n.pred == s.p {
			return boolNode(pattern[0] == "+")
		}
		return &node{k: nAtom, pred: s.piece(n.pred, pattern, types), args: args}
	case nEq:
		l, r := mapv(n.args[0]), mapv(n.args[1])
		if l.isVar() && r.isVar() {
			lt, rt := (*vars)[l.v].typ, (*vars)[r.v].typ
			if lt != rt && (lt == s.tp || lt == s.tm) && (rt == s.tp || rt == s.tm) {
				return falseNode // t⁺ and t⁻ are disjoint
			}
		}
		return &node{k: nEq, args: []term{l, r}}
	case nExists, nForall:
		v := n.qv
		if (*vars)[v].typ != s.t {
			return &node{k: n.k, qv: v, kids: []*node{s.rewrite(n.kids[0], vars, subst)}}
		}
		var kids []*node
		for _, half := range []int{s.tp, s.tm} {
			nv := len(*vars)
			fv := (*vars)[v]
			fv.typ = half
			*vars = append(*vars, fv)
			sub2 := make(map[int]int, len(subst)+1)
			for k, x := range subst {
				sub2[k] = x
			}
			sub2[v] = nv
			kids = append(kids, &node{k: n.k, qv: nv, kids: []*node{s.rewrite(n.kids[0], vars, sub2)}})
		}
		op := nOr
		if n.k == nForall {
			op = nAnd
		}
		return &node{k: op, kids: kids}
	}
	kids := make([]*node, len(n.kids))
	for i, k := range n.kids {
		kids[i] = s.rewrite(k, vars, subst)
	}
	c := *n
	c.kids = kids
	return &c
}

// piece returns the predicate of out for parent with the given sides ("+",
// "-", or "" for an argument of another type).
func (s *splitter) piece(parent int, pattern []string, types []int) int {
	k := pieceKey(parent, pattern)
	if i, ok := s.res.pieces[k]; ok {
		return i
	}
	pr := s.src.preds[parent]
	name := pr.name
	for _, x := range pattern {
		if x != "" {
			name += "[" + joinSides(pattern) + "]"
			break
		}
	}
	i := len(s.out.preds)
	s.out.preds = append(s.out.preds, pred{name: name, types: types, kind: pr.kind, parent: parent})
	s.res.pieces[k] = i
	s.res.used[parent] = append(s.res.used[parent], i)
	return i
}

func joinSides(pattern []string) string {
	b := make([]byte, 0, len(pattern))
	for _, x := range pattern {
		if x == "" {
			b = append(b, '_')
		} else {
			b = append(b, x[0])
		}
	}
	return string(b)
}
