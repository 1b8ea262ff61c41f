package wfomc

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
)

// A poly is a weight written as a function of the parameters θ: a sum of
// monomials c·exp(Σ_j e_j·θ_j) with integer coefficients c (signs come from
// Skolem predicates, magnitudes from counting assignments) and integer
// exponents e_j (how many groundings of formula j are true). Every cell
// weight and pair weight is one, so the structure of a compiled model never
// depends on the weights: comparing polys is comparing functions of θ.
type poly []mono

type mono struct {
	c float64
	e []int32 // length = number of parameters
}

// polyBuilder accumulates monomials, merging equal exponent vectors.
type polyBuilder struct {
	dim int
	m   map[string]*mono
}

func newPolyBuilder(dim int) *polyBuilder {
	return &polyBuilder{dim: dim, m: map[string]*mono{}}
}

func expKey(e []int32) string {
	var b strings.Builder
	var buf [4]byte
	for _, x := range e {
		binary.LittleEndian.PutUint32(buf[:], uint32(x))
		b.Write(buf[:])
	}
	return b.String()
}

// add adds c·exp(e·θ); e is copied.
func (p *polyBuilder) add(c float64, e []int32) {
	if c == 0 {
		return
	}
	k := expKey(e)
	if m, ok := p.m[k]; ok {
		m.c += c
		return
	}
	p.m[k] = &mono{c: c, e: slices.Clone(e)}
}

// addPoly adds c·q.
func (p *polyBuilder) addPoly(c float64, q poly) {
	for _, m := range q {
		p.add(c*m.c, m.e)
	}
}

func (p *polyBuilder) isZero() bool {
	for _, m := range p.m {
		if m.c != 0 {
			return false
		}
	}
	return true
}

// poly returns the canonical form: monomials sorted by exponent vector,
// zero coefficients dropped.
func (p *polyBuilder) poly() poly {
	out := make(poly, 0, len(p.m))
	for _, m := range p.m {
		if m.c != 0 {
			out = append(out, *m)
		}
	}
	slices.SortFunc(out, func(a, b mono) int { return slices.Compare(a.e, b.e) })
	return out
}

// key is a canonical string for structural comparison.
func (q poly) key() string {
	var b strings.Builder
	var buf [8]byte
	for _, m := range q {
		binary.LittleEndian.PutUint64(buf[:], math.Float64bits(m.c))
		b.Write(buf[:])
		b.WriteString(expKey(m.e))
	}
	return b.String()
}

// isOne reports whether q is the constant 1.
func (q poly) isOne() bool {
	if len(q) != 1 || q[0].c != 1 {
		return false
	}
	for _, x := range q[0].e {
		if x != 0 {
			return false
		}
	}
	return true
}

// mulPoly returns a·b.
func mulPoly(dim int, a, b poly) poly {
	pb := newPolyBuilder(dim)
	e := make([]int32, dim)
	for _, x := range a {
		for _, y := range b {
			for i := range e {
				e[i] = x.e[i] + y.e[i]
			}
			pb.add(x.c*y.c, e)
		}
	}
	return pb.poly()
}

// restrict maps the exponent vectors onto the listed parameters.
func (q poly) restrict(params []int) poly {
	out := make(poly, len(q))
	for i, m := range q {
		e := make([]int32, len(params))
		for j, p := range params {
			e[j] = m.e[p]
		}
		out[i] = mono{c: m.c, e: e}
	}
	return out
}

// eval evaluates q at θ (restricted to the same parameters as q) into x,
// with positive and negative monomials summed apart so that e^θ − 1 near
// θ = 0 keeps its relative precision.
func (q poly) eval(theta []float64, x *lnum, a *acc, tmp *lnum) {
	if len(q) == 0 {
		x.setZero()
		return
	}
	a.reset()
	for _, m := range q {
		// log|c| + Σ e_j·θ_j as a double-double: each product exactly
		// (FMA), the sum compensated, so that a weight of 10^16 does not
		// round log|c| (or the other products) away.
		var l, lo float64
		for j, e := range m.e {
			if e != 0 {
				p := float64(e) * theta[j]
				l, lo = ddAdd(l, lo, p, math.FMA(float64(e), theta[j], -p))
			}
		}
		l, lo = ddAdd(l, lo, math.Log(math.Abs(m.c)), 0)
		tmp.l, tmp.lo = l, lo
		tmp.s = 1
		if m.c < 0 {
			tmp.s = -1
		}
		for j, e := range m.e {
			tmp.g[j] = float64(e)
		}
		a.add(tmp)
	}
	a.result(x)
}
