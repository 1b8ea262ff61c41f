package exact

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// byComponents is auto's answer to marginal and log Z queries on a ground
// graph whose unobserved variables fall into two or more connected
// components (fg.Components): the distribution given the evidence is the
// product of the components' distributions, so each component is a graph
// of its own (fg.Subgraph) answered by the first method that fits it:
// enumeration (at most TinyStates joint states), the junction tree (its
// min-fill plan within auto's jtree limits), else lifted BP with its
// fallbacks and then MC-SAT (bpChain) on the component alone. Components
// run on q.Workers cores, largest first; each part's seed is derived from
// q.Seed and the component's number, so the answer does not depend on the
// number of workers (MC-SAT's time limit aside: a sampler stopped by the
// clock keeps the samples it had).
//
// The answer: every variable's belief from its component's answer (the
// observed ones at their state); log Z = Σ of the components' log Z plus
// the log score of the factors without an unobserved variable, of the
// weakest kind among the parts (exact only when every part is exact);
// Converged only when every part converged (BP) or mixed (MC-SAT);
// standard errors from the parts a sampler answered (0 elsewhere).
type byComponents struct {
	auto *Auto
}

// golden spreads the components' seeds.
const golden = 0x9E3779B97F4A7C15

// part is one component's run.
type part struct {
	method string // "enumerate", "jtree", "lbp" or "mcsat" (what answered)
	ans    *infer.Answer
	refuse string // for a BP part: why jtree refused
	err    error
}

func (b *byComponents) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	g := c.Ground
	if c.NumNodes() != g.NumVars() {
		// Not the trivial compression: nothing to split exactly.
		return b.auto.chain().Run(ctx, c, q)
	}
	ev := make(fg.Evidence, g.NumVars())
	for v := range ev {
		ev[v] = c.NodeEvidence[c.NodeOf[v]]
	}
	comps, err := g.Components(ev)
	if err != nil {
		return nil, err
	}
	constant := g.ConstantLogScore(comps, ev)
	if math.IsInf(constant, -1) {
		return nil, ErrNoState
	}
	nc := comps.Len()
	parts := make([]part, nc)
	order := make([]int, nc)
	for i := range order {
		order[i] = i
	}
	size := func(i int) int { return int(comps.VarStart[i+1] - comps.VarStart[i]) }
	slices.SortStableFunc(order, func(x, y int) int { return cmp.Compare(size(y), size(x)) })
	workers := q.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ans := b.newAnswer(c, q, ev, nc)
	var next atomic.Int64
	var failed atomic.Bool
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for range min(workers, nc) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !failed.Load() {
				k := int(next.Add(1) - 1)
				if k >= nc {
					return
				}
				i := order[k]
				parts[i] = b.solve(ctx, g.Subgraph(comps, i, ev), q, i)
				if parts[i].err != nil {
					failed.Store(true)
					return
				}
				mu.Lock()
				// the component's beliefs into the answer now: its
				// graph, compression and messages are then free
				fold(ans, c, comps, i, &parts[i])
				if q.Progress != nil {
					done++
					q.Progress(infer.Progress{Iteration: done, ComponentsTotal: nc})
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for i := range parts { // the first error by component number: deterministic
		if parts[i].err != nil {
			return nil, fmt.Errorf("component %d of %d (%d variables): %w", i+1, nc, size(i), parts[i].err)
		}
	}
	return b.assemble(ans, c, q, comps, constant, parts), nil
}

// solve answers component i, the graph sub.
func (b *byComponents) solve(ctx context.Context, sub *fg.Graph, q infer.Query, i int) part {
	sq := infer.Query{Task: q.Task, Seed: q.Seed + uint64(i)*golden, Workers: 1, Tolerance: q.Tolerance}
	run := func(method string, alg infer.Algorithm) part {
		gc, err := lift.Ground(sub, nil)
		if err != nil {
			return part{err: err}
		}
		ans, err := alg.Run(ctx, gc, sq)
		return part{method: method, ans: ans, err: err}
	}
	if States(sub, nil) <= TinyStates {
		return run("enumerate", Enumerate{MaxStates: DefaultMaxStates})
	}
	j := b.auto.JTree
	p, err := j.CheckWithin(ctx, sub, nil, planWork)
	if ctx.Err() != nil {
		return part{err: ctx.Err()}
	}
	if err == nil {
		return run("jtree", j)
	}
	refuse := "exact inference is too large"
	if p != nil {
		refuse = "jtree refuses: " + p.Describe()
	}
	var ans *infer.Answer
	if sq.Tolerance > 0 && sq.Task != infer.MAP {
		// Approximate lifting under the tolerance: infer.Run tries the
		// approximations with lifted BP, then the chain on the exact
		// compression (infer.Approximator).
		ans, err = infer.Run(ctx, b.auto.chain(), sub, nil, infer.Options{Lifted: true, Query: sq})
	} else {
		cc, _, cerr := infer.CompressWith(ctx, nil, sub, nil, true, lift.Options{})
		if cerr != nil {
			return part{err: cerr}
		}
		ans, err = b.auto.chain().Run(ctx, cc, sq)
	}
	method := "lbp"
	if ans != nil && ans.Stats.Chains > 0 && ans.Stats.Method != "" {
		method = ans.Stats.Method // the sampler that answered
	}
	return part{method: method, ans: ans, refuse: refuse, err: err}
}

// newAnswer returns the answer on c that the nc parts are folded into:
// the observed variables at their state.
func (b *byComponents) newAnswer(c *lift.Compressed, q infer.Query, ev fg.Evidence, nc int) *infer.Answer {
	g := c.Ground
	ans := &infer.Answer{
		Graph: c, Task: q.Task, NodeOff: make([]int, c.NumNodes()+1),
		LogZKind: infer.Exact, Converged: true,
	}
	for v, X := range c.NodeOf {
		ans.NodeOff[X+1] = int(g.Card[v])
	}
	for X := range c.NumNodes() {
		ans.NodeOff[X+1] += ans.NodeOff[X]
	}
	ans.Belief = make([]float64, ans.NodeOff[c.NumNodes()])
	for v, X := range c.NodeOf {
		if ev[v] >= 0 {
			ans.NodeBelief(int(X))[ev[v]] = 1
		}
	}
	if nc > 0 {
		n := len(ans.Belief)
		ans.Kind, ans.EntryMixed = make([]infer.EntryKind, n), make([]bool, n)
		ans.ChainLo, ans.ChainHi, ans.EntryRHat = make([]float64, n), make([]float64, n), make([]float64, n)
	}
	return ans
}

// fold writes part i's beliefs, entry kinds, chain intervals and
// standard errors into ans (on c), then keeps of p's answer only what
// assemble reads (its log Z, convergence and statistics): the component's
// graph, its compression and its messages are no longer held.
func fold(ans *infer.Answer, c *lift.Compressed, comps *fg.Components, i int, p *part) {
	g := c.Ground
	a := p.ans
	kind := infer.KindBP
	switch {
	case p.method == "enumerate" || p.method == "jtree":
		kind = infer.KindExact
	case a.Stats.Chains > 0:
		kind = infer.KindSampled
	}
	for j, v := range comps.CompVars(i) {
		X := a.Graph.NodeOf[j]
		copy(ans.Marginal(int(v)), a.NodeBelief(int(X)))
		o, ao := ans.NodeOff[c.NodeOf[v]], a.NodeOff[X]
		for x := range int(g.Card[v]) {
			ans.Kind[o+x] = kind
			ans.EntryMixed[o+x] = a.Converged
			ans.ChainLo[o+x], ans.ChainHi[o+x], ans.EntryRHat[o+x] = math.NaN(), math.NaN(), math.NaN()
			if kind == infer.KindSampled && a.EntryMixed != nil {
				ans.EntryMixed[o+x] = a.EntryMixed[ao+x]
				ans.ChainLo[o+x], ans.ChainHi[o+x], ans.EntryRHat[o+x] = a.ChainLo[ao+x], a.ChainHi[ao+x], a.EntryRHat[ao+x]
			}
		}
		if a.StdErr != nil {
			if ans.StdErr == nil {
				ans.StdErr = make([]float64, len(ans.Belief))
			}
			o := ans.NodeOff[c.NodeOf[v]]
			copy(ans.StdErr[o:o+int(g.Card[v])], a.StdErr[a.NodeOff[X]:a.NodeOff[X+1]])
		}
	}
	p.ans = &infer.Answer{Task: a.Task, LogZ: a.LogZ, LogZKind: a.LogZKind, Converged: a.Converged, MaxChange: a.MaxChange, Stats: a.Stats}
}

// assemble completes ans, into which every part is folded (fold): log Z,
// convergence and the statistics, summed in component order.
func (b *byComponents) assemble(ans *infer.Answer, c *lift.Compressed, q infer.Query, comps *fg.Components, constant float64, parts []part) *infer.Answer {
	g := c.Ground
	ans.LogZ = constant
	st := &ans.Stats
	st.Components = len(parts)
	st.ComponentSizes = comps.Histogram()
	count := map[string]int{}
	converged := map[string]int{}
	var refuse string
	var mixing []string
	approxSum, approxMax, approxNames := 0.0, 0.0, map[string]int{}
	for i, p := range parts {
		a := p.ans
		count[p.method]++
		if a.Converged {
			converged[p.method]++
		}
		if p.method == "enumerate" || p.method == "jtree" {
			st.ExactComponents++
		}
		if refuse == "" && p.refuse != "" {
			refuse = p.refuse // the largest such component's (lowest number among equals)
		}
		ans.LogZ += a.LogZ
		ans.LogZKind = weaker(ans.LogZKind, a.LogZKind)
		ans.Converged = ans.Converged && a.Converged
		ans.MaxChange = max(ans.MaxChange, a.MaxChange)
		s := a.Stats
		st.BPIterations += s.BPIterations
		st.Messages += s.Messages
		st.Samples += s.Samples
		st.Sweeps += s.Sweeps
		st.Chains = max(st.Chains, s.Chains)
		st.RHat = max(st.RHat, s.RHat)
		if s.BulkESS > 0 && (st.BulkESS == 0 || s.BulkESS < st.BulkESS) {
			st.BulkESS = s.BulkESS
		}
		if s.TailESS > 0 && (st.TailESS == 0 || s.TailESS < st.TailESS) {
			st.TailESS = s.TailESS
		}
		if s.Mixing != "" {
			mixing = append(mixing, fmt.Sprintf("component %d: %s", i+1, s.Mixing))
		}
		st.Interrupted = st.Interrupted || s.Interrupted
		if s.ErrorEstimate != nil { // approximate lifting (Query.Tolerance)
			n := float64(len(comps.CompVars(i)))
			approxSum += *s.ErrorEstimate * n
			approxMax = max(approxMax, *s.ErrorEstimateMax)
			if s.Approximation != "" {
				approxNames[s.Approximation]++
			}
		}
		st.Treewidth = max(st.Treewidth, s.Treewidth)
		st.LargestTable = max(st.LargestTable, s.LargestTable)
	}
	if ans.LogZKind == infer.NoLogZ {
		ans.LogZ = 0
	}
	if q.Tolerance > 0 && q.Task != infer.MAP {
		// The estimate over all variables: exact components add 0.
		mean := approxSum / float64(max(1, g.NumVars()))
		st.Tolerance, st.ErrorEstimate, st.ErrorEstimateMax = q.Tolerance, &mean, &approxMax
		var names []string
		for name, n := range approxNames {
			names = append(names, fmt.Sprintf("%s (%d components)", name, n))
		}
		slices.Sort(names)
		st.Approximation = strings.Join(names, "; ")
	}
	st.Mixing = strings.Join(mixing, "; ")
	st.Converged = ans.Converged
	var methods []string
	var what []string
	for _, m := range []struct{ name, text string }{
		{"enumerate", "exact by enumeration"}, {"jtree", "exact by jtree"},
		{"lbp", "by lifted BP"}, {"mcsat", "by MC-SAT"}, {"gibbs", "by Gibbs"}, {"bgibbs", "by blocked Gibbs"},
		{"tempering", "by tempering"}, {"swendsen-wang", "by Swendsen-Wang"},
	} {
		n := count[m.name]
		if n == 0 {
			continue
		}
		methods = append(methods, m.name)
		t := fmt.Sprintf("%d %s", n, m.text)
		ok, yes, no := converged[m.name], "converged", "not converged"
		if m.name != "lbp" {
			yes, no = "mixed", "not mixed"
		}
		switch {
		case m.name == "enumerate" || m.name == "jtree":
		case n == 1 && ok == 1:
			t += " (" + yes + ")"
		case n == 1:
			t += " (" + no + ")"
		default:
			t += fmt.Sprintf(" (%d %s)", ok, yes)
		}
		what = append(what, t)
	}
	st.Method = strings.Join(methods, "+")
	reason := fmt.Sprintf("%d components: %s", len(parts), strings.Join(what, ", "))
	if refuse != "" {
		reason += "; on the largest not exact, " + refuse
	}
	st.MethodReason = reason
	return ans
}

// weaker is the kind of a sum of log Z values of kinds a and b: exact only
// when both are, a bound when both are that bound or exact, none when
// either has none, else an estimate.
func weaker(a, b infer.LogZKind) infer.LogZKind {
	switch {
	case a == infer.NoLogZ || b == infer.NoLogZ:
		return infer.NoLogZ
	case a == b:
		return a
	case a == infer.Exact:
		return b
	case b == infer.Exact:
		return a
	}
	return infer.Estimate
}
