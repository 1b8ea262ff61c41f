package gibbs

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// Blocking is a partition of a graph's unobserved variables into blocks
// that blocked Gibbs sampling (Chain.BlockSweep) redraws jointly, each from
// its exact conditional distribution given the rest; it is read-only and
// may be shared by several chains on the same graph and evidence.
type Blocking struct {
	// Blocks lists each block's variables, in increasing order; every
	// unobserved variable is in exactly one block, observed ones in none.
	Blocks [][]int32
	// States[b] is the number of joint states of block b.
	States []int

	blocks []block
}

// block is one block prepared for sampling: its joint states are
// numbered in mixed-radix order, the block's first variable slowest, and
// digit[i][j] is variable i's state in joint state j. The factors touching
// it are grouped by which of its variables they hold, so that a draw adds
// one small table per group to the joint weights.
type block struct {
	vars   []int32
	card   []int32
	digit  [][]int32
	groups []bgroup
	state  int     // joint states
	str    []int   // the Blocking's stride arena (see bfactor)
	outv   []int32 // the Blocking's variable arena (see bfactor)
}

// bgroup is the factors that hold exactly the block variables at positions
// pos (increasing); size is their joint states.
type bgroup struct {
	pos  []int
	size int
	fac  []bfactor
	// direct: size is more than the block's joint states (capped there);
	// the factors are read at each joint state instead of per group state
	direct bool
}

// bfactor is a factor touching a block: its table and, at str[off:off+n]
// of the block, the strides of its nIn block variables (in the group's
// order) and then of its other variables, whose ids are outv[off+nIn:off+n]
// (one arena per Blocking: no allocation per factor).
type bfactor struct {
	table, nIn, n int32
	off           int
	f             int32 // the factor
}

// Work is the number of table reads and joint-state updates of one sweep
// over the blocks of two or more variables (BlockSweep's, or MC-SAT's
// blocked move): per block, each factor touching it read at each joint
// state of its group (or of the block, for a direct group), and each
// group's table added at each joint state of the block.
func (bk *Blocking) Work() int {
	w := 0
	for b := range bk.blocks {
		bl := &bk.blocks[b]
		if len(bl.vars) < 2 {
			continue
		}
		for _, gr := range bl.groups {
			n := gr.size
			if gr.direct {
				n = bl.state
			}
			w += len(gr.fac)*n + bl.state
		}
	}
	return w
}

// MaxTiedStates bounds the legal joint states of a tied unit (see
// NewBlocking).
const MaxTiedStates = 1 << 20

// NewBlocking builds the blocks of g given ev greedily, deterministically.
//
// First the tied units: a factor whose positive entries fall apart into
// parts that no change of one variable joins (an "exactly one" constraint
// of a mutually exclusive predicate, a hard equivalence, the auxiliary
// variable of a large "exactly one") ties its unobserved variables into
// one unit, and units sharing a variable are one. Single-site moves cannot
// cross such a constraint, so a unit is never split between blocks, and
// its joint states are only those that every one of its tied factors
// allows given the evidence (for "exactly one" of k atoms, the k legal
// states, not 2^k): the join of the factors' positive entries. A factor
// with observed variables ties the others when its positive entries at
// the evidence fall apart. A unit is a block of its own even beyond
// maxSize variables and maxStates joint states (as a single variable with
// more states); more than MaxTiedStates legal joint states is an error
// (blocked Gibbs could not cross its constraint). A unit whose
// constraints contradict each other (no legal joint state) is left
// untied: no world is positive, and Start says so.
//
// Then the blocks: the lowest-numbered unobserved variable in no block yet
// seeds a new block with its unit, which then grows, one unit at a time,
// by the unit of the unobserved variable in no block that is most
// strongly coupled to it — coupling is the number of factors the variable
// shares with the block's variables, counted per pair (the lowest-numbered
// on ties) — among those that keep the block within maxSize variables and
// maxStates joint states, until no variable coupled to the block fits. A
// block's joint states are the product of its units' (mixed radix, the
// unit of the lowest variable slowest). A block of one variable may have
// more states than maxStates (its sampling is single-site Gibbs). maxSize 1
// is single-site Gibbs with a systematic scan, except on tied units.
func NewBlocking(g *fg.Graph, ev fg.Evidence, maxSize, maxStates int) (*Blocking, error) {
	return newBlocking(g, ev, maxSize, maxStates, false)
}

// NewClampedBlocking is NewBlocking for a graph whose observed variables
// are clamped at values that change between sweeps (the variables outside
// a ground cluster of lifted blocked Gibbs; ev says only which are
// clamped): a factor ties its unobserved variables when its own positive
// entries fall apart (Tied), and a unit's joint states are those its tied
// factors allow for some value of the clamped variables.
func NewClampedBlocking(g *fg.Graph, ev fg.Evidence, maxSize, maxStates int) (*Blocking, error) {
	return newBlocking(g, ev, maxSize, maxStates, true)
}

func newBlocking(g *fg.Graph, ev fg.Evidence, maxSize, maxStates int, clamped bool) (*Blocking, error) {
	n := g.NumVars()
	if ev != nil && len(ev) != n {
		return nil, fmt.Errorf("gibbs: evidence has %d entries for %d variables", len(ev), n)
	}
	if maxSize < 1 || maxStates < 1 {
		return nil, fmt.Errorf("gibbs: block size and states must be positive, got %d and %d", maxSize, maxStates)
	}
	observed := func(v int32) bool { return ev != nil && ev[v] >= 0 }
	fOf := g.EdgeFactors()
	strides := make([][]int, len(g.Tables))
	for t := range g.Tables {
		strides[t] = g.Tables[t].Strides()
	}
	un, err := tiedUnits(g, ev, clamped)
	if err != nil {
		return nil, err
	}
	in := make([]int32, n) // block of each variable, -1 for none
	for v := range in {
		in[v] = -1
	}
	score := make([]int, n) // coupling to the growing block
	var cand []int32        // variables with a positive score
	bk := &Blocking{}
	var blockUnits [][]int32 // per block, its units (their roots), in order
	for seed := range int32(n) {
		if in[seed] >= 0 || observed(seed) {
			continue
		}
		b := int32(len(bk.Blocks))
		var vars, units []int32
		states := 1
		cand = cand[:0]
		add := func(v int32) {
			for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
				for _, u := range g.Scope(int(fOf[g.VarEdges[e]])) {
					if u == v || in[u] >= 0 || observed(u) {
						continue
					}
					if score[u] == 0 {
						cand = append(cand, u)
					}
					score[u]++
				}
			}
		}
		addUnit := func(r int32) {
			units = append(units, r)
			states *= un.states(g, r)
			for _, v := range un.vars(r) {
				in[v] = b
				vars = append(vars, v)
			}
			for _, v := range un.vars(r) {
				add(v)
			}
		}
		addUnit(un.root[seed])
		for len(vars) < maxSize {
			best := int32(-1)
			for _, u := range cand {
				if in[u] >= 0 {
					continue
				}
				r := un.root[u]
				if len(vars)+len(un.vars(r)) > maxSize || states*un.states(g, r) > maxStates {
					continue
				}
				if best < 0 || score[u] > score[best] || score[u] == score[best] && u < best {
					best = u
				}
			}
			if best < 0 {
				break
			}
			addUnit(un.root[best])
		}
		for _, u := range cand {
			score[u] = 0
		}
		insertionSort(vars)
		insertionSort(units) // a unit's root is its lowest variable
		bk.Blocks = append(bk.Blocks, vars)
		bk.States = append(bk.States, states)
		blockUnits = append(blockUnits, units)
	}
	pos := make([]int, n)
	seen := make([]int, g.NumFactors()) // block+1 that last listed the factor
	digits := map[string][][]int32{}
	type inVar struct{ pos, stride int }
	var ins []inVar
	var key []byte
	// A factor is listed once per block it touches, with its whole scope:
	// Σ_f |f|·min(|f|, 4) bounds the arenas but for factors touching more
	// than four blocks.
	room := 0
	for f := range g.NumFactors() {
		k := int(g.FactorStart[f+1] - g.FactorStart[f])
		room += k * min(k, 4)
	}
	strArena := make([]int, 0, room)
	outArena := make([]int32, 0, room)
	for b, vars := range bk.Blocks {
		bl := block{vars: vars, state: bk.States[b]}
		tiedBlock := false
		for i, v := range vars {
			pos[v] = i
			bl.card = append(bl.card, g.Card[v])
			tiedBlock = tiedBlock || len(un.vars(un.root[v])) > 1
		}
		if tiedBlock {
			// Blocks of the same shape (units with the same legal states
			// at the same positions, as every person's block of a
			// mutually exclusive predicate) share their digit tables.
			tkey := fmt.Sprint(bl.card)
			for _, r := range blockUnits[b] {
				tkey += fmt.Sprint(un.rowsID[r], ":")
				for _, v := range un.vars(r) {
					tkey += fmt.Sprint(pos[v], ",")
				}
			}
			if bl.digit = digits[tkey]; bl.digit == nil {
				bl.digit = un.digits(g, blockUnits[b], pos, len(vars), bl.state)
				digits[tkey] = bl.digit
			}
		} else if ckey := fmt.Sprint(bl.card); digits[ckey] != nil {
			// Blocks with the same cardinalities share their digit tables.
			bl.digit = digits[ckey]
		} else {
			bl.digit = make([][]int32, len(vars))
			rep := bl.state
			for i, k := range bl.card {
				rep /= int(k)
				bl.digit[i] = make([]int32, bl.state)
				for j := range bl.state {
					bl.digit[i][j] = int32(j / rep % int(k))
				}
			}
			digits[ckey] = bl.digit
		}
		group := map[string]int{}
		for _, v := range vars {
			for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
				f := int(fOf[g.VarEdges[e]])
				if seen[f] == b+1 {
					continue
				}
				seen[f] = b + 1
				t := int(g.FactorTable[f])
				stride := strides[t]
				ins = ins[:0]
				for p, u := range g.Scope(f) {
					if in[u] == int32(b) {
						ins = append(ins, inVar{pos[u], stride[p]})
					}
				}
				for i := 1; i < len(ins); i++ { // by position in the block
					for j := i; j > 0 && ins[j].pos < ins[j-1].pos; j-- {
						ins[j], ins[j-1] = ins[j-1], ins[j]
					}
				}
				key = key[:0]
				bf := bfactor{table: int32(t), nIn: int32(len(ins)), n: int32(len(g.Scope(f))), off: len(strArena), f: int32(f)}
				for _, iv := range ins {
					strArena = append(strArena, iv.stride)
					outArena = append(outArena, -1)
					key = append(key, byte(iv.pos), byte(iv.pos>>8), byte(iv.pos>>16), byte(iv.pos>>24))
				}
				for p, u := range g.Scope(f) {
					if in[u] != int32(b) {
						strArena = append(strArena, stride[p])
						outArena = append(outArena, u)
					}
				}
				gi, ok := group[string(key)]
				if !ok {
					gi = len(bl.groups)
					group[string(key)] = gi
					gr := bgroup{size: 1}
					for _, iv := range ins {
						gr.pos = append(gr.pos, iv.pos)
						if gr.size <= bl.state {
							gr.size *= int(bl.card[iv.pos])
						}
					}
					// A group with more joint states than the block (the
					// block holds only a tied unit's legal states) is
					// read at the block's joint states directly.
					gr.direct = gr.size > bl.state
					bl.groups = append(bl.groups, gr)
				}
				bl.groups[gi].fac = append(bl.groups[gi].fac, bf)
			}
		}
		bk.blocks = append(bk.blocks, bl)
	}
	for b := range bk.blocks {
		bk.blocks[b].str, bk.blocks[b].outv = strArena, outArena
	}
	return bk, nil
}

// units is the partition of the unobserved variables into tied units (see
// NewBlocking): root[v] is v's unit's representative, members[r] its
// variables in increasing order (nil: v alone) and rows[r] its legal joint
// states (values of members[r], lexicographic).
type units struct {
	root    []int32
	members map[int32][]int32
	rows    map[int32][][]int32
	rowsID  map[int32]int // equal rows, equal id (−1: a single variable)
	one     []int32
}

func (u *units) vars(r int32) []int32 {
	if m := u.members[r]; m != nil {
		return m
	}
	u.one = append(u.one[:0], r)
	return u.one
}

func (u *units) states(g *fg.Graph, r int32) int {
	if rs, ok := u.rows[r]; ok {
		return len(rs)
	}
	return int(g.Card[r])
}

// digits is the digit table of a block made of units us (in order, the
// first slowest): digit[pos[v]][j] is v's value in joint state j.
func (u *units) digits(g *fg.Graph, us []int32, pos []int, nv, state int) [][]int32 {
	d := make([][]int32, nv)
	for i := range d {
		d[i] = make([]int32, state)
	}
	rep := state
	for _, r := range us {
		k := u.states(g, r)
		rep /= k
		vs := u.vars(r)
		rows := u.rows[r]
		for j := range state {
			s := j / rep % k
			for i, v := range vs {
				if rows != nil {
					d[pos[v]][j] = rows[s][i]
				} else {
					d[pos[v]][j] = int32(s)
				}
			}
		}
	}
	return d
}

// tiedUnits finds the tied units of g's unobserved variables and their
// legal joint states (see NewBlocking; clamped: NewClampedBlocking).
func tiedUnits(g *fg.Graph, ev fg.Evidence, clamped bool) (*units, error) {
	n := g.NumVars()
	observed := func(v int32) bool { return ev != nil && ev[v] >= 0 }
	u := &units{root: make([]int32, n), members: map[int32][]int32{}, rows: map[int32][][]int32{}, rowsID: map[int32]int{}}
	for v := range u.root {
		u.root[v] = int32(v)
	}
	find := func(v int32) int32 {
		for u.root[v] != v {
			u.root[v] = u.root[u.root[v]]
			v = u.root[v]
		}
		return v
	}
	// fix is a factor's scope's evidence (−1 free), or nil: the whole
	// table (clamped variables take any value)
	fixOf := func(f int) []int32 {
		if clamped || ev == nil {
			return nil
		}
		var fix []int32
		for p, v := range g.Scope(f) {
			if observed(v) {
				if fix == nil {
					fix = make([]int32, len(g.Scope(f)))
					for q := range fix {
						fix[q] = -1
					}
				}
				fix[p] = ev[v]
			}
		}
		return fix
	}
	tied := make([]int8, len(g.Tables)) // 0 unknown, 1 tied, 2 not
	tiedAt := map[string]bool{}         // a table at evidence
	var tiedF []int
	var kb []byte
	for f := range g.NumFactors() {
		t := g.FactorTable[f]
		free := 0
		for _, v := range g.Scope(f) {
			if !observed(v) {
				free++
			}
		}
		if free < 2 {
			continue
		}
		if tied[t] == 0 {
			tied[t] = 2
			if hasZero(&g.Tables[t]) {
				tied[t] = 1
			}
		}
		if tied[t] == 2 {
			continue // no zero: nothing to tie
		}
		fix := fixOf(f)
		kb = append(kb[:0], byte(t), byte(t>>8), byte(t>>16), byte(t>>24))
		for _, x := range fix {
			kb = append(kb, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
		}
		isTied, ok := tiedAt[string(kb)]
		if !ok {
			isTied = tiedFix(&g.Tables[t], fix)
			tiedAt[string(kb)] = isTied
		}
		if !isTied {
			continue
		}
		a := int32(-1)
		for _, v := range g.Scope(f) {
			if observed(v) {
				continue
			}
			if a < 0 {
				a = find(v)
			} else if b := find(v); b != a {
				if b < a {
					a, b = b, a
				}
				u.root[b] = a
			}
		}
		tiedF = append(tiedF, f)
	}
	if len(tiedF) == 0 {
		return u, nil
	}
	for v := range int32(n) {
		u.root[v] = find(v)
		if r := u.root[v]; r != v {
			if u.members[r] == nil {
				u.members[r] = []int32{r}
			}
			u.members[r] = append(u.members[r], v)
		}
	}
	facs := map[int32][]int{}
	for _, f := range tiedF {
		for _, v := range g.Scope(f) {
			if !observed(v) {
				facs[u.root[v]] = append(facs[u.root[v]], f)
				break
			}
		}
	}
	ids := map[string]int{}
	var byID [][][]int32
	for r, vs := range u.members {
		rows, err := legalStates(g, fixOf, vs, facs[r], MaxTiedStates)
		if err != nil {
			return nil, err
		}
		if len(rows) == 0 {
			// The constraints contradict each other: no world is
			// positive, and gibbs.Start says so; the unit is left untied.
			for _, v := range vs {
				u.root[v] = v
			}
			delete(u.members, r)
			continue
		}
		var kb []byte
		for _, row := range rows {
			for _, x := range row {
				kb = append(kb, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
			}
			kb = append(kb, 0xff)
		}
		id, ok := ids[string(kb)]
		if !ok {
			id = len(ids)
			ids[string(kb)] = id
			u.rows[r] = rows
		} else {
			u.rows[r] = byID[id]
		}
		if !ok {
			byID = append(byID, rows)
		}
		u.rowsID[r] = id
	}
	return u, nil
}

func hasZero(t *fg.Table) bool {
	for _, v := range t.Values {
		if v == 0 {
			return true
		}
	}
	return false
}

// Tied reports whether table t's positive entries fall apart into parts
// that no change of one position joins ("exactly one", an equivalence):
// a factor with such a table ties its variables, which only a joint move
// of all of them can take across (see NewBlocking).
func Tied(t *fg.Table) bool { return tiedFix(t, nil) }

// tiedFix is Tied of the table restricted to the positions fix gives a
// value (fix[p] ≥ 0; nil: none), the others changing.
func tiedFix(t *fg.Table, fix []int32) bool {
	st := t.Strides()
	ok := func(j int) bool {
		if t.Values[j] <= 0 {
			return false
		}
		for p, x := range fix {
			if x >= 0 && int32(j/st[p]%int(t.Dims[p])) != x {
				return false
			}
		}
		return true
	}
	start, n := -1, 0
	for j := range t.Values {
		if ok(j) {
			n++
			if start < 0 {
				start = j
			}
		}
	}
	if n < 2 {
		return false
	}
	seen := make([]bool, len(t.Values))
	seen[start] = true
	queue := []int{start}
	reached := 1
	for len(queue) > 0 {
		j := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for p, d := range t.Dims {
			if fix != nil && fix[p] >= 0 {
				continue
			}
			s := (j / st[p]) % int(d)
			for s2 := range int(d) {
				k := j + (s2-s)*st[p]
				if s2 != s && !seen[k] && ok(k) {
					seen[k] = true
					reached++
					queue = append(queue, k)
				}
			}
		}
	}
	return reached < n
}

// legalStates joins the positive entries of the tied factors facs at the
// evidence fixOf(f) gives (nil: every value of the observed variables, so
// the result holds for any clamping), projected onto their unobserved
// variables, over the unit's variables vs: the unit's legal joint states,
// lexicographic in vs. More than maxStates of them (or of a partial join)
// is an error.
func legalStates(g *fg.Graph, fixOf func(f int) []int32, vs []int32, facs []int, maxStates int) ([][]int32, error) {
	col := map[int32]int{}
	for i, v := range vs {
		col[v] = i
	}
	assigned := make([]bool, len(vs))
	rows := [][]int32{make([]int32, len(vs))}
	done := make([]bool, len(facs))
	for range facs {
		// the next factor: the one sharing most assigned variables
		best, bs := -1, -1
		for k, f := range facs {
			if done[k] {
				continue
			}
			s := 0
			for _, v := range g.Scope(f) {
				if c, in := col[v]; in && assigned[c] {
					s++
				}
			}
			if s > bs {
				best, bs = k, s
			}
		}
		done[best] = true
		f := facs[best]
		tb := g.Table(f)
		st := tb.Strides()
		scope := g.Scope(f)
		var cols []int // the factor's unobserved variables' columns
		var at []int   // their positions in the scope
		for p, v := range scope {
			if c, in := col[v]; in {
				cols = append(cols, c)
				at = append(at, p)
			}
		}
		fix := fixOf(f)
		// the projected positive tuples, indexed by their values on the
		// columns already assigned
		index := map[string][][]int32{}
		seenT := map[string]bool{}
		var kb []byte
	entries:
		for j, val := range tb.Values {
			if val <= 0 {
				continue
			}
			for p, x := range fix {
				if x >= 0 && int32(j/st[p]%int(tb.Dims[p])) != x {
					continue entries
				}
			}
			tup := make([]int32, len(at))
			for i, p := range at {
				tup[i] = int32(j / st[p] % int(tb.Dims[p]))
			}
			kb = kb[:0]
			for _, s := range tup {
				kb = append(kb, byte(s), byte(s>>8), byte(s>>16), byte(s>>24))
			}
			if seenT[string(kb)] {
				continue
			}
			seenT[string(kb)] = true
			kb = kb[:0]
			for i, c := range cols {
				if assigned[c] {
					kb = append(kb, byte(tup[i]), byte(tup[i]>>8), byte(tup[i]>>16), byte(tup[i]>>24))
				}
			}
			index[string(kb)] = append(index[string(kb)], tup)
		}
		var next [][]int32
		for _, row := range rows {
			kb = kb[:0]
			for _, c := range cols {
				if assigned[c] {
					kb = append(kb, byte(row[c]), byte(row[c]>>8), byte(row[c]>>16), byte(row[c]>>24))
				}
			}
			for _, tup := range index[string(kb)] {
				nr := append([]int32(nil), row...)
				for i, c := range cols {
					nr[c] = tup[i]
				}
				next = append(next, nr)
			}
			if len(next) > maxStates {
				return nil, fmt.Errorf("gibbs: variables %v are tied by constraints that single changes cannot cross (\"exactly one\", hard equivalences) and have more than %d joint states: blocked Gibbs cannot sample them; use MC-SAT", vs, maxStates)
			}
		}
		for _, c := range cols {
			assigned[c] = true
		}
		rows = next
	}
	slices.SortFunc(rows, slices.Compare[[]int32])
	return rows, nil
}

func insertionSort(a []int32) {
	for i := 1; i < len(a); i++ {
		for j := i; j > 0 && a[j] < a[j-1]; j-- {
			a[j], a[j-1] = a[j-1], a[j]
		}
	}
}

// BlockSweep runs one sweep of blocked Gibbs sampling with the blocks of
// bk (made for the Chain's graph and evidence): every block in order is
// redrawn jointly from its exact conditional distribution given the other
// variables, P(x_B | x₋B) ∝ Π_f φ_f(x_B, x₋B) over the factors touching
// B, by enumerating the block's joint states (only the legal ones of a tied
// unit, see NewBlocking; those some factor makes zero get probability 0) and taking the state at which one rng.Float64(),
// scaled by the total, falls among the cumulative weights (joint states in
// mixed-radix order, the block's first variable slowest). Observed variables
// keep their evidence state. With cond set, it writes there each
// variable's marginal under its block's conditional distribution at the
// moment the block is drawn (for an observed variable, its evidence state
// with probability 1): the Rao-Blackwellised terms, as Sweep writes the
// single-site ones.
func (ch *Chain) BlockSweep(rng *rand.Rand, bk *Blocking, cond []float64) {
	c := ch.c
	if cond != nil {
		for v := range c.x {
			if c.observed(int32(v)) {
				p := cond[ch.off[v]:ch.off[v+1]]
				clear(p)
				p[c.ev[v]] = 1
			}
		}
	}
	for v := range c.x {
		if c.observed(int32(v)) {
			c.x[v] = c.ev[v]
		}
	}
	for b := range bk.blocks {
		ch.drawBlock(rng, &bk.blocks[b], cond)
	}
}

// drawBlock redraws one block (see BlockSweep): per group of factors, the
// sum of their log entries over the group's joint states given the
// variables outside the block, added to every joint state of the block.
func (ch *Chain) drawBlock(rng *rand.Rand, bl *block, cond []float64) {
	ch.drawBlockAs(rng, bl, cond, false)
}

// drawBlockAs is drawBlock, or with sat the block move of an MC-SAT step
// (Chain.MCSAT): the block's joint states weighted by the unit factors
// only, the coupling factors read as their slice indicators (0 where the
// entry is at least the factor's threshold, −Inf below), the new states
// set by moves (the running state kept).
func (ch *Chain) drawBlockAs(rng *rand.Rand, bl *block, cond []float64, sat bool) {
	c := ch.c
	ns := bl.state
	if cap(ch.bw) < ns {
		ch.bw = make([]float64, ns)
	}
	w := ch.bw[:ns]
	clear(w)
	for gi := range bl.groups {
		gr := &bl.groups[gi]
		if gr.direct {
			for fi := range gr.fac {
				bf := &gr.fac[fi]
				lt := ch.blockLog(bf, sat)
				in := bl.str[bf.off : bf.off+int(bf.nIn)]
				base := 0
				for i := bf.off + int(bf.nIn); i < bf.off+int(bf.n); i++ {
					base += bl.str[i] * int(c.x[bl.outv[i]])
				}
				for j := range w {
					idx := base
					for i, q := range gr.pos {
						idx += in[i] * int(bl.digit[q][j])
					}
					w[j] += lt[idx]
				}
			}
			continue
		}
		if cap(ch.bsmall) < gr.size {
			ch.bsmall = make([]float64, gr.size)
		}
		small := ch.bsmall[:gr.size]
		clear(small)
		if cap(ch.bs) < len(gr.pos) {
			ch.bs = make([]int32, len(gr.pos))
		}
		s := ch.bs[:len(gr.pos)]
		for fi := range gr.fac {
			bf := &gr.fac[fi]
			lt := ch.blockLog(bf, sat)
			in := bl.str[bf.off : bf.off+int(bf.nIn)]
			idx := 0
			for i := bf.off + int(bf.nIn); i < bf.off+int(bf.n); i++ {
				idx += bl.str[i] * int(c.x[bl.outv[i]])
			}
			clear(s)
			for k := range small {
				small[k] += lt[idx] // −Inf stays −Inf
				for i := len(s) - 1; i >= 0; i-- {
					s[i]++
					idx += in[i]
					if s[i] < bl.card[gr.pos[i]] {
						break
					}
					idx -= int(s[i]) * in[i]
					s[i] = 0
				}
			}
		}
		if len(gr.pos) == 1 {
			d := bl.digit[gr.pos[0]]
			for j := range w {
				w[j] += small[d[j]]
			}
			continue
		}
		for j := range w {
			k := 0
			for _, q := range gr.pos {
				k = k*int(bl.card[q]) + int(bl.digit[q][j])
			}
			w[j] += small[k]
		}
	}
	top := math.Inf(-1)
	for _, l := range w {
		top = max(top, l)
	}
	total := 0.0
	for j, l := range w {
		if math.IsInf(l, -1) {
			w[j] = 0
		} else {
			w[j] = math.Exp(l - top)
			total += w[j]
		}
	}
	r := rng.Float64() * total
	pick := -1
	for j, p := range w {
		if p > 0 {
			pick = j
			if r < p {
				break
			}
			r -= p
		}
	}
	if cond != nil {
		for i, v := range bl.vars {
			p := cond[ch.off[v]:ch.off[v+1]]
			clear(p)
			if pick < 0 {
				p[c.x[v]] = 1
				continue
			}
			d := bl.digit[i]
			for j, pj := range w {
				p[d[j]] += pj
			}
			for s := range p {
				p[s] /= total
			}
		}
	}
	if pick < 0 { // no positive state: the world was not positive; keep it
		return
	}
	for i, v := range bl.vars {
		if sat {
			ch.move(v, bl.digit[i][pick], true)
		} else {
			c.x[v] = bl.digit[i][pick]
		}
	}
}

// blockLog returns the log table a block draw reads for factor bf: its
// log entries, or in an MC-SAT step (sat) for a coupling factor its slice
// indicator, in a scratch table (0 at the entries at least the factor's
// threshold, −Inf below; all 0 when the threshold excludes nothing).
func (ch *Chain) blockLog(bf *bfactor, sat bool) []float64 {
	c := ch.c
	if !sat || !ch.coupling[bf.f] {
		return c.logT[bf.table]
	}
	vals := c.g.Tables[bf.table].Values
	if cap(ch.ind) < len(vals) {
		ch.ind = make([]float64, len(vals))
	}
	ind := ch.ind[:len(vals)]
	on := ch.threshold(bf.f)
	for j, v := range vals {
		ind[j] = 0
		if on && v < ch.thr[bf.f] {
			ind[j] = math.Inf(-1)
		}
	}
	return ind
}
