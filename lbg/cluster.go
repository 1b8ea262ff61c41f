package lbg

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/gibbs"
)

// Cluster is a vertex of the Gibbs cluster graph: first-order atoms
// (predicates) whose ground atoms are drawn jointly from their conditional
// distribution given the rest.
type Cluster struct {
	Preds []int    // indices into MLN.Preds
	Names []string // their names
	// Lifted says the cluster is drawn by the lifted rules (one
	// first-order atom whose groundings are conditionally independent given
	// the count messages, or two separated by a variable, see the package
	// doc); otherwise by ground blocked Gibbs on its atoms.
	Lifted bool
	// Why says why a cluster is ground.
	Why string
	// Time and Space are the schematic cost of one draw (Algorithm 2's
	// T and S): for a lifted cluster the work and largest table of the
	// count messages' elimination plus one pass over its atoms; for a
	// ground one its ground formulas times the joint states per variable
	// of a block.
	Time, Space float64

	plans []plan // lifted: per formula mentioning the predicate
	multi *multi // lifted cluster of several predicates
	// ground: the unknown atoms, the grounding's variables outside the
	// cluster clamped (0) and the blocks
	atoms []int
	ev    fg.Evidence
	bk    *gibbs.Blocking
}

// Moves lists the groups of ground atoms (state indices) that one draw
// of a cluster can change jointly: all unknown atoms of a lifted cluster,
// each block of a ground cluster (atoms without a variable in the
// grounding change alone).
func (md *Model) Moves() [][]int {
	var out [][]int
	for _, c := range md.Clusters {
		if c.Lifted {
			var g []int
			for _, p := range c.Preds {
				q := &md.preds[p]
				for a := q.off; a < q.off+q.size; a++ {
					if md.ev[a] < 0 {
						g = append(g, a)
					}
				}
			}
			out = append(out, g)
			continue
		}
		atomOf := map[int32]int{}
		for _, a := range c.atoms {
			if v := md.varOf[a]; v >= 0 {
				atomOf[v] = a
			}
		}
		for _, b := range c.bk.Blocks {
			var g []int
			for _, v := range b {
				if a, ok := atomOf[v]; ok {
					g = append(g, a)
				}
			}
			out = append(out, g)
		}
	}
	return out
}

// mergeTied merges the clusters that a factor of the grounding ties (its
// positive entries not connected by changing one atom, gibbs.Tied: a hard
// P(x) <=> Q(x) across {P} and {Q}): drawn apart, each given the other,
// neither could ever change. The merged cluster is lifted when a lifted
// rule draws it jointly, otherwise ground, and its Why says it was merged.
func (md *Model) mergeTied() {
	if md.hasAux {
		return // one ground cluster already
	}
	g := md.gr.Graph
	of := make([]int, len(md.preds)) // cluster of each predicate
	for ci, c := range md.Clusters {
		for _, p := range c.Preds {
			of[p] = ci
		}
	}
	root := make([]int, len(md.Clusters))
	for i := range root {
		root[i] = i
	}
	find := func(i int) int {
		for root[i] != i {
			i = root[i]
		}
		return i
	}
	atomPred := make([]int, g.NumVars())
	for v := range atomPred {
		atomPred[v] = -1
		if pi, _, ok := md.gr.Atom(int32(v)); ok {
			atomPred[v] = pi
		}
	}
	tied := map[int32]bool{}
	merged := false
	for f := range g.NumFactors() {
		t := g.FactorTable[f]
		isTied, ok := tied[t]
		if !ok {
			isTied = gibbs.Tied(&g.Tables[t])
			tied[t] = isTied
		}
		if !isTied {
			continue
		}
		first := -1
		for _, v := range g.Scope(f) {
			if atomPred[v] < 0 {
				continue
			}
			c := find(of[atomPred[v]])
			if first < 0 {
				first = c
			} else if c != first {
				root[max(c, first)] = min(c, first)
				first = min(c, first)
				merged = true
			}
		}
	}
	if !merged {
		return
	}
	var G []*Cluster
	at := map[int]*Cluster{}
	parts := map[int][]string{}
	for ci, c := range md.Clusters {
		r := find(ci)
		parts[r] = append(parts[r], "{"+strings.Join(c.Names, ",")+"}")
		if m, ok := at[r]; ok {
			m.Preds = append(m.Preds, c.Preds...)
			continue
		}
		m := &Cluster{Preds: slices.Clone(c.Preds)}
		at[r] = m
		G = append(G, m)
	}
	for r, m := range at {
		if len(parts[r]) == 1 {
			*m = *md.Clusters[r]
			continue
		}
		slices.Sort(m.Preds)
		for _, p := range m.Preds {
			m.Names = append(m.Names, md.preds[p].name)
		}
		md.cost(m)
		if !m.Lifted {
			m.Why = "merged " + strings.Join(parts[r], ", ") + ", which a hard constraint ties (no change of one atom crosses it); " + m.Why
		}
	}
	md.Clusters = G
}

// prepareGround fills the ground clusters' atoms, clamps and blocks.
func (md *Model) prepareGround() error {
	g := md.gr.Graph
	for _, c := range md.Clusters {
		if c.Lifted {
			continue
		}
		in := make([]bool, g.NumVars())
		c.atoms = nil
		for _, p := range c.Preds {
			q := &md.preds[p]
			for a := q.off; a < q.off+q.size; a++ {
				if md.ev[a] < 0 {
					c.atoms = append(c.atoms, a)
					if v := md.varOf[a]; v >= 0 {
						in[v] = true
					}
				}
			}
		}
		c.ev = make(fg.Evidence, g.NumVars())
		for v := range in {
			if _, _, ok := md.gr.Atom(int32(v)); !ok && md.hasAux {
				in[v] = true
			}
			if !in[v] {
				c.ev[v] = 0
			} else {
				c.ev[v] = -1
			}
		}
		var err error
		if c.bk, err = gibbs.NewClampedBlocking(g, c.ev, md.opt.BlockSize, md.opt.BlockStates); err != nil {
			return err
		}
	}
	return nil
}

// String writes the cluster as "{R,S} ground (why)" or "{T} lifted".
func (c *Cluster) String() string {
	s := "{" + strings.Join(c.Names, ",") + "}"
	if c.Lifted {
		return s + " lifted"
	}
	return s + " ground (" + c.Why + ")"
}

// liftable says whether predicate p alone is a lifted cluster, or why not.
func (md *Model) liftable(p int) string {
	q := &md.preds[p]
	if q.decl.MutexArg >= 0 {
		return q.name + " is mutually exclusive (!)"
	}
	for _, j := range q.forms {
		f := &md.forms[j]
		if f.why != "" {
			return fmt.Sprintf("formula %d has %s", j, f.why)
		}
		n := 0
		for _, o := range f.occs {
			if o.pred == p {
				n++
			}
		}
		if n > 1 {
			return fmt.Sprintf("%s occurs %d times in formula %d (a self-join: its groundings are not independent)", q.name, n, j)
		}
	}
	return ""
}

// cost sets a cluster's Lifted, Why, plans, Time and Space.
func (md *Model) cost(c *Cluster) {
	c.Lifted, c.Why, c.plans, c.multi = false, "", nil, nil
	if len(c.Preds) > 1 {
		var m *multi
		if m, c.Why = md.multiRule(c); m != nil {
			c.Lifted, c.multi = true, m
			md.costMulti(c, m)
			return
		}
	}
	if len(c.Preds) == 1 {
		p := c.Preds[0]
		c.Why = md.liftable(p)
		if c.Why == "" {
			c.Lifted = true
			c.Time = float64(md.preds[p].size)
			c.Space = float64(md.preds[p].size)
			for _, j := range md.preds[p].forms {
				f := &md.forms[j]
				for o := range f.occs {
					if f.occs[o].pred != p {
						continue
					}
					pl := newPlan(md, j, o)
					c.plans = append(c.plans, pl)
					// two values of the atom, at most half the rows each
					c.Time += 2 * float64(pl.minterms) * pl.time
					c.Space = max(c.Space, pl.space)
				}
			}
			return
		}
	}
	ground := 0.0
	seen := map[int]bool{}
	atoms := 0.0
	for _, p := range c.Preds {
		atoms += float64(md.preds[p].size)
		for _, j := range md.preds[p].forms {
			if seen[j] {
				continue
			}
			seen[j] = true
			g := 1.0
			for _, d := range md.forms[j].dom {
				g *= float64(d)
			}
			ground += g
		}
	}
	per := float64(md.opt.BlockStates) / float64(md.opt.BlockSize)
	per = min(per, float64(int(1)<<min(md.opt.BlockSize, 30))/float64(md.opt.BlockSize))
	c.Time = (ground + atoms) * max(per, 1)
	c.Space = ground + atoms
}

// coupling is the number of formulas that mention both predicates.
func (md *Model) coupling(p, q int) int {
	n := 0
	for _, j := range md.preds[p].forms {
		for _, k := range md.preds[q].forms {
			if j == k {
				n++
			}
		}
	}
	return n
}

// buildClusters is Algorithm 2: start with one first-order atom per
// cluster (those with an unknown ground atom), then repeatedly merge the
// pair of clusters with the largest coupling among the merges that do not
// raise the time or space, or keep them within Alpha and Beta; stop when
// no merge is feasible.
func (md *Model) buildClusters() {
	var G []*Cluster
	for p := range md.preds {
		if !md.unknown(p) {
			continue
		}
		c := &Cluster{Preds: []int{p}, Names: []string{md.preds[p].name}}
		md.cost(c)
		G = append(G, c)
	}
	total := func(G []*Cluster) (t, s float64) {
		for _, c := range G {
			t += c.Time
			s += c.Space
		}
		return
	}
	alpha, beta := md.opt.Alpha, md.opt.Beta
	t0, s0 := total(G)
	if alpha <= 0 {
		alpha = t0
	}
	if beta <= 0 {
		beta = s0
	}
	for !md.opt.NoMerge {
		t, s := total(G)
		best, bi, bj := 0, -1, -1
		var bc *Cluster
		for i := range G {
			for j := i + 1; j < len(G); j++ {
				z := 0
				for _, p := range G[i].Preds {
					for _, q := range G[j].Preds {
						z += md.coupling(p, q)
					}
				}
				if z <= best {
					continue
				}
				m := &Cluster{Preds: append(append([]int(nil), G[i].Preds...), G[j].Preds...)}
				sort.Ints(m.Preds)
				for _, p := range m.Preds {
					m.Names = append(m.Names, md.preds[p].name)
				}
				md.cost(m)
				t2 := t - G[i].Time - G[j].Time + m.Time
				s2 := s - G[i].Space - G[j].Space + m.Space
				if (t2 <= t && s2 <= s) || (t2 <= alpha && s2 <= beta) {
					best, bi, bj, bc = z, i, j, m
				}
			}
		}
		if bc == nil {
			break
		}
		G[bi] = bc
		G = append(G[:bj], G[bj+1:]...)
	}
	md.Clusters = G
}

// LiftedClusters counts the clusters drawn by the lifted rules.
func (md *Model) LiftedClusters() int {
	n := 0
	for _, c := range md.Clusters {
		if c.Lifted {
			n++
		}
	}
	return n
}

// Describe lists the clusters, "{R} lifted; {S,T} ground (why)".
func (md *Model) Describe() string {
	s := make([]string, len(md.Clusters))
	for i, c := range md.Clusters {
		s[i] = c.String()
	}
	return strings.Join(s, "; ")
}
