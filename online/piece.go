package online

import (
	"math"
	"math/rand/v2"
	"slices"
)

// Pieces is a set of pieces: each a list of ground clauses forming a tree
// (its first clause the root), stored flat.
type Pieces struct {
	At      []int32 // piece i is Clauses[At[i]:At[i+1]]
	Clauses []int32
}

// Len returns the number of pieces.
func (p *Pieces) Len() int { return len(p.At) - 1 }

// Piece returns the ground clauses of piece i; the slice aliases internal
// storage.
func (p *Pieces) Piece(i int) []int32 { return p.Clauses[p.At[i]:p.At[i+1]] }

func (p *Pieces) add(cls []int32) {
	if p.At == nil {
		p.At = []int32{0}
	}
	p.Clauses = append(p.Clauses, cls...)
	p.At = append(p.At, int32(len(p.Clauses)))
}

// FactorPieces returns one piece per ground clause of a soft formula
// (depth-0 pieces: a single ground factor with its evidence). A piece rooted
// at a hard clause would carry no gradient, so hard clauses root no piece,
// here or in the other piece makers; they enter pieces grown from soft ones.
func FactorPieces(md *Model) *Pieces {
	p := &Pieces{At: []int32{0}}
	for c := 0; c < md.NumClauses(); c++ {
		if md.clauseHard(c) {
			continue
		}
		p.add([]int32{int32(c)})
	}
	return p
}

// NeighbourhoodPieces returns one piece per soft ground clause: the clause and
// every ground clause within depth steps of it in the clause graph (two
// clauses adjacent when they share an atom), in breadth-first order (Fig. 9c
// of the journal paper). Depth 0 gives the factor pieces. Unlike tree pieces
// these may contain cycles, so BP on them is approximate.
func NeighbourhoodPieces(md *Model, depth int) *Pieces {
	p := &Pieces{At: []int32{0}}
	dist := make([]int32, md.NumClauses())
	for i := range dist {
		dist[i] = -1
	}
	var cls, nb []int32
	for c := 0; c < md.NumClauses(); c++ {
		if md.clauseHard(c) {
			continue
		}
		cls = append(cls[:0], int32(c))
		dist[c] = 0
		for i := 0; i < len(cls); i++ {
			if int(dist[cls[i]]) >= depth {
				continue
			}
			nb = md.neighbours(cls[i], nb)
			for _, d := range nb {
				if dist[d] < 0 {
					dist[d] = dist[cls[i]] + 1
					cls = append(cls, d)
				}
			}
		}
		p.add(cls)
		for _, d := range cls {
			dist[d] = -1
		}
	}
	return p
}

// WholePiece returns the whole mega-example as one piece (all ground clauses;
// it need not be a tree): the batch model of SCG and L-BFGS.
func WholePiece(md *Model) *Pieces {
	p := &Pieces{At: []int32{0}}
	all := make([]int32, md.NumClauses())
	for i := range all {
		all[i] = int32(i)
	}
	p.add(all)
	return p
}

// patClause is one clause of a variabilised tree pattern.
type patClause struct {
	form   int
	parent int   // index in the pattern, -1 for the root
	vars   []int // pattern variable of each free variable of the formula
}

// Pattern is a variabilised tree of clauses grown from one formula.
type Pattern struct {
	cls   []patClause
	nvars int
}

// Size returns the number of clauses of the pattern.
func (pt *Pattern) Size() int { return len(pt.cls) }

// treeState tracks a growing tree of ground clauses.
type treeState struct {
	md    *Model
	cls   []int32
	atoms map[int32]bool
}

func (ts *treeState) reset() {
	ts.cls = ts.cls[:0]
	clear(ts.atoms)
}

func (ts *treeState) add(c int32) {
	ts.cls = append(ts.cls, c)
	for _, a := range ts.md.ClauseAtoms(int(c)) {
		ts.atoms[a] = true
	}
}

// fits reports whether c can join the tree without closing a cycle: it is
// not in the tree and shares exactly one atom with it.
func (ts *treeState) fits(c int32) bool {
	if slices.Contains(ts.cls, c) {
		return false
	}
	shared := 0
	for _, a := range ts.md.ClauseAtoms(int(c)) {
		if ts.atoms[a] {
			shared++
		}
	}
	return shared == 1
}

// neighbours returns the ground clauses sharing an atom with c (not c),
// deduplicated, in increasing order.
func (md *Model) neighbours(c int32, buf []int32) []int32 {
	buf = buf[:0]
	for _, a := range md.ClauseAtoms(int(c)) {
		for _, d := range md.AtomClauses(a) {
			if d != c {
				buf = append(buf, d)
			}
		}
	}
	slices.Sort(buf)
	return slices.Compact(buf)
}

// FindPatterns is the pattern-finding half of RelTreeFinding (Algorithm 5):
// for every soft formula with ground clauses, a random ground clause grows a tree
// by breadth-first random walk: a neighbour (a ground clause sharing an atom)
// is kept when a uniform draw is at most t^|tree| and it closes no cycle,
// otherwise it and its branch are skipped; the walk stops below depth d.
// The tree is variabilised: the root's free variables become pattern
// variables 0..n-1, and every other constant becomes a pattern variable
// (one per type and constant). Hard formulas and formulas without ground
// clauses get nil.
func FindPatterns(md *Model, depth int, t float64, rng *rand.Rand) []*Pattern {
	pats := make([]*Pattern, md.NumFormulas())
	ts := &treeState{md: md, atoms: map[int32]bool{}}
	var nb []int32
	for fi := range pats {
		if len(md.byForm[fi]) == 0 || md.forms[fi].hard {
			continue
		}
		root := md.byForm[fi][rng.IntN(len(md.byForm[fi]))]
		ts.reset()
		ts.add(root)
		parent := []int{-1}
		type item struct{ idx, depth int }
		queue := []item{{0, 0}}
		for len(queue) > 0 {
			it := queue[0]
			queue = queue[1:]
			if it.depth+1 > depth {
				continue
			}
			nb = md.neighbours(ts.cls[it.idx], nb)
			order := rng.Perm(len(nb))
			for _, k := range order {
				c := nb[k]
				p := rng.Float64()
				if p > math.Pow(t, float64(len(ts.cls))) || !ts.fits(c) {
					continue
				}
				ts.add(c)
				parent = append(parent, it.idx)
				queue = append(queue, item{len(ts.cls) - 1, it.depth + 1})
			}
		}
		pats[fi] = variabilise(md, ts.cls, parent)
	}
	return pats
}

func variabilise(md *Model, cls []int32, parent []int) *Pattern {
	pt := &Pattern{}
	type key struct{ typ, c int }
	ids := map[key]int{}
	rf := &md.forms[md.clForm[cls[0]]]
	rb := md.clauseBind(int(cls[0]))
	for v := range rf.f.NumVars() {
		k := key{rf.f.VarType(v), int(rb[v])}
		if _, ok := ids[k]; !ok {
			ids[k] = v
		}
	}
	pt.nvars = rf.f.NumVars()
	for j, c := range cls {
		f := int(md.clForm[c])
		cf := &md.forms[f]
		b := md.clauseBind(int(c))
		pc := patClause{form: f, parent: parent[j], vars: make([]int, cf.f.NumVars())}
		for v := range cf.f.NumVars() {
			if j == 0 {
				pc.vars[v] = v
				continue
			}
			k := key{cf.f.VarType(v), int(b[v])}
			id, ok := ids[k]
			if !ok {
				id = pt.nvars
				pt.nvars++
				ids[k] = id
			}
			pc.vars[v] = id
		}
		pt.cls = append(pt.cls, pc)
	}
	return pt
}

// TreePieces is RelTreeFinding (Algorithm 5): patterns from FindPatterns,
// then one piece per soft ground clause g, the pattern of g's formula applied to
// g. Pattern clauses are instantiated in the order they were grown, each
// among the neighbours of its instantiated parent that agree with the
// substitution so far and keep the piece a tree, at random when several do;
// a clause with no such instance is dropped with its subtree, so a piece has
// as much of the pattern as applies, at least the root.
func TreePieces(md *Model, depth int, t float64, rng *rand.Rand) *Pieces {
	pats := FindPatterns(md, depth, t, rng)
	p := &Pieces{At: []int32{0}}
	ts := &treeState{md: md, atoms: map[int32]bool{}}
	var nb, cand []int32
	var sub []int
	var inst []int32 // pattern clause → ground clause, -1 if dropped
	for c := 0; c < md.NumClauses(); c++ {
		if md.clauseHard(c) {
			continue
		}
		pt := pats[md.clForm[c]]
		ts.reset()
		ts.add(int32(c))
		if pt == nil || len(pt.cls) == 1 {
			p.add(ts.cls)
			continue
		}
		sub = sub[:0]
		for range pt.nvars {
			sub = append(sub, -1)
		}
		for v, x := range md.clauseBind(c) {
			sub[v] = int(x)
		}
		inst = append(inst[:0], int32(c))
		for j := 1; j < len(pt.cls); j++ {
			pc := &pt.cls[j]
			par := inst[pc.parent]
			if par < 0 {
				inst = append(inst, -1)
				continue
			}
			cand = cand[:0]
			nb = md.neighbours(par, nb)
			for _, d := range nb {
				if int(md.clForm[d]) != pc.form || !ts.fits(d) {
					continue
				}
				ok := true
				for v, x := range md.clauseBind(int(d)) {
					if s := sub[pc.vars[v]]; s >= 0 && s != int(x) {
						ok = false
						break
					}
				}
				if ok {
					cand = append(cand, d)
				}
			}
			if len(cand) == 0 {
				inst = append(inst, -1)
				continue
			}
			d := cand[rng.IntN(len(cand))]
			for v, x := range md.clauseBind(int(d)) {
				sub[pc.vars[v]] = int(x)
			}
			ts.add(d)
			inst = append(inst, d)
		}
		p.add(ts.cls)
	}
	return p
}
