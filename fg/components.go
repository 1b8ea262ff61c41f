package fg

import (
	"fmt"
	"math"
	"slices"
)

// Components is the split of a factor graph, given evidence, into
// connected components: two unobserved variables are connected when some
// factor has both in its scope (observed variables connect nothing, since
// the evidence fixes them). A model's distribution given the evidence is
// the product of its components' distributions (times the constant of the
// factors without an unobserved variable), so marginals, MAP worlds and
// log Z can be computed component by component.
//
// Storage is CSR: component c has the variables Vars[VarStart[c]:VarStart[c+1]]
// (increasing) and the factors Factors[FactorStart[c]:FactorStart[c+1]]
// (increasing: every factor with an unobserved variable of c). Components
// are numbered by their smallest variable. Factors whose variables are all
// observed (or that have none) belong to no component: they are Constant.
type Components struct {
	VarStart    []int64
	Vars        []int32
	FactorStart []int64
	Factors     []int32
	// Of[v] is the component of variable v, -1 when v is observed.
	Of []int32
	// Constant lists the factors without an unobserved variable.
	Constant []int32
}

// Len is the number of components.
func (c *Components) Len() int { return len(c.VarStart) - 1 }

// CompVars returns the variables of component i (aliasing c).
func (c *Components) CompVars(i int) []int32 { return c.Vars[c.VarStart[i]:c.VarStart[i+1]] }

// CompFactors returns the factors of component i (aliasing c).
func (c *Components) CompFactors(i int) []int32 {
	return c.Factors[c.FactorStart[i]:c.FactorStart[i+1]]
}

// SizeCount is a bar of the component size histogram: Count components
// of Size variables each.
type SizeCount struct {
	Size  int `json:"size"`
	Count int `json:"count"`
}

// Histogram returns the component sizes (numbers of variables) with their
// counts, by increasing size.
func (c *Components) Histogram() []SizeCount {
	sizes := make([]int, c.Len())
	for i := range sizes {
		sizes[i] = int(c.VarStart[i+1] - c.VarStart[i])
	}
	slices.Sort(sizes)
	var out []SizeCount
	for _, s := range sizes {
		if n := len(out); n > 0 && out[n-1].Size == s {
			out[n-1].Count++
		} else {
			out = append(out, SizeCount{Size: s, Count: 1})
		}
	}
	return out
}

// Components splits g given ev (nil: no evidence) into connected
// components by union-find over the factors' scopes: O(edges · α).
func (g *Graph) Components(ev Evidence) (*Components, error) {
	n := g.NumVars()
	if ev == nil {
		ev = NoEvidence(n)
	}
	if len(ev) != n {
		return nil, fmt.Errorf("fg: evidence has %d entries for %d variables", len(ev), n)
	}
	parent := make([]int32, n)
	for v := range parent {
		parent[v] = int32(v)
	}
	find := func(v int32) int32 {
		for parent[v] != v {
			parent[v] = parent[parent[v]] // path halving
			v = parent[v]
		}
		return v
	}
	for f := range g.NumFactors() {
		first := int32(-1)
		for _, v := range g.Scope(f) {
			if ev[v] >= 0 {
				continue
			}
			if first < 0 {
				first = find(v)
				continue
			}
			r := find(v)
			if r != first { // link the larger id under the smaller: roots are the smallest variables
				if r < first {
					parent[first], first = r, r
				} else {
					parent[r] = first
				}
			}
		}
	}
	c := &Components{Of: make([]int32, n)}
	rootComp := make([]int32, n)
	nc := int32(0)
	for v := range n {
		if ev[v] >= 0 {
			c.Of[v] = -1
			continue
		}
		r := find(int32(v))
		if r == int32(v) {
			rootComp[v] = nc
			nc++
		}
		c.Of[v] = rootComp[r]
	}
	// Counting sort of the variables and factors by component.
	c.VarStart = make([]int64, nc+1)
	for _, k := range c.Of {
		if k >= 0 {
			c.VarStart[k+1]++
		}
	}
	for k := range nc {
		c.VarStart[k+1] += c.VarStart[k]
	}
	c.Vars = make([]int32, c.VarStart[nc])
	next := slices.Clone(c.VarStart[:nc])
	for v, k := range c.Of {
		if k >= 0 {
			c.Vars[next[k]] = int32(v)
			next[k]++
		}
	}
	fc := make([]int32, g.NumFactors())
	c.FactorStart = make([]int64, nc+1)
	for f := range fc {
		fc[f] = -1
		for _, v := range g.Scope(f) {
			if ev[v] < 0 {
				fc[f] = c.Of[v]
				break
			}
		}
		if fc[f] >= 0 {
			c.FactorStart[fc[f]+1]++
		} else {
			c.Constant = append(c.Constant, int32(f))
		}
	}
	for k := range nc {
		c.FactorStart[k+1] += c.FactorStart[k]
	}
	c.Factors = make([]int32, c.FactorStart[nc])
	next = slices.Clone(c.FactorStart[:nc])
	for f, k := range fc {
		if k >= 0 {
			c.Factors[next[k]] = int32(f)
			next[k]++
		}
	}
	return c, nil
}

// Subgraph returns component i of c as a graph of its own, conditioned on
// the evidence: its variables are c.CompVars(i) in that order (variable j
// of the subgraph is CompVars(i)[j]), its factors are c.CompFactors(i) in
// that order, each with its observed variables cut out of scope and table
// (the table sliced at their observed states). So the log score of a world
// of the subgraph is the sum of the log entries of the component's factors
// at that world and the evidence, and the log score of a world of g is the
// sum of its components' scores plus ConstantLogScore. ev must be the
// evidence c was computed with (nil: none).
func (g *Graph) Subgraph(c *Components, i int, ev Evidence) *Graph {
	vars := c.CompVars(i)
	local := make(map[int32]int32, len(vars))
	b := NewBuilder()
	for j, v := range vars {
		local[v] = int32(j)
		b.AddVar(int(g.Card[v]))
	}
	var scope []int32
	var vals []float64
	for _, f := range c.CompFactors(i) {
		t := g.Table(int(f))
		full := g.Scope(int(f))
		scope = scope[:0]
		sliced := false
		for _, v := range full {
			if ev != nil && ev[v] >= 0 {
				sliced = true
			} else {
				scope = append(scope, local[v])
			}
		}
		if !sliced {
			tid, _ := b.Table(t.Dims, t.Values) // a valid table of a valid graph
			b.AddFactorTable(scope, tid)
			continue
		}
		// Slice: enumerate the entries whose observed positions agree.
		st := t.Strides()
		base := 0
		var freeStride []int
		var freeDim []int32
		for p, v := range full {
			if ev[v] >= 0 {
				base += int(ev[v]) * st[p]
			} else {
				freeStride = append(freeStride, st[p])
				freeDim = append(freeDim, t.Dims[p])
			}
		}
		vals = vals[:0]
		idx := make([]int32, len(freeDim))
		for {
			k := base
			for q, s := range freeStride {
				k += int(idx[q]) * s
			}
			vals = append(vals, t.Values[k])
			q := len(idx) - 1
			for ; q >= 0; q-- {
				idx[q]++
				if idx[q] < freeDim[q] {
					break
				}
				idx[q] = 0
			}
			if q < 0 {
				break
			}
		}
		tid, _ := b.Table(freeDim, vals)
		b.AddFactorTable(scope, tid)
	}
	return b.Build()
}

// ConstantLogScore is the sum of the log entries, at the evidence, of the
// factors without an unobserved variable (−Inf if one is zero): the part
// of every world's log score that no component holds.
func (g *Graph) ConstantLogScore(c *Components, ev Evidence) float64 {
	s := 0.0
	for _, f := range c.Constant {
		t := g.Table(int(f))
		k := 0
		for p, v := range g.Scope(int(f)) {
			k = k*int(t.Dims[p]) + int(ev[v])
		}
		s += math.Log(t.Values[k])
	}
	return s
}
