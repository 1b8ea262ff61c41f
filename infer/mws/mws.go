// Package mws is MAP inference by MaxWalkSAT (Kautz, Selman and Jiang
// 1997), the local search that Alchemy's and Tuffy's -m run, registered
// with package infer as "maxwalksat".
//
// A factor graph is read as weighted clauses: every entry k of a factor's
// table φ is a clause "not this configuration" whose weight, the cost of
// choosing the entry, is log max φ − log φ(k) (0 for the table's largest
// entries, so only worse entries are clauses at all), and a zero entry is a
// hard clause. For an MLN's grounding this is exactly Alchemy's reading:
// a ground formula of weight w > 0 costs w when false, one of weight w < 0
// costs |w| when true, and a hard formula is hard. A world's total cost is
// Σ_f log max φ_f − Σ_f log φ_f(x_f), so the world of least cost is the
// most probable one, and Result.Objective reports Σ_f log φ_f(x_f) (the log
// of its unnormalised probability; on an MLN, infer.RunModel adds the
// grounding's offset, giving Σ_i w_i n_i(x), the scale of every MAP method).
//
// Structures that one-variable flips cannot walk through are read as
// counting constraints (see problem): mutual-exclusion blocks ("p(x, y!)",
// as an "exactly one" table or an auxiliary variable naming the true atom)
// and package ground's exact-max encoding of large clauses (an auxiliary
// variable naming the first true literal). Auxiliary variables are hidden,
// set from their atoms; a block keeps exactly one true atom throughout:
// its moves make another member true and the current one false, as in
// Alchemy and Tuffy. So a world the search visits never breaks a
// mutual exclusion. A counting constraint that is cheapest with no true
// literal (a large conjunction of positive weight, a large clause of
// negative weight) also offers, when broken, the move that makes all its
// literals false at once, as changing its auxiliary variable would.
//
// Hard clauses are handled as hard rather than as a large weight: costs
// are compared lexicographically (first the number of broken hard clauses,
// then the soft cost), which is what a hard weight above the sum of all
// soft weights amounts to, without the rounding that such a weight brings.
// As in Selman and Kautz's maxwalksat, a step repairs a broken hard clause
// when there is one, else a broken soft one, chosen uniformly at random:
// with probability Noise it makes a random move of one of the clause's
// unobserved variables (a random other state, or a random block move),
// otherwise the move among the clause's variables that lowers the cost
// most (ties broken at random), which may break other clauses. Each try
// starts from a uniformly random world (variables that no factor depends
// on, being in none or only in constant ones, take state 0, as max-product
// BP's ties do; Config.Start, when set, is the first try's world) and runs
// MaxFlips steps, then descends greedily to a local optimum; the best
// world of all tries is returned. A run stops early at cost 0 (every
// factor at its largest entry: provably optimal). A world that breaks a
// hard clause is never returned: when every world visited breaks one,
// Solve fails with an *UnsatError.
//
// Components. The ground network given the evidence falls apart into
// connected components (fg.Components) whose MAP worlds are independent;
// Tuffy (Niu et al., VLDB 2011) showed that searching them separately can
// be exponentially faster than one walk over the whole. Solve searches
// each component on its own (Config.Whole: the whole graph at once) with
// Tries restarts each and a share of MaxFlips proportional to its size
// (at least min(MaxFlips, 1000 + 50 per variable)), on Config.Workers
// cores, and solves components of at most ExactLimit worlds exactly by
// enumeration.
//
// Runs are deterministic, whatever the number of workers: try t of
// component i draws from rand.NewPCG(seed + i·φ, t) (φ the 64-bit golden
// ratio; with Whole, rand.NewPCG(seed, t)).
package mws

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lifted-dev/lifted/fg"
)

// Alchemy's defaults.
const (
	DefaultTries    = 1
	DefaultMaxFlips = 100000
	DefaultNoise    = 0.5
	// DefaultExactLimit is the most worlds of a component that Solve
	// enumerates instead of searching.
	DefaultExactLimit = 4096
)

// Config configures a MaxWalkSAT run. Zero fields take the defaults
// (Noise: use a tiny positive value for a pure greedy search).
type Config struct {
	Tries     int           // restarts from a random world (default 1), per component
	MaxFlips  int           // steps per try on the whole graph (default 100000), shared out among components
	Noise     float64       // probability of a random-walk step (default 0.5)
	TimeLimit time.Duration // stop after this long, keeping the best world (0: none)
	Seed      uint64
	// Workers is the number of components searched at once (0: one per
	// core). The result does not depend on it.
	Workers int
	// Whole searches the whole graph as one, instead of each connected
	// component on its own.
	Whole bool
	// ExactLimit: components with at most this many worlds (the product
	// of their variables' cardinalities) are solved exactly by
	// enumeration (0: DefaultExactLimit; negative: never).
	ExactLimit int
	// Start, if set, is a world of the whole graph (evidence states for
	// observed variables) that the first try of every component starts
	// from instead of a random one.
	Start []int32
}

// Result is the best world found.
type Result struct {
	X         []int32 // a state per variable (evidence states for observed ones)
	Objective float64 // Σ_f log φ_f(x_f), natural logs
	Cost      float64 // Σ_f log max φ_f − Objective: 0 means provably optimal
	Flips     int64   // steps taken, all tries and components
	Tries     int     // tries started, all components
	// Optimal says that X is provably a MAP world: every component was
	// enumerated or reached cost 0.
	Optimal bool
	// Interrupted says that ctx was cancelled before the search ended,
	// TimeLimited that the time limit (Config.TimeLimit) passed; either way
	// the best world so far is returned.
	Interrupted, TimeLimited bool
	// Components is the number of connected components searched (1 with
	// Whole), Exact those solved by enumeration, Sizes their size
	// histogram (numbers of variables).
	Components, Exact int
	Sizes             []fg.SizeCount
	// Blocks and Stars count the mutual-exclusion blocks kept by block
	// moves and the auxiliary variables read as counting constraints.
	Blocks, Stars int
}

// UnsatError says that no world visited satisfies every hard clause (zero
// entry). Factor is a factor whose entry is zero in the best world found;
// Tries and Flips (per try) are the search's size. (A factor that is zero
// whatever its unobserved variables are is reported before the search, as
// an error wrapping fg.ErrContradiction.)
type UnsatError struct {
	Factor int
	Tries  int
	Flips  int
}

// Error returns the message of the UnsatError.
func (e *UnsatError) Error() string {
	return fmt.Sprintf("maxwalksat: found no world satisfying the hard constraints (zero entries) in %d tries of %d flips (factor %d still zero): they are unsatisfiable given the evidence, or too hard for the search (raise tries or max-flips)", e.Tries, e.Flips, e.Factor)
}

// golden is the 64-bit golden ratio, spreading component seeds.
const golden = 0x9E3779B97F4A7C15

// Solve runs MaxWalkSAT on g given ev (nil: none).
func Solve(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config) (*Result, error) {
	if cfg.Tries < 0 || cfg.MaxFlips < 0 || cfg.TimeLimit < 0 || cfg.Workers < 0 {
		return nil, errors.New("maxwalksat: tries, max-flips, workers and time limit must not be negative")
	}
	if !(cfg.Noise >= 0 && cfg.Noise <= 1) {
		return nil, fmt.Errorf("maxwalksat: noise must be in [0, 1], got %v", cfg.Noise)
	}
	if cfg.Tries == 0 {
		cfg.Tries = DefaultTries
	}
	if cfg.MaxFlips == 0 {
		cfg.MaxFlips = DefaultMaxFlips
	}
	if cfg.ExactLimit == 0 {
		cfg.ExactLimit = DefaultExactLimit
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	n := g.NumVars()
	if ev == nil {
		ev = fg.NoEvidence(n)
	}
	if len(ev) != n {
		return nil, fmt.Errorf("maxwalksat: evidence has %d entries for %d variables", len(ev), n)
	}
	if cfg.Start != nil && len(cfg.Start) != n {
		return nil, fmt.Errorf("maxwalksat: start world has %d entries for %d variables", len(cfg.Start), n)
	}
	if err := g.CheckEvidence(ev); err != nil {
		return nil, fmt.Errorf("maxwalksat: %w", err)
	}
	var deadline time.Time
	if cfg.TimeLimit > 0 {
		deadline = time.Now().Add(cfg.TimeLimit)
	}
	stop := func() bool {
		return ctx.Err() != nil || (!deadline.IsZero() && time.Now().After(deadline))
	}
	res := &Result{X: make([]int32, n), Optimal: true}
	for v := range res.X {
		if ev[v] >= 0 {
			res.X[v] = ev[v]
		}
	}
	if cfg.Whole {
		c := search(g, ev, cfg, cfg.Start, cfg.MaxFlips, func(t int) *rand.Rand { return rand.New(rand.NewPCG(cfg.Seed, uint64(t))) }, stop)
		res.Components, res.Sizes = 1, []fg.SizeCount{{Size: n, Count: 1}}
		res.add(c)
		if c.x != nil {
			copy(res.X, c.x)
		}
	} else {
		comps, err := g.Components(ev)
		if err != nil {
			return nil, fmt.Errorf("maxwalksat: %w", err)
		}
		nc := comps.Len()
		res.Components, res.Sizes = nc, comps.Histogram()
		out := make([]compResult, nc)
		order := make([]int, nc) // largest first, for load balance
		for i := range order {
			order[i] = i
		}
		size := func(i int) int { return int(comps.VarStart[i+1] - comps.VarStart[i]) }
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
		free := 0
		for _, v := range ev {
			if v < 0 {
				free++
			}
		}
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(cfg.Workers, nc) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					j := int(next.Add(1) - 1)
					if j >= nc {
						return
					}
					i := order[j]
					vars := comps.CompVars(i)
					sub := g.Subgraph(comps, i, ev)
					var start []int32
					if cfg.Start != nil {
						start = make([]int32, len(vars))
						for k, v := range vars {
							start[k] = cfg.Start[v]
						}
					}
					flips := ComponentFlips(cfg.MaxFlips, len(vars), free)
					seed := cfg.Seed + uint64(i)*golden
					out[i] = search(sub, nil, cfg, start, flips, func(t int) *rand.Rand { return rand.New(rand.NewPCG(seed, uint64(t))) }, stop)
					if out[i].x != nil {
						for k, v := range vars {
							res.X[v] = out[i].x[k]
						}
					}
				}
			}()
		}
		wg.Wait()
		for i := range out {
			res.add(out[i])
		}
	}
	if ctx.Err() != nil && res.Flips == 0 && res.Exact < res.Components {
		return nil, ctx.Err()
	}
	res.Interrupted = res.Interrupted || ctx.Err() != nil
	if res.Interrupted && ctx.Err() == nil {
		res.Interrupted, res.TimeLimited = false, true // the time limit, not ctx, stopped it
	}
	res.Objective, res.Cost = Score(g, res.X)
	if math.IsInf(res.Objective, -1) {
		for f := range g.NumFactors() {
			t := g.Table(f)
			k := 0
			for p, v := range g.Scope(f) {
				k = k*int(t.Dims[p]) + int(res.X[v])
			}
			if t.Values[k] == 0 {
				return nil, &UnsatError{Factor: f, Tries: cfg.Tries, Flips: cfg.MaxFlips}
			}
		}
	}
	return res, nil
}

// ComponentFlips is the steps per try that Solve gives a component of
// size variables out of total unobserved ones: its share of maxFlips, and
// at least min(maxFlips, 1000 + 50·size).
func ComponentFlips(maxFlips, size, total int) int {
	return max(int(int64(maxFlips)*int64(size)/int64(max(total, 1))), min(maxFlips, 1000+50*size))
}

// compResult is the search of one component.
type compResult struct {
	x              []int32
	flips          int64
	tries          int
	optimal, exact bool
	interrupted    bool
	blocks, stars  int
}

func (r *Result) add(c compResult) {
	r.Flips += c.flips
	r.Tries += c.tries
	r.Optimal = r.Optimal && c.optimal
	r.Interrupted = r.Interrupted || c.interrupted
	r.Blocks += c.blocks
	r.Stars += c.stars
	if c.exact {
		r.Exact++
	}
}

// search finds the best world of g (one component, or the whole graph)
// given ev: by enumeration when it has at most cfg.ExactLimit worlds,
// else by Tries runs of MaxWalkSAT of flips steps each.
func search(g *fg.Graph, ev fg.Evidence, cfg Config, start []int32, flips int, rng func(t int) *rand.Rand, stop func() bool) compResult {
	if ev == nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	if x, ok := enumerate(g, ev, cfg.ExactLimit); ok {
		return compResult{x: x, optimal: true, exact: true}
	}
	p := newProblem(g, ev)
	s := newSolver(p)
	cr := compResult{blocks: len(p.blockStart) - 1, stars: len(p.stars)}
	var best []int32
	bestHard, bestSoft := math.MaxInt, math.Inf(1)
	keep := func() {
		if h, sc := s.costNow(); better(h, sc, bestHard, bestSoft) {
			bestHard, bestSoft = h, sc
			best = append(best[:0], s.x...)
		}
	}
tries:
	for t := range cfg.Tries {
		r := rng(t)
		cr.tries++
		s.randomise(r)
		if t == 0 && start != nil {
			for v, st := range start {
				if p.searchable[v] && st >= 0 && st < g.Card[v] {
					s.x[v] = st
				}
			}
			if !p.blocksValid(s.x) {
				s.randomise(r)
			} else {
				s.load(s.x)
			}
		}
		s.reset()
		for flip := 0; ; flip++ {
			keep()
			if len(s.hardL) == 0 && len(s.softL) == 0 {
				cr.optimal = true
				break tries
			}
			if flip == flips {
				break
			}
			if flip&1023 == 1023 && stop() {
				cr.interrupted = true
				break
			}
			s.step(r, cfg.Noise)
			cr.flips++
		}
		// Descend from the best world of the try to a local optimum (also
		// when stopped: the descent is one pass of improving moves, and
		// the best world so far is the descended one).
		s.load(best)
		s.reset()
		s.greedy()
		keep()
		if cr.interrupted {
			break
		}
	}
	if best != nil {
		p.setHidden(best)
	}
	cr.x = best
	return cr
}

// blocksValid says whether every block of x has exactly one true atom.
func (p *problem) blocksValid(x []int32) bool {
	for b := 0; b+1 < len(p.blockStart); b++ {
		n := 0
		for _, v := range p.blockVar[p.blockStart[b]:p.blockStart[b+1]] {
			if x[v] == 1 {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	return true
}

// enumerate returns the best world of g given ev by trying every world,
// when there are at most limit of them (ok false otherwise). Ties go to
// the first world in lexicographic order; a model without a positive world
// returns the first world.
func enumerate(g *fg.Graph, ev fg.Evidence, limit int) ([]int32, bool) {
	if limit <= 0 {
		return nil, false
	}
	worlds := 1
	var free []int32
	for v := range g.NumVars() {
		if ev[v] < 0 && g.Card[v] > 1 {
			if worlds > limit/int(g.Card[v]) {
				return nil, false
			}
			worlds *= int(g.Card[v])
			free = append(free, int32(v))
		}
	}
	x := make([]int32, g.NumVars())
	for v := range x {
		if ev[v] >= 0 {
			x[v] = ev[v]
		}
	}
	best := append([]int32(nil), x...)
	bestScore := math.Inf(-1)
	logT := make([][]float64, len(g.Tables))
	for t, tb := range g.Tables {
		logT[t] = make([]float64, len(tb.Values))
		for k, v := range tb.Values {
			logT[t][k] = math.Log(v)
		}
	}
	for {
		sc := 0.0
		for f := range g.NumFactors() {
			t := g.FactorTable[f]
			dims := g.Tables[t].Dims
			k := 0
			for p, v := range g.Scope(f) {
				k = k*int(dims[p]) + int(x[v])
			}
			sc += logT[t][k]
		}
		if sc > bestScore {
			bestScore = sc
			copy(best, x)
		}
		i := len(free) - 1
		for ; i >= 0; i-- {
			v := free[i]
			x[v]++
			if x[v] < g.Card[v] {
				break
			}
			x[v] = 0
		}
		if i < 0 {
			return best, true
		}
	}
}

// better reports whether (h1, s1) is a lower cost than (h2, s2): fewer
// broken hard clauses, then a soft cost lower beyond rounding.
func better(h1 int, s1 float64, h2 int, s2 float64) bool {
	if h1 != h2 {
		return h1 < h2
	}
	return s1 < s2-1e-9*(1+math.Abs(s2))
}

// Score returns the log score Σ_f log φ_f(x_f) of world x (−Inf when a
// factor is zero) and its cost Σ_f (log max φ_f − log φ_f(x_f)).
func Score(g *fg.Graph, x []int32) (objective, cost float64) {
	for f := range g.NumFactors() {
		t := g.Table(f)
		k := 0
		for p, v := range g.Scope(f) {
			k = k*int(t.Dims[p]) + int(x[v])
		}
		m := 0.0
		for _, p := range t.Values {
			m = max(m, p)
		}
		objective += math.Log(t.Values[k])
		cost += math.Log(m) - math.Log(t.Values[k])
	}
	return objective, cost
}
