package mws

import (
	"math"
	"math/bits"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// A problem is a factor graph read as the search sees it: table factors
// (ordinary factors, each with a cost per entry) and count factors, whose
// cost depends only on how many of their literals are true (0, 1, or 2 and
// more). Count factors stand for the structures that single-variable flips
// cannot move through:
//
//   - an "exactly one" table over k binary variables (a mutual-exclusion
//     block "p(x, y!)" of at most MaxArity unknown atoms, as package
//     ground builds it): cost 0 with one true literal, hard otherwise;
//   - a mutual-exclusion star: an auxiliary variable a of k states with
//     pairwise tables [x_i = (a == i)] (a block of more atoms);
//   - a first-true star, package ground's exact-max encoding of a large
//     clause or conjunction: an auxiliary variable a of k+1 states naming
//     the first true literal (0: none), pairwise tables forcing the
//     literals accordingly (those before the first true one false) and
//     a unary table g(a), constant over 1..k:
//     cost g(0) with no true literal, g(1) otherwise.
//
// An auxiliary variable of a star is hidden: a function of its atoms, set
// from them when a world is returned. The "exactly one" count factors whose
// variables are in no other such factor are blocks: the search keeps
// exactly one atom of a block true (Alchemy's and Tuffy's block moves) and
// never breaks them.
type problem struct {
	g  *fg.Graph
	ev fg.Evidence

	nT     int     // table factors: ids 0..nT-1; count factors nT..
	tfg    []int32 // per table factor: its fg factor
	off    []int32 // per factor (table and count): offset into cost/hard
	cost   []float64
	hard   []bool
	stars  []star
	hidden []bool // per variable: an auxiliary variable of a star
	// count factors' literals (CSR over count factor index)
	litStart []int32
	litVar   []int32
	litWant  []int32 // the state that makes the literal true

	// per variable: its factors (CSR); adjK is the stride of the variable
	// in a table factor, the literal's wanted state in a count factor.
	adjStart []int32
	adjF     []int32
	adjK     []int32

	// per factor: its searchable variables (CSR)
	freeStart []int32
	freeVar   []int32

	// blocks: blockOf[v] (-1: none), members CSR
	blockOf    []int32
	blockStart []int32
	blockVar   []int32

	searchable []bool // unobserved, more than one state, not hidden
	inert      []bool // in no factor whose cost is not constant
}

// star is a recognised auxiliary variable: aux takes state[i] when literal
// i (of count factor cf) is the first true one (first-true) or the true
// one (mutex), and none when no literal is true.
type star struct {
	aux   int32
	cf    int32 // count factor index (0-based among count factors)
	state []int32
	none  int32
}

// pairAllowed returns, for the pairwise factor f over aux a and a binary
// x, allowed[s] as a bit set over x's states (bit t: x = t allowed), or
// ok false if f is not such a 0/1 table.
func pairAllowed(g *fg.Graph, f int, a int32) (x int32, allowed []uint8, ok bool) {
	sc := g.Scope(f)
	if len(sc) != 2 {
		return 0, nil, false
	}
	t := g.Table(f)
	pa := 0
	if sc[1] == a {
		pa = 1
	} else if sc[0] != a {
		return 0, nil, false
	}
	x = sc[1-pa]
	if g.Card[x] != 2 || x == a {
		return 0, nil, false
	}
	K := int(g.Card[a])
	allowed = make([]uint8, K)
	st := t.Strides()
	for s := range K {
		for xs := range 2 {
			v := t.Values[s*st[pa]+xs*st[1-pa]]
			switch v {
			case 1:
				allowed[s] |= 1 << xs
			case 0:
			default:
				return 0, nil, false
			}
		}
	}
	return x, allowed, true
}

// newProblem reads g given ev.
func newProblem(g *fg.Graph, ev fg.Evidence) *problem {
	n := g.NumVars()
	p := &problem{g: g, ev: ev, hidden: make([]bool, n)}
	nf := g.NumFactors()
	absorbed := make([]bool, nf)
	edgeF := g.EdgeFactors()
	type countDef struct {
		vars, want []int32
		cost       [3]float64
		hard       [3]bool
	}
	var counts []countDef
	isLit := make([]bool, n) // a literal of a star

	// Stars.
	for a := range n {
		K := int(g.Card[a])
		if ev[a] >= 0 || K < 2 || isLit[a] {
			continue
		}
		var pairs []int
		unary := make([]float64, K)
		for s := range unary {
			unary[s] = 1
		}
		okStar := true
		for _, e := range g.VarEdges[g.VarStart[a]:g.VarStart[a+1]] {
			f := int(edgeF[e])
			switch len(g.Scope(f)) {
			case 1:
				for s, v := range g.Table(f).Values {
					unary[s] *= v
				}
			case 2:
				pairs = append(pairs, f)
			default:
				okStar = false
			}
		}
		if !okStar || len(pairs) < 2 {
			continue
		}
		k := len(pairs)
		lits := make([]int32, k)
		want := make([]int32, k)
		state := make([]int32, k)
		used := make([]bool, K)
		mutex := K == k
		first := K == k+1
		for i, f := range pairs {
			x, al, ok := pairAllowed(g, f, int32(a))
			if !ok || ev[x] >= 0 || p.hidden[x] {
				okStar = false
				break
			}
			lits[i] = x
			if mutex { // exactly one state allows only x = 1; the others only x = 0
				si := -1
				for s, b := range al {
					switch b {
					case 2:
						if si >= 0 {
							mutex = false
						}
						si = s
					case 1:
					default:
						mutex = false
					}
				}
				if si < 0 || used[si] {
					mutex = false
				} else {
					used[si], state[i], want[i] = true, int32(si), 1
				}
			}
			if first { // state 0 allows only fv; s_i only 1-fv; above s_i only fv; below both
				fv := -1
				switch al[0] {
				case 1:
					fv = 0
				case 2:
					fv = 1
				}
				si := -1
				for s := 1; s < K && fv >= 0; s++ {
					if al[s] == 1<<(1-fv) {
						si = s
						break
					}
				}
				if fv < 0 || si < 0 || used[si] {
					first = false
				} else {
					for s := 1; s < K; s++ {
						wantB := uint8(3) // s < si: a later literal is the first true one
						if s > si {
							wantB = 1 << fv
						} else if s == si {
							wantB = 1 << (1 - fv)
						}
						if al[s] != wantB {
							first = false
						}
					}
					used[si], state[i], want[i] = true, int32(si), int32(1-fv)
				}
			}
			if !mutex && !first {
				okStar = false
				break
			}
		}
		if !okStar {
			continue
		}
		// distinct literals
		for i, x := range lits {
			for _, y := range lits[:i] {
				if x == y {
					okStar = false
				}
			}
		}
		if !okStar {
			continue
		}
		// Literals in the order of their states, so that the first true
		// one names the auxiliary variable's state.
		order := make([]int, k)
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(i, j int) int { return int(state[i] - state[j]) })
		var cd countDef
		cd.vars, cd.want = make([]int32, k), make([]int32, k)
		sorted := make([]int32, k)
		for j, i := range order {
			cd.vars[j], cd.want[j], sorted[j] = lits[i], want[i], state[i]
		}
		state = sorted
		if mutex {
			for s := 1; s < K; s++ {
				if unary[s] != unary[0] {
					okStar = false
				}
			}
			if unary[0] == 0 {
				okStar = false // an aux ruled out altogether: leave it to the table search
			}
			cd.hard = [3]bool{true, false, true}
		} else {
			for s := 2; s < K; s++ {
				if unary[s] != unary[1] {
					okStar = false
				}
			}
			m := math.Max(unary[0], unary[1])
			if m <= 0 {
				okStar = false
			}
			for j, u := range []float64{unary[0], unary[1], unary[1]} {
				if u > 0 {
					cd.cost[j] = math.Log(m) - math.Log(u)
				} else {
					cd.hard[j] = true
				}
			}
		}
		if !okStar {
			continue
		}
		st := star{aux: int32(a), cf: int32(len(counts)), state: state, none: 0}
		p.stars = append(p.stars, st)
		counts = append(counts, cd)
		p.hidden[a] = true
		for _, x := range lits {
			isLit[x] = true
		}
		for _, e := range g.VarEdges[g.VarStart[a]:g.VarStart[a+1]] {
			absorbed[edgeF[e]] = true
		}
	}
	// "Exactly one" tables.
	for f := range nf {
		if absorbed[f] {
			continue
		}
		sc := g.Scope(f)
		k := len(sc)
		if k < 2 || k > 20 {
			continue
		}
		t := g.Table(f)
		ok := true
		for _, v := range sc {
			if g.Card[v] != 2 || ev[v] >= 0 || p.hidden[v] {
				ok = false
			}
		}
		for e, v := range t.Values {
			if !ok {
				break
			}
			if (bits.OnesCount(uint(e)) == 1) != (v == 1) || (v != 0 && v != 1) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		absorbed[f] = true
		want := make([]int32, k)
		for i := range want {
			want[i] = 1
		}
		counts = append(counts, countDef{vars: append([]int32(nil), sc...), want: want, hard: [3]bool{true, false, true}})
	}
	// Table factors.
	tabOff := make([]int32, len(g.Tables))
	for t := range g.Tables {
		tb := &g.Tables[t]
		tabOff[t] = int32(len(p.cost))
		m := 0.0
		for _, v := range tb.Values {
			m = max(m, v)
		}
		lm := math.Log(m)
		for _, v := range tb.Values {
			if v > 0 && m > 0 {
				p.cost = append(p.cost, lm-math.Log(v))
				p.hard = append(p.hard, false)
			} else {
				p.cost = append(p.cost, 0)
				p.hard = append(p.hard, true)
			}
		}
	}
	for f := range nf {
		if !absorbed[f] {
			p.tfg = append(p.tfg, int32(f))
			p.off = append(p.off, tabOff[g.FactorTable[f]])
		}
	}
	p.nT = len(p.tfg)
	p.litStart = []int32{0}
	for _, cd := range counts {
		p.off = append(p.off, int32(len(p.cost)))
		p.cost = append(p.cost, cd.cost[:]...)
		p.hard = append(p.hard, cd.hard[:]...)
		p.litVar = append(p.litVar, cd.vars...)
		p.litWant = append(p.litWant, cd.want...)
		p.litStart = append(p.litStart, int32(len(p.litVar)))
	}
	p.searchable = make([]bool, n)
	for v := range n {
		p.searchable[v] = ev[v] < 0 && g.Card[v] > 1 && !p.hidden[v]
	}
	// Adjacency and free lists, over searchable variables only.
	nF := p.numFactors()
	p.adjStart = make([]int32, n+1)
	p.freeStart = make([]int32, nF+1)
	p.eachMember(func(f int, v, k int32) {
		if p.searchable[v] {
			p.adjStart[v+1]++
			p.freeStart[f+1]++
		}
	})
	for v := range n {
		p.adjStart[v+1] += p.adjStart[v]
	}
	for f := range nF {
		p.freeStart[f+1] += p.freeStart[f]
	}
	p.adjF = make([]int32, p.adjStart[n])
	p.adjK = make([]int32, p.adjStart[n])
	p.freeVar = make([]int32, p.freeStart[nF])
	nextA := append([]int32(nil), p.adjStart[:n]...)
	nextF := append([]int32(nil), p.freeStart[:nF]...)
	p.eachMember(func(f int, v, k int32) {
		if p.searchable[v] {
			p.adjF[nextA[v]], p.adjK[nextA[v]] = int32(f), k
			nextA[v]++
			p.freeVar[nextF[f]] = v
			nextF[f]++
		}
	})
	// Blocks: exactly-one count factors over variables in no other block.
	p.blockOf = make([]int32, n)
	for v := range p.blockOf {
		p.blockOf[v] = -1
	}
	p.blockStart = []int32{0}
	for c := range len(counts) {
		f := p.nT + c
		o := p.off[f]
		if !(p.hard[o] && !p.hard[o+1] && p.hard[o+2] && p.cost[o+1] == 0) {
			continue
		}
		vars := p.litVar[p.litStart[c]:p.litStart[c+1]]
		ok := true
		for i, v := range vars {
			if p.blockOf[v] >= 0 || !p.searchable[v] || p.litWant[int(p.litStart[c])+i] != 1 {
				ok = false
			}
		}
		if !ok {
			continue
		}
		b := int32(len(p.blockStart) - 1)
		for _, v := range vars {
			p.blockOf[v] = b
		}
		p.blockVar = append(p.blockVar, vars...)
		p.blockStart = append(p.blockStart, int32(len(p.blockVar)))
	}
	// Inert variables: every factor they are in has a constant cost.
	p.inert = make([]bool, n)
	for v := range n {
		p.inert[v] = true
		for e := p.adjStart[v]; e < p.adjStart[v+1]; e++ {
			if !p.constant(int(p.adjF[e])) {
				p.inert[v] = false
				break
			}
		}
	}
	return p
}

func (p *problem) numFactors() int { return len(p.off) }

// size is the number of entries of factor f's cost slice.
func (p *problem) size(f int) int {
	if f >= p.nT {
		return 3
	}
	return len(p.g.Table(int(p.tfg[f])).Values)
}

// constant says whether factor f's cost is the same everywhere.
func (p *problem) constant(f int) bool {
	o := int(p.off[f])
	for k := 1; k < p.size(f); k++ {
		if p.cost[o+k] != p.cost[o] || p.hard[o+k] != p.hard[o] {
			return false
		}
	}
	return true
}

// eachMember calls fn for every (factor, variable, k) membership: k the
// variable's stride in a table factor, its literal's wanted state in a
// count factor.
func (p *problem) eachMember(fn func(f int, v, k int32)) {
	g := p.g
	for f, gf := range p.tfg {
		t := g.Table(int(gf))
		st := t.Strides()
		for q, v := range g.Scope(int(gf)) {
			fn(f, v, int32(st[q]))
		}
	}
	for c := 0; c+1 < len(p.litStart); c++ {
		for i := p.litStart[c]; i < p.litStart[c+1]; i++ {
			fn(p.nT+c, p.litVar[i], p.litWant[i])
		}
	}
}

// setHidden sets every hidden auxiliary variable of x from its literals.
func (p *problem) setHidden(x []int32) {
	for _, s := range p.stars {
		c := s.cf
		x[s.aux] = s.none
		for i := p.litStart[c]; i < p.litStart[c+1]; i++ {
			if x[p.litVar[i]] == p.litWant[i] {
				x[s.aux] = s.state[i-p.litStart[c]]
				break
			}
		}
	}
}
