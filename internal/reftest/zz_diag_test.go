package reftest

import (
	"math"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

// miniBP is a plain ground BP with libDAI 0.3 semantics, for diagnosis.
type miniBP struct {
	g     *fg.Graph
	vals  [][]float64 // clamped factor tables
	msg   [][]float64 // per edge e (factor f, position p): message f -> scope[p]
	nbV   [][]int64   // per variable: edges, in factor order
	iters int
	diff  float64
}

func newMiniBP(g *fg.Graph, ev fg.Evidence) *miniBP {
	m := &miniBP{g: g}
	m.vals = make([][]float64, g.NumFactors())
	for f := range m.vals {
		t := g.Table(f)
		v := slices.Clone(t.Values)
		sc := g.Scope(f)
		idx := make([]int32, len(sc))
		for k := range v {
			for p, x := range sc {
				if ev != nil && ev[x] >= 0 && idx[p] != ev[x] {
					v[k] = 0
				}
			}
			for p := len(idx) - 1; p >= 0; p-- {
				idx[p]++
				if idx[p] < t.Dims[p] {
					break
				}
				idx[p] = 0
			}
		}
		m.vals[f] = v
	}
	m.msg = make([][]float64, g.NumEdges())
	for e := range m.msg {
		m.msg[e] = make([]float64, g.Card[g.EdgeVar[e]])
		for i := range m.msg[e] {
			m.msg[e][i] = 1
		}
	}
	m.nbV = make([][]int64, g.NumVars())
	for f := 0; f < g.NumFactors(); f++ {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			v := g.EdgeVar[e]
			m.nbV[v] = append(m.nbV[v], e)
		}
	}
	return m
}

// cavity returns the product of messages into variable v except along edge skip.
func (m *miniBP) cavity(v int32, skip int64) []float64 {
	p := make([]float64, m.g.Card[v])
	for i := range p {
		p[i] = 1
	}
	for _, e := range m.nbV[v] {
		if e == skip {
			continue
		}
		for i := range p {
			p[i] *= m.msg[e][i]
		}
	}
	return p
}

// factorProduct returns f's table times the cavities of its variables, except
// position q (q < 0: all).
func (m *miniBP) factorProduct(f int, q int) []float64 {
	g := m.g
	t := g.Table(f)
	sc := g.Scope(f)
	start := g.FactorStart[f]
	cav := make([][]float64, len(sc))
	for p, v := range sc {
		if p != q {
			cav[p] = m.cavity(v, start+int64(p))
		}
	}
	prod := slices.Clone(m.vals[f])
	idx := make([]int32, len(sc))
	for k := range prod {
		for p := range sc {
			if p != q {
				prod[k] *= cav[p][idx[p]]
			}
		}
		for p := len(idx) - 1; p >= 0; p-- {
			idx[p]++
			if idx[p] < t.Dims[p] {
				break
			}
			idx[p] = 0
		}
	}
	return prod
}

func normalize(p []float64) {
	var s float64
	for _, x := range p {
		s += x
	}
	for i := range p {
		p[i] /= s
	}
}

func (m *miniBP) newMessage(f, q int) []float64 {
	g := m.g
	sc := g.Scope(f)
	if len(sc) == 1 {
		return slices.Clone(m.vals[f])
	}
	t := g.Table(f)
	prod := m.factorProduct(f, q)
	out := make([]float64, t.Dims[q])
	idx := make([]int32, len(sc))
	for k := range prod {
		out[idx[q]] += prod[k]
		for p := len(idx) - 1; p >= 0; p-- {
			idx[p]++
			if idx[p] < t.Dims[p] {
				break
			}
			idx[p] = 0
		}
	}
	normalize(out)
	return out
}

func (m *miniBP) beliefV(v int) []float64 {
	b := m.cavity(int32(v), -1)
	normalize(b)
	return b
}

func (m *miniBP) beliefF(f int) []float64 {
	b := m.factorProduct(f, -1)
	normalize(b)
	return b
}

// edge is (factor, position).
type edge struct{ f, q int }

func (m *miniBP) run(order []edge, parallel bool, tol float64, maxIter int) {
	g := m.g
	oldV := make([][]float64, g.NumVars())
	for v := range oldV {
		oldV[v] = make([]float64, g.Card[v])
		for i := range oldV[v] {
			oldV[v][i] = 1 / float64(g.Card[v])
		}
	}
	oldF := make([][]float64, g.NumFactors())
	for f := range oldF {
		n := len(g.Table(f).Values)
		oldF[f] = make([]float64, n)
		for i := range oldF[f] {
			oldF[f][i] = 1 / float64(n)
		}
	}
	diff := math.Inf(1)
	it := 0
	for ; it < maxIter && diff > tol; it++ {
		if parallel {
			nm := make([][]float64, len(order))
			for k, e := range order {
				nm[k] = m.newMessage(e.f, e.q)
			}
			for k, e := range order {
				m.msg[g.FactorStart[e.f]+int64(e.q)] = nm[k]
			}
		} else {
			for _, e := range order {
				m.msg[g.FactorStart[e.f]+int64(e.q)] = m.newMessage(e.f, e.q)
			}
		}
		diff = math.Inf(-1)
		for v := range oldV {
			b := m.beliefV(v)
			for i := range b {
				diff = max(diff, math.Abs(b[i]-oldV[v][i]))
			}
			oldV[v] = b
		}
		for f := range oldF {
			b := m.beliefF(f)
			for i := range b {
				diff = max(diff, math.Abs(b[i]-oldF[f][i]))
			}
			oldF[f] = b
		}
	}
	m.iters, m.diff = it, diff
}

func (m *miniBP) logZ() float64 {
	g := m.g
	var s float64
	for v := 0; v < g.NumVars(); v++ {
		b := m.beliefV(v)
		var h float64
		for _, p := range b {
			if p > 0 {
				h -= p * math.Log(p)
			}
		}
		s += (1 - float64(len(m.nbV[v]))) * h
	}
	for f := 0; f < g.NumFactors(); f++ {
		b := m.beliefF(f)
		t := g.Table(f).Values
		for k, p := range b {
			if p > 0 {
				s -= p * (math.Log(p) - math.Log(t[k]))
			}
		}
	}
	return s
}

// factorMajor is libDAI 0.3's SEQFIX order: factors in order, each factor's
// variables in increasing index (label) order.
func factorMajor(g *fg.Graph) []edge {
	var o []edge
	for f := 0; f < g.NumFactors(); f++ {
		sc := g.Scope(f)
		qs := make([]int, len(sc))
		for i := range qs {
			qs[i] = i
		}
		slices.SortFunc(qs, func(a, b int) int { return int(sc[a]) - int(sc[b]) })
		for _, q := range qs {
			o = append(o, edge{f, q})
		}
	}
	return o
}

// varMajor is bp.Sequential's order on a ground graph.
func varMajor(g *fg.Graph) []edge {
	var o []edge
	for v := 0; v < g.NumVars(); v++ {
		for k := g.VarStart[v]; k < g.VarStart[v+1]; k++ {
			e := g.VarEdges[k]
			f := g.EdgeFactor(e)
			o = append(o, edge{f, int(e - g.FactorStart[f])})
		}
	}
	return o
}

func TestDiagMiniBP(t *testing.T) {
	if os.Getenv("DIAG") == "" {
		t.Skip("diagnostic")
	}
	for _, name := range []string{"DBN_11", "Pedigree_11", "linkage_16", "Promedus_11", "ObjectDetection_11"} {
		g, ev := readUAI(t, name)
		for _, sched := range []string{"seq", "flood"} {
			p := dataDir + "/uai/reference/" + name + ".bp-" + sched + ".json"
			if _, err := os.Stat(p); err != nil {
				continue
			}
			ref := readReference(t, p)
			want := func(v int) []float64 { return ref.Marginals[strconv.Itoa(v)] }
			type variant struct {
				name     string
				order    []edge
				parallel bool
			}
			var vs []variant
			if sched == "seq" {
				vs = []variant{{"libDAI-order", factorMajor(g), false}, {"var-major", varMajor(g), false}}
			} else {
				vs = []variant{{"parallel", factorMajor(g), true}}
			}
			for _, va := range vs {
				m := newMiniBP(g, ev)
				m.run(va.order, va.parallel, refTol, refMaxIter)
				var w float64
				nbad := 0
				for v := 0; v < g.NumVars(); v++ {
					b := m.beliefV(v)
					bad := false
					for i := range b {
						w = max(w, math.Abs(b[i]-want(v)[i]))
						bad = bad || math.Abs(b[i]-want(v)[i]) > 1e-6
					}
					if bad {
						nbad++
						if nbad <= 5 {
							t.Logf("  x%d (ev %d, degree %d): mini %v libDAI %v", v, ev[v], len(m.nbV[v]), b, want(v))
						}
					}
				}
				t.Logf("  %d variables differ", nbad)
				t.Logf("%s %s mini %s: iters %d (libDAI %d) diff %.3g, max|Δmarg| vs libDAI %.3g, logZ %.10g (libDAI %.10g)",
					name, sched, va.name, m.iters, ref.Iterations, m.diff, w, m.logZ(), ref.BetheLogZ)
			}
		}
	}
}
