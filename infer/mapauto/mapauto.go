// Package mapauto is anytime MAP inference with a bound, registered with
// package infer as "map-auto" (the MAP default; the name is Name): a good
// world in seconds, then better worlds and an upper bound on every world's
// score, component by component, within a budget of work (flips, dual
// sweeps, branch-and-bound nodes) and, when asked, a time limit.
//
// The ground network given the evidence is split into its connected
// components (fg.Components); each is a graph of its own, conditioned on
// the evidence (fg.Subgraph), and the score of a world is the sum of its
// components' scores plus the constant of the factors without an
// unobserved variable. Per component, on Workers cores, largest first:
//
//  1. A component whose junction tree has no clique table of more than
//     JTreeTable entries is solved exactly by max-product on it (package
//     jtree); its bound is its optimum. Any other: MaxWalkSAT (package
//     mws: block moves for mutual exclusion, counting constraints for
//     auxiliary variables, restarts, a greedy descent): the first world,
//     in seconds. A component of at most mws.DefaultExactLimit worlds is
//     enumerated: exact. When MaxWalkSAT finds no world satisfying the
//     hard constraints, it is run again with four times the flips and two
//     tries, up to four times, while the time limit allows.
//  2. A component whose LP has at most ILPColumns columns is solved
//     exactly by branch and bound on its LP relaxation (package maplp,
//     "ilp"); its bound is its optimum.
//  3. Any other component gets the bound of the dual of its LOCAL LP
//     relaxation, tightened by joining strongly coupled variables into
//     clusters solved exactly within the LP (at most ClusterStates joint
//     states each: a mutual-exclusion clique stays exact), decreased by
//     MPLP's block coordinate descent (see dual and cluster):
//     a valid upper bound at every iterate, so a run cut short by the time
//     limit still has one. The dual's decoded world seeds another
//     MaxWalkSAT run (and the best world so far a third); the best world
//     is kept.
//
// Every component starts with the trivial bound Σ_f max ln φ_f (each
// factor at its largest entry consistent with the evidence), replaced by a
// better one when phase 2 or 3 reaches it, so the answer always has a
// bound. Objective, Bound and Gap = Bound − Objective are on the scale of
// the graph's log score (infer.RunModel adds the grounding's offset on an
// MLN: Σ_i w_i n_i(x), the scale of maxwalksat, lp and ilp).
//
// Runs are deterministic under Seed whatever Workers is and whatever the
// machine's load: every default budget counts work (DualWork, MaxSweeps,
// MaxWalkSAT's flips), not time. A time limit is applied only when asked
// for; when it cuts a phase short the answer is the best so far, with a
// valid bound, marked TimeLimited (more time would give a better world or
// a tighter bound, not a different kind of answer).
package mapauto

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/jtree"
	"github.com/lifted-dev/lifted/infer/maplp"
	"github.com/lifted-dev/lifted/infer/mws"
)

// Name is the name "map-auto" is registered under.
const Name = "map-auto"

// Defaults. DefaultDualWork leaves room for grounding and search within
// seconds on the real datasets (bench/realdata/MAP.md): UW-CSE's one
// component of 361,162 factors gets 55 dual sweeps, each of Cora's 546
// small components MaxSweeps.
const (
	DefaultDualWork   = 2e7
	MinSweeps         = 10
	DefaultILPColumns = 1000
	DefaultMaxSweeps  = 300
	// DefaultJTreeTable bounds the clique tables of the components solved
	// exactly by junction tree (2^16 entries, 512 KiB: on Cora, 2^20
	// costs more time in the tables than the search and bound it saves).
	DefaultJTreeTable = 1 << 16
	// DefaultClusterStates bounds the joint states of the dual's clusters.
	DefaultClusterStates = 1024
)

// Config configures Solve. Zero fields take the defaults.
type Config struct {
	// TimeLimit, when positive, bounds the whole run (0 or negative:
	// none, the default: the work budgets bound it). The first worlds are
	// found whatever it is.
	TimeLimit time.Duration
	// Search configures MaxWalkSAT (its Seed, Workers, Start, Whole and
	// TimeLimit are set by Solve).
	Search mws.Config
	// ILPColumns: components whose LP has at most this many columns are
	// solved exactly by branch and bound (default DefaultILPColumns;
	// negative: never).
	ILPColumns int
	// JTreeTable: components whose junction tree's largest clique table
	// has at most this many entries are solved exactly by max-product on
	// it (default DefaultJTreeTable; negative: never).
	JTreeTable int
	// MaxSweeps bounds the dual coordinate-descent sweeps per component
	// (default DefaultMaxSweeps); it stops earlier when a sweep lowers the
	// bound by less than 1e-9 relative.
	MaxSweeps int
	// DualWork bounds a component's dual sweeps further, to DualWork
	// factor visits (sweeps × the component's factors), at least
	// MinSweeps sweeps (default DefaultDualWork; negative: no bound).
	DualWork float64
	// ClusterStates: the dual is that of the graph with variables joined
	// into clusters of at most this many joint states and parallel
	// factors merged (default DefaultClusterStates; 1: merged parallel
	// factors only; negative: the graph as it is).
	ClusterStates int
	Workers       int // components handled at once (0: one per core)
	Seed          uint64
	// Progress, if set, is called after the first worlds and after each
	// component's bound, with the totals so far (graph scale), from one
	// goroutine at a time.
	Progress func(Progress)
}

// Progress is the state of a run.
type Progress struct {
	Phase          string // "search", "bound" or "exact"
	Done, Total    int    // components finished in this phase
	Objective      float64
	Bound          float64
	ExactSoFar     int
	ElapsedSeconds float64
}

// Result is Solve's answer.
type Result struct {
	X []int32
	// Objective is the log score of X, Bound an upper bound on every
	// world's, Gap their difference (0: X is proved optimal).
	Objective, Bound, Gap float64
	// SearchObjective is the score of MaxWalkSAT's first world.
	SearchObjective float64
	// Components, Exact (components proved optimal: enumerated, cost 0,
	// branch and bound, or bound met), Sizes (the size histogram).
	Components, Exact int
	Sizes             []fg.SizeCount
	Flips             int64
	Sweeps            int // dual sweeps, all components
	// JTree counts the components solved by junction tree.
	JTree int
	// TimeLimited: the time limit cut a phase short on some component;
	// the world and the bound are valid, but more time could improve them.
	TimeLimited bool
	Seconds     float64
}

// comp is the state of one component.
type comp struct {
	sub       *fg.Graph
	vars      []int32
	x         []int32
	obj       float64
	bound     float64
	exact     bool
	byJTree   bool
	flips     int64
	sweeps    int
	cut       bool // the time limit cut its work short
	processed bool
}

const golden = 0x9E3779B97F4A7C15

// Solve finds a MAP world of g given ev (nil: none) and a bound.
func Solve(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config) (*Result, error) {
	start := time.Now()
	if cfg.DualWork == 0 {
		cfg.DualWork = DefaultDualWork
	}
	if cfg.ILPColumns == 0 {
		cfg.ILPColumns = DefaultILPColumns
	}
	if cfg.JTreeTable == 0 {
		cfg.JTreeTable = DefaultJTreeTable
	}
	if cfg.ClusterStates == 0 {
		cfg.ClusterStates = DefaultClusterStates
	}
	if cfg.MaxSweeps <= 0 {
		cfg.MaxSweeps = DefaultMaxSweeps
	}
	if cfg.Search.Noise == 0 {
		cfg.Search.Noise = mws.DefaultNoise
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	n := g.NumVars()
	if ev == nil {
		ev = fg.NoEvidence(n)
	}
	if err := g.CheckEvidence(ev); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	var cancel context.CancelFunc
	bctx := ctx // the bound phase stops at the time limit
	if cfg.TimeLimit > 0 {
		bctx, cancel = context.WithDeadline(ctx, start.Add(cfg.TimeLimit))
		defer cancel()
	}
	comps, err := g.Components(ev)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	nc := comps.Len()
	cs := make([]comp, nc)
	order := make([]int, nc)
	for i := range order {
		order[i] = i
	}
	size := func(i int) int { return int(comps.VarStart[i+1] - comps.VarStart[i]) }
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	free := len(comps.Vars)
	constant := g.ConstantLogScore(comps, ev)

	var mu sync.Mutex
	var done, exact int
	report := func(phase string, total int) {
		if cfg.Progress == nil {
			return
		}
		p := Progress{Phase: phase, Done: done, Total: total, ExactSoFar: exact, Objective: constant, Bound: constant, ElapsedSeconds: time.Since(start).Seconds()}
		for i := range cs {
			p.Objective += cs[i].obj
			p.Bound += cs[i].bound
		}
		cfg.Progress(p)
	}
	// parallel runs fn on the components in order on the workers.
	parallel := func(idx []int, fn func(i int) error) error {
		var next atomic.Int64
		var wg sync.WaitGroup
		var firstErr error
		for range min(cfg.Workers, len(idx)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					j := int(next.Add(1) - 1)
					if j >= len(idx) {
						return
					}
					if err := fn(idx[j]); err != nil {
						mu.Lock()
						if firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
						return
					}
				}
			}()
		}
		wg.Wait()
		return firstErr
	}

	// Phase 1: the first worlds, and the trivial bounds.
	err = parallel(order, func(i int) error {
		c := &cs[i]
		c.vars = comps.CompVars(i)
		c.sub = g.Subgraph(comps, i, ev)
		tb := trivialBound(c.sub)
		sc := cfg.Search
		sc.Seed = cfg.Seed + uint64(i)*golden
		sc.Workers, sc.Whole, sc.Start, sc.TimeLimit = 1, true, nil, 0
		mf := sc.MaxFlips
		if mf <= 0 {
			mf = mws.DefaultMaxFlips
		}
		sc.MaxFlips = mws.ComponentFlips(mf, len(c.vars), free)
		if x, ok, err := byJTree(ctx, c.sub, cfg); err != nil {
			return err
		} else if ok {
			obj, _ := mws.Score(c.sub, x)
			mu.Lock()
			c.x, c.obj, c.bound, c.exact, c.byJTree = x, obj, obj, true, true
			done++
			exact++
			report("search", nc)
			mu.Unlock()
			return nil
		}
		r, err := mws.Solve(ctx, c.sub, nil, sc)
		// No world satisfying the hard constraints: search longer, while
		// the time limit allows.
		var ue *mws.UnsatError
		for k := 0; k < 4 && errors.As(err, &ue) && bctx.Err() == nil; k++ {
			sc.MaxFlips *= 4
			sc.Tries = max(sc.Tries, 2)
			sc.Seed += golden
			r, err = mws.Solve(ctx, c.sub, nil, sc)
		}
		if err != nil {
			if errors.As(err, &ue) {
				return fmt.Errorf("%s: %w", Name, err)
			}
			return err
		}
		mu.Lock() // report reads obj and bound
		c.x, c.obj, c.flips, c.bound = r.X, r.Objective, r.Flips, tb
		c.exact = r.Optimal
		if c.exact {
			c.bound = c.obj
		}
		done++
		if c.exact {
			exact++
		}
		report("search", nc)
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := &Result{Components: nc, Sizes: comps.Histogram()}
	res.SearchObjective = constant
	for i := range cs {
		res.SearchObjective += cs[i].obj
	}

	// Phase 2: bounds and better worlds, within the time limit.
	var open []int
	for _, i := range order {
		if !cs[i].exact {
			open = append(open, i)
		}
	}
	// locked runs an update of a component under mu, reporting progress
	// at most once a second.
	last := time.Now()
	locked := func(update func()) {
		mu.Lock()
		defer mu.Unlock()
		update()
		if time.Since(last) >= time.Second {
			last = time.Now()
			report("bound", len(open))
		}
	}
	mu.Lock()
	done = 0
	mu.Unlock()
	err = parallel(open, func(i int) error {
		if bctx.Err() != nil {
			cs[i].cut = true
			return nil
		}
		if err := improve(bctx, &cs[i], cfg, uint64(i), locked); err != nil {
			return err
		}
		mu.Lock()
		done++
		if cs[i].exact {
			exact++
		}
		report("bound", len(open))
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Phase 3: exact branch and bound on the small components with a gap.
	var gapped []int
	for _, i := range open {
		if !cs[i].exact && !cs[i].cut {
			gapped = append(gapped, i)
		}
	}
	mu.Lock()
	done = 0
	mu.Unlock()
	parallel(gapped, func(i int) error {
		if bctx.Err() != nil {
			cs[i].cut = true
			return nil
		}
		exactILP(bctx, &cs[i], cfg, locked)
		mu.Lock()
		done++
		if cs[i].exact {
			exact++
		}
		report("exact", len(gapped))
		mu.Unlock()
		return nil
	})
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return nil, ctx.Err()
	}
	res.X = make([]int32, n)
	for v := range res.X {
		if ev[v] >= 0 {
			res.X[v] = ev[v]
		}
	}
	res.Bound = constant
	for i := range cs {
		c := &cs[i]
		for k, v := range c.vars {
			res.X[v] = c.x[k]
		}
		res.Bound += c.bound
		res.Flips += c.flips
		res.Sweeps += c.sweeps
		res.TimeLimited = res.TimeLimited || c.cut
		if c.exact {
			res.Exact++
		}
		if c.byJTree {
			res.JTree++
		}
	}
	res.Objective, _ = mws.Score(g, res.X)
	if res.Bound < res.Objective { // rounding only: every bound is valid
		res.Bound = res.Objective
	}
	res.Gap = res.Bound - res.Objective
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// byJTree solves g exactly by max-product on its junction tree when its
// largest clique table has at most cfg.JTreeTable entries (planning work
// bounded); ok is false when it is larger. A component without a world of
// positive weight is an error: the hard constraints contradict the
// evidence, proved.
func byJTree(ctx context.Context, g *fg.Graph, cfg Config) (x []int32, ok bool, err error) {
	if cfg.JTreeTable <= 0 {
		return nil, false, nil
	}
	j := jtree.JTree{MaxTable: float64(cfg.JTreeTable), MaxTotal: 16 * float64(cfg.JTreeTable)}
	x, err = j.MAP(ctx, g, nil, jtreePlanWork)
	var tl *jtree.TooLargeError
	switch {
	case err == nil:
		return x, true, nil
	case errors.As(err, &tl):
		return nil, false, nil
	case errors.Is(err, jtree.ErrNoWorld):
		return nil, false, fmt.Errorf("%s: a connected component of %d variables has no world satisfying its hard constraints given the evidence (proved by junction tree): %w", Name, g.NumVars(), fg.ErrContradiction)
	}
	return nil, false, err
}

// jtreePlanWork bounds the adjacency scanning of a component's junction
// tree plan, so that a large component is refused quickly.
const jtreePlanWork = 5_000_000

// trivialBound is Σ_f ln max φ_f: every factor at its largest entry.
func trivialBound(g *fg.Graph) float64 {
	b := 0.0
	for f := range g.NumFactors() {
		m := 0.0
		for _, v := range g.Table(f).Values {
			m = max(m, v)
		}
		b += math.Log(m)
	}
	return b
}

// lpColumns is the number of columns of g's ground LOCAL LP.
func lpColumns(g *fg.Graph) int {
	n := 0
	for _, c := range g.Card {
		n += int(c)
	}
	for f := range g.NumFactors() {
		n += len(g.Table(f).Values)
	}
	return n
}

// improve computes a bound for component c by the clustered dual descent
// and looks for a better world by MaxWalkSAT from the dual's world and
// from the best so far.
//
// Updates of c's world and bound go through locked, which runs them under
// the run's lock (and reports progress now and then).
func improve(ctx context.Context, c *comp, cfg Config, i uint64, locked func(func())) error {
	seed := cfg.Seed + i*golden
	cg, shift := cluster(c.sub, cfg.ClusterStates)
	d := newDual(cg)
	x := make([]int32, c.sub.NumVars())
	prev := math.Inf(1)
	maxSweeps := cfg.MaxSweeps
	if cfg.DualWork > 0 {
		maxSweeps = min(maxSweeps, max(MinSweeps, int(cfg.DualWork/float64(max(c.sub.NumFactors(), 1)))))
	}
	for sw := 0; sw < maxSweeps; sw++ {
		if ctx.Err() != nil {
			c.cut = true
			break
		}
		if err := d.sweep(); err != nil {
			return fmt.Errorf("%s: %w (but MaxWalkSAT found a world: a bug)", Name, err)
		}
		c.sweeps++
		if sw >= 3 && sw%3 != 2 && sw != maxSweeps-1 {
			continue // the bound costs about a sweep: every third
		}
		u := d.bound(x) + shift
		locked(func() { c.bound = min(c.bound, u) })
		if prev-u <= 1e-9*(1+math.Abs(u)) {
			break
		}
		prev = u
	}
	if c.obj >= c.bound-1e-9*(1+math.Abs(c.bound)) {
		c.exact = true
		return nil
	}
	if ctx.Err() != nil {
		c.cut = true
		return nil
	}
	// Better worlds: MaxWalkSAT from the dual's world, then from the best.
	sc := cfg.Search
	sc.Workers, sc.Whole, sc.ExactLimit = 1, true, -1
	sc.Tries = 1
	for k, st := range [][]int32{x, c.x} {
		sc.Start, sc.Seed = st, seed+uint64(k+1)
		r, err := mws.Solve(ctx, c.sub, nil, sc)
		if err != nil {
			if ctx.Err() != nil {
				c.cut = true
				return nil
			}
			var ue *mws.UnsatError
			if errors.As(err, &ue) {
				continue
			}
			return err
		}
		c.flips += r.Flips
		if r.Objective > c.obj {
			locked(func() { c.x, c.obj = r.X, r.Objective })
		}
		if r.Interrupted {
			c.cut = true
			return nil
		}
	}
	if c.obj >= c.bound-1e-9*(1+math.Abs(c.bound)) {
		c.exact = true
	}
	return nil
}

// exactILP proves component c's optimum by branch and bound on its LP
// (cycle cuts at the root) when the LP is small, within ctx.
func exactILP(ctx context.Context, c *comp, cfg Config, locked func(func())) {
	if cfg.ILPColumns <= 0 || lpColumns(c.sub) > cfg.ILPColumns {
		return
	}
	r, err := maplp.Solve(ctx, c.sub, nil, maplp.Config{ILP: true, Relaxation: maplp.Cycle, MaxNodes: 5000})
	switch {
	case err == nil && r.Optimal && !r.Interrupted:
		locked(func() {
			if r.Objective > c.obj {
				c.x, c.obj = r.X, r.Objective
			}
			c.bound, c.exact = c.obj, true
		})
	case ctx.Err() != nil:
		c.cut = true
	} // otherwise branch and bound gave up (node limit): the dual bound stays
}
