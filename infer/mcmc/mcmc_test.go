package mcmc

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/mln"
)

// randomGraph: see gen.SmallGraph (about a fifth of the entries 0, one
// observed variable half the time).
func randomGraph(t *testing.T, r *rand.Rand) (*fg.Graph, fg.Evidence) {
	return gen.SmallGraph(r, gen.SmallShape{Vars: 4, Factors: 6, ZeroOneIn: 5, Scale: 1.5, Evidence: true})
}

// randomMLN: see gen.SmallMLN (three to five formulas, about a quarter
// hard).
func randomMLN(r *rand.Rand) (src, db string) {
	return gen.SmallMLN(r, gen.MLNShape{Formulas: 3, HardOneIn: 4})
}

// groundMLN: see gen.GroundSmallMLN (at most 14 variables).
func groundMLN(t *testing.T, src, db string, maxArity int) *fg.Graph {
	t.Helper()
	g, err := gen.GroundSmallMLN(src, db, maxArity, 14)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// weight returns the unnormalised weight of world x.
func weight(g *fg.Graph, x []int32) float64 {
	w := 1.0
	for f := range g.NumFactors() {
		t := g.Table(f)
		st := t.Strides()
		j := 0
		for p, u := range g.Scope(f) {
			j += st[p] * int(x[u])
		}
		w *= t.Values[j]
	}
	return w
}

// connected reports whether the positive worlds of g given ev are connected
// by changing one variable (single) or, with blocks, also the unobserved
// variables of one factor at a time (MC-SAT's moves), and how many there
// are.
func connected(g *fg.Graph, ev fg.Evidence, blocks bool) (bool, int) {
	var groups [][]int32
	if blocks {
		for f := range g.NumFactors() {
			groups = append(groups, g.Scope(f))
		}
	}
	return connectedBy(g, ev, groups)
}

// connectedBy reports whether the positive worlds of g given ev are
// connected by changing one variable or the unobserved variables of one of
// groups jointly, and how many there are.
func connectedBy(g *fg.Graph, ev fg.Evidence, groups [][]int32) (bool, int) {
	n := g.NumVars()
	key := func(x []int32) int {
		k := 0
		for v, s := range x {
			k = k*int(g.Card[v]) + int(s)
		}
		return k
	}
	var worlds [][]int32
	index := map[int]int{}
	x := make([]int32, n)
	var rec func(v int)
	rec = func(v int) {
		if v == n {
			if weight(g, x) > 0 {
				index[key(x)] = len(worlds)
				worlds = append(worlds, append([]int32(nil), x...))
			}
			return
		}
		for s := range g.Card[v] {
			if ev[v] >= 0 && s != ev[v] {
				continue
			}
			x[v] = s
			rec(v + 1)
		}
	}
	rec(0)
	if len(worlds) == 0 {
		return false, 0
	}
	seen := make([]bool, len(worlds))
	seen[0] = true
	queue := []int{0}
	visit := func(y []int32) {
		if i, ok := index[key(y)]; ok && !seen[i] {
			seen[i] = true
			queue = append(queue, i)
		}
	}
	for len(queue) > 0 {
		w := worlds[queue[0]]
		queue = queue[1:]
		y := append([]int32(nil), w...)
		for v := range n {
			for s := range g.Card[v] {
				y[v] = s
				visit(y)
			}
			y[v] = w[v]
		}
		for _, sc := range groups {
			var rec func(i int)
			rec = func(i int) {
				if i == len(sc) {
					visit(y)
					return
				}
				u := sc[i]
				if ev[u] >= 0 {
					rec(i + 1)
					return
				}
				for s := range g.Card[u] {
					y[u] = s
					rec(i + 1)
				}
				y[u] = w[u]
			}
			rec(0)
		}
	}
	for _, s := range seen {
		if !s {
			return false, len(worlds)
		}
	}
	return true, len(worlds)
}

// checkAgainstEnumeration samples g and compares every marginal with
// enumeration: the error must be at most 5 Monte Carlo standard errors of
// the pooled Rao-Blackwellised estimate, the standard error estimated from
// the chains' traces by batch means (BatchMeans), plus 1e-9 for rounding.
// It adds to st the effective sample sizes, bounds and errors seen.
func checkAgainstEnumeration(t *testing.T, name string, g *fg.Graph, ev fg.Evidence, cfg Config, st *boundStats) {
	t.Helper()
	ex := brute.Solve(g, ev)
	k := cfg.Kernel
	cfg.Samples, cfg.BurnIn, cfg.Chains, cfg.Trace = 4000, 200, 4, true
	res, err := Sample(context.Background(), g, ev, cfg)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	traces := make([][]float64, len(res.Trace))
	for v := range g.NumVars() {
		for s, p := range ex.Marginals[v] {
			i := res.Off[v] + s
			for c, tr := range res.Trace {
				traces[c] = traces[c][:0]
				for _, step := range tr {
					traces[c] = append(traces[c], step[i])
				}
			}
			mean, se, ess := BatchMeans(traces)
			if math.Abs(mean-res.Mean[i]) > 1e-12 {
				t.Fatalf("%s: trace mean %v, result %v", name, mean, res.Mean[i])
			}
			bound := 5*se + 1e-9
			if d := math.Abs(res.Mean[i] - p); d > bound {
				t.Errorf("%s %s: P(x%d = %d) = %.5f sampled, %.5f exact: error %.2g > bound %.2g (5 s.e., ESS %.0f)",
					name, k, v, s, res.Mean[i], p, d, bound, ess)
			}
			if se > 1e-6 {
				st.bounds = append(st.bounds, bound)
				st.minESS = min(st.minESS, ess)
				st.maxESS = max(st.maxESS, ess)
				st.maxBound = max(st.maxBound, bound)
				st.maxRatio = max(st.maxRatio, math.Abs(res.Mean[i]-p)/se)
				st.n++
			}
		}
	}
}

// boundStats summarise the checks: the range of effective sample sizes,
// the largest bound, the largest error in standard errors, and the number
// of marginals that vary.
type boundStats struct {
	minESS, maxESS, maxBound, maxRatio float64
	n                                  int
	bounds                             []float64
}

// TestAgainstEnumeration is the truth of both samplers: on random small
// factor graphs with zero entries and evidence, and on random groundings of
// MLNs with hard formulas and evidence (some with auxiliary variables), the
// marginals are within the effective-sample-size bound of enumeration. Each
// sampler is tested only where its moves connect the positive worlds
// (single-site Gibbs cannot cross zeros that separate them).
func TestAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 11))
	count := map[string]int{}
	// MC-SAT runs twice: with the default block moves, and with block moves
	// on every constrained factor (block-prob 1).
	// Gibbs runs with and without the joint moves of strongly coupled
	// pairs (gibbs.NewPairs; the gibbs method's default is with).
	variants := []struct {
		name      string
		k         Kernel
		blockProb float64
		pairs     bool
	}{{"gibbs", Gibbs, 0, false}, {"gibbs pairs", Gibbs, 0, true}, {"mcsat", MCSAT, 0, false}, {"mcsat block-prob=1", MCSAT, 1, false}}
	st := map[string]*boundStats{}
	for _, v := range variants {
		st[v.name] = &boundStats{minESS: math.Inf(1)}
	}
	for trial := 0; count["fg gibbs"] < 20 || count["fg mcsat"] < 20 || count["mln gibbs"] < 20 || count["mln mcsat"] < 20; trial++ {
		if trial > 2000 {
			t.Fatalf("too few connected models: %v", count)
		}
		var g *fg.Graph
		var ev fg.Evidence
		kind := "fg"
		if trial%2 == 0 {
			g, ev = randomGraph(t, r)
		} else {
			kind = "mln"
			src, db := randomMLN(r)
			g = groundMLN(t, src, db, 2+r.IntN(11))
			if g == nil {
				continue
			}
			ev = fg.NoEvidence(g.NumVars())
		}
		for _, va := range variants {
			key := kind + " " + va.name
			if count[key] >= 20 && (va.k == Gibbs || count[kind+" mcsat"] >= 20) {
				continue
			}
			ok, nw := connected(g, ev, va.k == MCSAT)
			if !ok || nw < 2 {
				continue
			}
			count[key]++
			if va.pairs {
				np := gibbs.NewPairs(g, ev).Len()
				count[kind+" pairs found"] += np
			}
			checkAgainstEnumeration(t, fmt.Sprintf("%s %d", kind, trial), g, ev, Config{Kernel: va.k, BlockProb: va.blockProb, Seed: uint64(trial), Pairs: va.pairs}, st[va.name])
		}
	}
	t.Logf("models tested: %v", count)
	for _, va := range variants {
		s := st[va.name]
		slices.Sort(s.bounds)
		t.Logf("%s: %d marginals with s.e. > 1e-6: ESS %.0f to %.0f (of 16000 samples), bounds median %.4f, largest %.3f; largest error %.2f s.e.",
			va.name, s.n, s.minESS, s.maxESS, s.bounds[len(s.bounds)/2], s.maxBound, s.maxRatio)
	}
}

// TestDeterministic: the same seed and chain count give the same marginals,
// bit for bit, however the chains are scheduled; another seed does not.
func TestDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	g, ev := randomGraph(t, r)
	for _, k := range []Kernel{Gibbs, MCSAT, BGibbs} {
		cfg := Config{Kernel: k, Samples: 300, BurnIn: 10, Chains: 5, Seed: 42, BlockSize: 2}
		a, err := Sample(context.Background(), g, ev, cfg)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Sample(context.Background(), g, ev, cfg)
		if fmt.Sprint(a.Mean) != fmt.Sprint(b.Mean) || a.RHat != b.RHat {
			t.Fatalf("%s: two runs with seed 42 differ", k)
		}
		cfg.Seed = 43
		c, _ := Sample(context.Background(), g, ev, cfg)
		if fmt.Sprint(a.Mean) == fmt.Sprint(c.Mean) {
			t.Fatalf("%s: seeds 42 and 43 give the same marginals", k)
		}
	}
}

// hardConjunction is the case Alchemy's samplers get wrong (P ≈ 0.31 to
// 0.33): a hard conjunction with soft formulas around it. Every atom of the
// conjunction is true in every world of positive probability.
const hardConjunction = `item = {I1, I2, I3}
obj = {O1, O2}
H(item)
S(obj)
T(item, obj)
H(i) ^ S(o).
1.5 H(i) ^ S(o) => T(i, o)
-2 H(i)
-1 S(o) v T(i, o)
0.7 T(i, o) => !H(i)
`

func TestHardConjunction(t *testing.T) {
	m, err := mlnfile.Parse("hard.mln", []byte(hardConjunction))
	if err != nil {
		t.Fatal(err)
	}
	gr, err := ground.Ground(context.Background(), m, mln.NewDB(m), ground.Options{Query: []string{"H", "S", "T"}})
	if err != nil {
		t.Fatal(err)
	}
	ex := brute.Solve(gr.Graph, nil)
	for _, name := range []string{"gibbs", "mcsat", "bgibbs"} {
		props := infer.Properties{"samples": "2000", "chains": "3"}
		if name == "bgibbs" {
			props["block-size"] = "3" // several blocks
		}
		alg, meth, err := infer.New(name, props)
		if err != nil {
			t.Fatal(err)
		}
		ans, err := infer.Run(context.Background(), alg, gr.Graph, nil, infer.Options{Lifted: meth.Lifted, Query: infer.Query{Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		for v := range gr.Graph.NumVars() {
			p := ans.Marginal(v)[1]
			atom := gr.AtomName(int32(v))
			if (strings.HasPrefix(atom, "H(") || strings.HasPrefix(atom, "S(")) && p != 1 {
				t.Errorf("%s: P(%s) = %v, want 1", name, atom, p)
			}
			if d := math.Abs(p - ex.Marginals[v][1]); d > 0.03 {
				t.Errorf("%s: P(%s) = %.4f, exact %.4f", name, atom, p, ex.Marginals[v][1])
			}
		}
		if ans.Stats.Samples != 6000 || ans.Stats.Sweeps != 6300 || ans.Stats.Chains != 3 || ans.LogZKind != infer.NoLogZ ||
			(ans.Stats.Clusters > 1) != (name == "bgibbs") {
			t.Errorf("%s: stats %+v", name, ans.Stats)
		}
	}
}

// TestUnsatisfiable: hard constraints that no world satisfies are an error
// that says so, promptly.
func TestUnsatisfiable(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	b.AddFactor([]int32{0, 1}, []float64{0, 1, 1, 0}) // x0 ≠ x1
	b.AddFactor([]int32{1, 2}, []float64{0, 1, 1, 0}) // x1 ≠ x2
	b.AddFactor([]int32{0, 2}, []float64{0, 1, 1, 0}) // x0 ≠ x2: impossible
	g := b.Build()
	for _, k := range []Kernel{Gibbs, MCSAT, BGibbs} {
		_, err := Sample(context.Background(), g, nil, Config{Kernel: k, Samples: 10, Chains: 2})
		var se *StartError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), "hard constraints") {
			t.Fatalf("%s: got %v", k, err)
		}
	}
	b = fg.NewBuilder()
	b.AddVars(1, 2)
	b.AddFactor([]int32{0}, []float64{0, 1})
	g = b.Build()
	_, err := Sample(context.Background(), g, fg.Evidence{0}, Config{Samples: 10, Chains: 1})
	if err == nil || !strings.Contains(err.Error(), "cannot all hold given the evidence") {
		t.Fatalf("evidence against a zero: got %v", err)
	}
}

// TestInterrupted: a cancelled run returns the estimate so far, marked.
func TestInterrupted(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	g, ev := randomGraph(t, r)
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	res, err := Sample(ctx, g, ev, Config{Samples: 0, TimeLimit: 1e12, Chains: 2, Progress: func(n, _ int, _ float64) {
		calls++
		if n > 0 {
			cancel()
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || res.Samples == 0 || calls == 0 {
		t.Fatalf("interrupted %v, samples %d, progress calls %d", res.Interrupted, res.Samples, calls)
	}
}

// TestRHatFlagsFrozenGibbs: an "exactly one" constraint freezes single-site
// Gibbs; chains that start in different states show it in R-hat, while
// MC-SAT's block moves mix.
func TestRHatFlagsFrozenGibbs(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	one := make([]float64, 8)
	one[1], one[2], one[4] = 1, 1, 1
	b.AddFactor([]int32{0, 1, 2}, one)
	b.AddFactor([]int32{0}, []float64{1, 2})
	g := b.Build()
	gres, err := Sample(context.Background(), g, nil, Config{Kernel: Gibbs, Samples: 500, Chains: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	mres, err := Sample(context.Background(), g, nil, Config{Kernel: MCSAT, Samples: 500, Chains: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if gres.RHat < 10 || mres.RHat > 1.1 {
		t.Fatalf("R-hat: gibbs %v (want large), mcsat %v (want ≤ 1.1)", gres.RHat, mres.RHat)
	}
	if d := math.Abs(mres.Mean[1] - 0.5); d > 0.05 { // P(x0) = 2/4
		t.Fatalf("mcsat P(x0) = %v, want 0.5", mres.Mean[1])
	}
	_ = gibbs.MaxBlock
}

// TestBlockedAgainstEnumeration is the truth of blocked Gibbs: on random
// small factor graphs with zero entries and evidence and random MLN
// groundings with hard formulas and evidence, with blocks of at most 2 to
// 4 variables and 16 joint states (so that most models have several
// blocks, or with the defaults every third model), the marginals are within
// the same effective-sample-size bound of enumeration as Gibbs's and
// MC-SAT's (checkAgainstEnumeration: 5 batch-means standard errors). It is
// tested where its moves (a block's joint state) connect the positive
// worlds.
func TestBlockedAgainstEnumeration(t *testing.T) {
	r := rand.New(rand.NewPCG(2026, 1111))
	count := map[string]int{}
	st := &boundStats{minESS: math.Inf(1)}
	blocks := 0
	for trial := 0; count["fg"] < 20 || count["mln"] < 20; trial++ {
		if trial > 2000 {
			t.Fatalf("too few connected models: %v", count)
		}
		var g *fg.Graph
		var ev fg.Evidence
		kind := "fg"
		if trial%2 == 0 {
			g, ev = randomGraph(t, r)
		} else {
			kind = "mln"
			src, db := randomMLN(r)
			g = groundMLN(t, src, db, 2+r.IntN(11))
			if g == nil {
				continue
			}
			ev = fg.NoEvidence(g.NumVars())
		}
		if count[kind] >= 20 {
			continue
		}
		cfg := Config{Kernel: BGibbs, Seed: uint64(trial), BlockSize: 2 + trial%3, BlockStates: 16}
		if trial%3 == 0 {
			cfg.BlockSize, cfg.BlockStates = 0, 0
		}
		bk, err := gibbs.NewBlocking(g, ev, cmp.Or(cfg.BlockSize, DefaultBlockSize), cmp.Or(cfg.BlockStates, DefaultBlockStates))
		if err != nil {
			t.Fatal(err)
		}
		ok, nw := connectedBy(g, ev, bk.Blocks)
		if !ok || nw < 2 {
			continue
		}
		count[kind]++
		blocks += len(bk.Blocks)
		checkAgainstEnumeration(t, fmt.Sprintf("%s %d", kind, trial), g, ev, cfg, st)
	}
	slices.Sort(st.bounds)
	t.Logf("models tested: %v, %d blocks", count, blocks)
	t.Logf("bgibbs: %d marginals with s.e. > 1e-6: ESS %.0f to %.0f (of 16000 samples), bounds median %.4f, largest %.3f; largest error %.2f s.e.",
		st.n, st.minESS, st.maxESS, st.bounds[len(st.bounds)/2], st.maxBound, st.maxRatio)
}

// TestBlocking: the blocks partition the unobserved variables, respect
// the bounds, and follow the factors.
func TestBlocking(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for trial := range 200 {
		g, ev := randomGraph(t, r)
		size, states := 1+trial%4, 2<<(trial%5)
		bk, err := gibbs.NewBlocking(g, ev, size, states)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]int, g.NumVars())
		for b, vars := range bk.Blocks {
			n := 1
			for _, v := range vars {
				seen[v]++
				n *= int(g.Card[v])
			}
			// a block holding a tied unit (gibbs.NewBlocking) lists only
			// its legal joint states and may exceed the bounds
			tied := bk.States[b] < n
			if !tied && (len(vars) > size || len(vars) > 1 && n > states) || bk.States[b] > n || !slices.IsSorted(vars) {
				t.Fatalf("trial %d: block %v (%d states) with size %d, states %d", trial, vars, bk.States[b], size, states)
			}
		}
		for v, k := range seen {
			if want := 1 - min(int(ev[v])+1, 1); k != want {
				t.Fatalf("trial %d: variable %d (evidence %d) in %d blocks", trial, v, ev[v], k)
			}
		}
	}
	// A ring x0 … x4 with x0 and x4 coupled twice: blocks grow by the
	// strongest coupling, then the lowest index.
	b := fg.NewBuilder()
	b.AddVars(5, 2)
	for _, sc := range [][]int32{{0, 1}, {0, 4}, {0, 4}, {1, 2}, {2, 3}, {3, 4}} {
		b.AddFactor(sc, []float64{1, 2, 3, 4})
	}
	g := b.Build()
	for _, c := range []struct {
		size, states int
		want         string
	}{{2, 1 << 12, "[[0 4] [1 2] [3]]"}, {3, 1 << 12, "[[0 1 4] [2 3]]"}, {5, 8, "[[0 1 4] [2 3]]"}, {5, 1 << 12, "[[0 1 2 3 4]]"}, {1, 1 << 12, "[[0] [1] [2] [3] [4]]"}} {
		bk, err := gibbs.NewBlocking(g, nil, c.size, c.states)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(bk.Blocks); got != c.want {
			t.Errorf("size %d, states %d: blocks %s, want %s", c.size, c.states, got, c.want)
		}
	}
}

// TestBlockedCrossesZeros: four "exactly one" groups of three variables,
// coupled by soft factors between groups, freeze single-site Gibbs (R-hat
// flags it), while blocked Gibbs with blocks of three (each group one
// block) mixes and matches enumeration.
func TestBlockedCrossesZeros(t *testing.T) {
	b := fg.NewBuilder()
	b.AddVars(12, 2)
	one := make([]float64, 8)
	one[1], one[2], one[4] = 1, 1, 1
	for grp := range int32(4) {
		b.AddFactor([]int32{3 * grp, 3*grp + 1, 3*grp + 2}, one)
		b.AddFactor([]int32{3*grp + 1}, []float64{1, float64(grp + 2)})
		if grp > 0 {
			b.AddFactor([]int32{3*grp - 3, 3 * grp}, []float64{2, 1, 1, 3})
		}
	}
	g := b.Build()
	ex := brute.Solve(g, nil)
	bk, err := gibbs.NewBlocking(g, nil, 3, 1<<12)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(bk.Blocks); got != "[[0 1 2] [3 4 5] [6 7 8] [9 10 11]]" {
		t.Fatalf("blocks %s", got)
	}
	gres, err := Sample(context.Background(), g, nil, Config{Kernel: Gibbs, Samples: 2000, Chains: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	bres, err := Sample(context.Background(), g, nil, Config{Kernel: BGibbs, BlockSize: 3, Samples: 2000, Chains: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if gres.RHat < 10 || bres.RHat > 1.1 || bres.Clusters != 4 {
		t.Fatalf("R-hat: gibbs %v (want large), bgibbs %v (want ≤ 1.1); %d blocks", gres.RHat, bres.RHat, bres.Clusters)
	}
	worstG, worstB := 0.0, 0.0
	for v := range g.NumVars() {
		worstG = max(worstG, math.Abs(gres.Mean[2*v+1]-ex.Marginals[v][1]))
		worstB = max(worstB, math.Abs(bres.Mean[2*v+1]-ex.Marginals[v][1]))
	}
	if worstB > 0.02 || worstG < 0.1 {
		t.Fatalf("largest error: bgibbs %.4f (want ≤ 0.02), gibbs %.4f (frozen, want ≥ 0.1)", worstB, worstG)
	}
	t.Logf("R-hat gibbs %.3g, bgibbs %.4f; largest error gibbs %.3f, bgibbs %.4f", gres.RHat, bres.RHat, worstG, worstB)
}

// Sampling until a time limit, the burn-in ends after BurnIn steps or half
// the time, whichever comes first: a burn-in longer than the time allows
// still leaves samples (it used to end with "no sample was kept"), and
// the kept steps are counted after the burn-in's steps.
func TestBurnInEndsAtHalfTheTime(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	g, ev := randomGraph(t, r)
	res, err := Sample(context.Background(), g, ev, Config{Samples: 0, BurnIn: math.MaxInt32, TimeLimit: 200 * time.Millisecond, Chains: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Samples == 0 || res.Sweeps <= res.Samples {
		t.Fatalf("%d samples in %d sweeps", res.Samples, res.Sweeps)
	}
	// With samples fixed, the burn-in is counted in steps as before.
	res, err = Sample(context.Background(), g, ev, Config{Samples: 50, BurnIn: 30, Chains: 2})
	if err != nil || res.Samples != 100 || res.Sweeps != 160 {
		t.Fatalf("%v: %d samples in %d sweeps, want 100 in 160", err, res.Samples, res.Sweeps)
	}
}
