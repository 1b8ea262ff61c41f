package mcmc

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
)

// clusterModel is a small random model for the cluster moves: four binary
// variables and a ternary one, a positive pairwise factor on every pair of
// binary variables with probability 1/2 (Ising couplings of both signs up
// to 3), unit factors, a pairwise factor with a zero entry, and a factor on
// three variables (one the ternary): everything the moves weigh besides
// couplings.
func clusterModel(r *rand.Rand) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(4, 2)
	b.AddVar(3)
	e := func(s float64) float64 { return math.Exp(s * r.NormFloat64()) }
	for u := int32(0); u < 4; u++ {
		must(b.AddFactor([]int32{u}, []float64{e(0.5), e(0.5)}))
		for v := u + 1; v < 4; v++ {
			if r.IntN(2) == 0 {
				j := 3 * (2*r.Float64() - 1)
				must(b.AddFactor([]int32{u, v}, []float64{math.Exp(j) * e(0.3), math.Exp(-j), math.Exp(-j) * e(0.3), math.Exp(j)}))
			}
		}
	}
	must(b.AddFactor([]int32{0, 3}, []float64{1, 0, e(1), e(1)}))
	vals := make([]float64, 12)
	for i := range vals {
		vals[i] = e(1)
	}
	must(b.AddFactor([]int32{1, 2, 4}, vals))
	return b.Build()
}

func must(_ int32, err error) {
	if err != nil {
		panic(err)
	}
}

// worlds enumerates g's worlds (binary vars first digits) with their
// probabilities at inverse temperature beta.
func worlds(g *fg.Graph, beta float64) ([][]int32, []float64) {
	var xs [][]int32
	var ps []float64
	x := make([]int32, g.NumVars())
	z := 0.0
	for {
		w := math.Pow(weight(g, x), beta)
		xs = append(xs, append([]int32(nil), x...))
		ps = append(ps, w)
		z += w
		v := 0
		for v < len(x) && x[v] == g.Card[v]-1 {
			x[v] = 0
			v++
		}
		if v == len(x) {
			break
		}
		x[v]++
	}
	for i := range ps {
		ps[i] /= z
	}
	return xs, ps
}

func index(g *fg.Graph, x []int32) int {
	i, m := 0, 1
	for v := range x {
		i += int(x[v]) * m
		m *= int(g.Card[v])
	}
	return i
}

// totalVariation is the distance between the histogram h of n draws and
// the distribution ps.
func totalVariation(h, ps []float64, n int) float64 {
	tv := 0.0
	for i, p := range ps {
		tv += math.Abs(h[i]/float64(n) - p)
	}
	return tv / 2
}

func draw(r *rand.Rand, ps []float64) int {
	u := r.Float64()
	for i, p := range ps {
		if u -= p; u < 0 {
			return i
		}
	}
	return len(ps) - 1
}

// TestClusterMovesInvariant: one Swendsen–Wang move (at β = 1 and 0.5)
// from exact draws, and one Houdayer exchange from two independent exact
// draws, leave the distribution as it was (total variation against
// enumeration, over 10 random models).
func TestClusterMovesInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 1))
	n := 60000
	if testing.Short() {
		n = 20000
	}
	tol := 3 * math.Sqrt(48/float64(n)) // ~ 6 times the noise of TV on 48 states
	for model := range 10 {
		g := clusterModel(r)
		for _, beta := range []float64{1, 0.5} {
			xs, ps := worlds(g, beta)
			mv := newMoves(g, nil)
			if !mv.hasFree() {
				t.Fatal("no free binary variables")
			}
			hsw := make([]float64, len(ps))
			ha := make([]float64, len(ps))
			hb := make([]float64, len(ps))
			x, xa, xb := make([]int32, g.NumVars()), make([]int32, g.NumVars()), make([]int32, g.NumVars())
			for range n {
				copy(x, xs[draw(r, ps)])
				mv.swendsenWang(r, x, beta)
				hsw[index(g, x)]++
				copy(xa, xs[draw(r, ps)])
				copy(xb, xs[draw(r, ps)])
				mv.houdayer(r, xa, xb, beta)
				ha[index(g, xa)]++
				hb[index(g, xb)]++
			}
			for name, h := range map[string][]float64{"swendsen-wang": hsw, "houdayer first": ha, "houdayer second": hb} {
				if tv := totalVariation(h, ps, n); tv > tol {
					t.Errorf("model %d β %.1f %s: total variation %.4f > %.4f", model, beta, name, tv, tol)
				}
			}
		}
	}
}

// TestSwendsenWangAgainstEnumeration: the method swendsen-wang on random
// small models; labelled mixed runs are within 4 standard errors.
func TestSwendsenWangAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 2))
	mixed := 0
	for model := range 6 {
		g := clusterModel(r)
		ex := brute.Solve(g, nil)
		a := run(t, "swendsen-wang", infer.Properties{"samples": "4000"}, g, uint64(model))
		if !a.Converged {
			continue
		}
		mixed++
		for v := range g.NumVars() {
			for s, p := range ex.Marginals[v] {
				se := a.StdErr[a.NodeOff[v]+s]
				if d := math.Abs(a.Marginal(v)[s] - p); d > 4*se+1.0/float64(a.Stats.Samples) {
					t.Errorf("model %d variable %d state %d: %.4f ± %.4f, exact %.4f", model, v, s, a.Marginal(v)[s], se, p)
				}
			}
		}
	}
	if mixed < 3 {
		t.Errorf("only %d of 6 runs mixed", mixed)
	}
}

// TestSwendsenWangFerromagnet: on a 12×12 grid with strong positive
// couplings (J ∈ [1, 1.5], fields ±0.05: two modes, all up and all down)
// single-site Gibbs does not mix; Swendsen–Wang does, and agrees with
// the symmetry of the model to within its standard errors.
func TestSwendsenWangFerromagnet(t *testing.T) {
	g := ferroGrid(12, 1, 1.5, 0.05)
	if a := run(t, "gibbs", infer.Properties{"samples": "1000"}, g, 1); a.Converged {
		t.Errorf("gibbs labelled mixed on the ferromagnet (R-hat %.4f)", a.Stats.RHat)
	}
	a := run(t, "swendsen-wang", infer.Properties{"samples": "1000"}, g, 1)
	if !a.Converged {
		t.Fatalf("swendsen-wang not mixed: %s", a.Stats.Mixing)
	}
	if a.Stats.Clusters < 1 {
		t.Errorf("clusters per move %d", a.Stats.Clusters)
	}
}

// ferroGrid is an n×n grid of positive couplings in [jlo, jhi] and fields in
// ±h.
func ferroGrid(n int, jlo, jhi, h float64) *fg.Graph {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	g := gen.FrustratedGrid(r, n, jlo, jhi, h)
	// make every coupling ferromagnetic
	for f := range g.NumFactors() {
		tb := g.Table(f)
		if len(tb.Values) == 4 && tb.Values[0] < tb.Values[1] {
			tb.Values[0], tb.Values[1], tb.Values[2], tb.Values[3] = tb.Values[1], tb.Values[0], tb.Values[3], tb.Values[2]
		}
	}
	return g
}

// pairModel is clusterModel without its factor on three variables: the
// ternary variable joined to two binary ones by pairwise factors, a cycle
// of couplings likely (tree blocks must break it).
func pairModel(r *rand.Rand) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(4, 2)
	b.AddVar(3)
	e := func(s float64) float64 { return math.Exp(s * r.NormFloat64()) }
	for u := int32(0); u < 4; u++ {
		must(b.AddFactor([]int32{u}, []float64{e(0.5), e(0.5)}))
		for v := u + 1; v < 4; v++ {
			if r.IntN(3) > 0 {
				j := 3 * (2*r.Float64() - 1)
				must(b.AddFactor([]int32{u, v}, []float64{math.Exp(j) * e(0.3), math.Exp(-j), math.Exp(-j) * e(0.3), math.Exp(j)}))
			}
		}
	}
	must(b.AddFactor([]int32{0, 3}, []float64{1, 0, e(1), e(1)}))
	must(b.AddFactor([]int32{1, 4}, []float64{e(1), e(1), 0, e(1), e(1), e(1)}))
	must(b.AddFactor([]int32{4, 2}, []float64{e(1), e(1), e(1), e(1), e(1), e(1)}))
	return b.Build()
}

// TestTreeBlocksInvariant: every tree block drawn once from exact draws
// (at β = 1 and 0.5) leaves the distribution as it was, and the blocks
// cover every variable (10 random pairwise models).
func TestTreeBlocksInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 3))
	n := 40000
	if testing.Short() {
		n = 15000
	}
	tol := 3 * math.Sqrt(48/float64(n))
	for model := range 10 {
		g := pairModel(r)
		if model%2 == 1 {
			g = clusterModel(r) // a factor on three variables
		}
		tb := newTreeBlocks(g, nil)
		if tb == nil {
			t.Fatal("no tree blocks")
		}
		seen := make([]bool, g.NumVars())
		for _, b := range tb.blocks {
			for _, v := range b.vars {
				seen[v] = true
			}
		}
		for v, s := range seen {
			if !s {
				t.Fatalf("model %d: variable %d in no block", model, v)
			}
		}
		mv := newMoves(g, nil)
		var ts treeScratch
		for _, beta := range []float64{1, 0.5} {
			xs, ps := worlds(g, beta)
			for bi := range tb.blocks {
				h := make([]float64, len(ps))
				x := make([]int32, g.NumVars())
				for range n {
					copy(x, xs[draw(r, ps)])
					mv.drawTree(r, &tb.blocks[bi], x, &ts, beta)
					h[index(g, x)]++
				}
				if tv := totalVariation(h, ps, n); tv > tol {
					t.Errorf("model %d β %.1f block %d (%d variables): total variation %.4f > %.4f", model, beta, bi, len(tb.blocks[bi].vars), tv, tol)
				}
			}
		}
	}
}

// permModel is an n×n permutation model: binary p(r,c) at r·n+c, an
// "exactly one" factor per row and per column (hard), a random unit factor
// per variable.
func permModel(r *rand.Rand, n int) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(n*n, 2)
	one := make([]float64, 1<<n)
	for i := range n {
		one[1<<(n-1-i)] = 1
	}
	row := make([]int32, n)
	col := make([]int32, n)
	for i := range n {
		for j := range n {
			row[j], col[j] = int32(i*n+j), int32(j*n+i)
		}
		must(b.AddFactor(row, one))
		must(b.AddFactor(col, one))
	}
	for v := range n * n {
		must(b.AddFactor([]int32{int32(v)}, []float64{1, math.Exp(2 * r.NormFloat64())}))
	}
	return b.Build()
}

// TestSwapInvariant: one partner swap from exact draws of random 3×3 and
// 4×4 permutation models leaves the distribution as it was, and the swap
// sampler mixes there (labelled mixed, within 4 standard errors of
// enumeration) where Gibbs cannot move.
func TestSwapInvariant(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 4))
	n := 40000
	if testing.Short() {
		n = 15000
	}
	for model := range 4 {
		g := permModel(r, 3+model%2)
		xs, ps := worlds(g, 1)
		var pos []int
		for i, p := range ps {
			if p > 0 {
				pos = append(pos, i)
			}
		}
		tol := 3 * math.Sqrt(float64(len(pos))/float64(n))
		mv := newMoves(g, nil)
		h := make([]float64, len(ps))
		x := make([]int32, g.NumVars())
		moved := 0
		for range n {
			copy(x, xs[draw(r, ps)])
			if mv.swap(r, x, 1) {
				moved++
			}
			h[index(g, x)]++
		}
		if tv := totalVariation(h, ps, n); tv > tol || moved == 0 {
			t.Errorf("model %d: total variation %.4f (tolerance %.4f), %d of %d swaps accepted", model, tv, tol, moved, n)
		}
	}
	g := permModel(r, 4)
	ex := brute.Solve(g, nil)
	if a := run(t, "gibbs", nil, g, 1); a.Converged {
		t.Error("gibbs labelled mixed on a permutation model")
	} else if !strings.Contains(a.Stats.Mixing, "--method swap") {
		t.Errorf("gibbs's refusal does not name swap: %s", a.Stats.Mixing)
	}
	a := run(t, "swap", nil, g, 1)
	if !a.Converged {
		t.Fatalf("swap not mixed: %s", a.Stats.Mixing)
	}
	for v := range g.NumVars() {
		se := a.StdErr[a.NodeOff[v]+1]
		if d := math.Abs(a.Marginal(v)[1] - ex.Marginals[v][1]); d > 4*se+1.0/float64(a.Stats.Samples) {
			t.Errorf("variable %d: %.4f ± %.4f, exact %.4f", v, a.Marginal(v)[1], se, ex.Marginals[v][1])
		}
	}
}
