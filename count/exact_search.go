package count

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/lifted-dev/lifted/cnf"
)

// counter is the model-counting search: DPLL with clause learning,
// component decomposition and a component cache.
type counter struct {
	*solver
	*decomposer
	st     structure
	cache  *compCache
	litAct []float64 // sharpSAT-style literal activity for the heuristic
	units  []lit     // unit clauses learned during counting
	cands  []lit     // failed-literal candidates
	candOK []bool    // per literal: already a candidate
	scores []float64

	src       *cnf.CNF // the formula loaded
	used      []int32  // used[v]: src's number of variable v
	presolved bool     // the root has been simplified (see presolve)

	ctx        context.Context
	opts       Options
	start      time.Time
	lastTick   time.Time
	decisions  int64
	failedLits int64
	err        error
	unsat      bool // an empty clause or a root-level conflict was found
	unused     int  // variables of the formula that occur in no clause

	binA, binB []int32 // the original binary clauses, until buildSearch
	reductions int     // times the counting search halved its learned clauses
}

// run counts the models. It returns the counter that did the counting:
// k, or the counter of the formula that presolve reduced k's to.
func (k *counter) run() (*counter, *big.Int, error) {
	if k.unsat {
		return k, new(big.Int), nil
	}
	if k.start.IsZero() {
		k.start = time.Now()
		k.lastTick = k.start
	}
	if !k.opts.NoSATCheck && !k.presolved {
		sat, err := k.satisfiable(k.checkpoint)
		if err != nil {
			return k, nil, err
		}
		if !sat {
			return k, new(big.Int), nil
		}
		if !k.propagate() { // learned units at level 0
			return k, new(big.Int), nil
		}
	}
	if !k.presolved && !k.opts.noProbe {
		r, err := k.presolve()
		if err != nil || r == nil {
			return k, new(big.Int), err
		}
		if r != k {
			// Only r's formula is needed from here on.
			k.solver, k.cache, k.litAct, k.candOK = nil, nil, nil, nil
			return r.run()
		}
	}
	k.buildSearch()
	k.bump = k.bumpLit
	k.bumpClause = k.bumpClauseActivity
	root := component{vars: k.compVars.alloc(k.nv), cls: k.compCls.alloc(len(k.st.clStart) - 1)}
	for i, vs := 0, k.compVars.list(root.vars); i < len(vs); i++ {
		vs[i] = int32(i)
	}
	for i, cs := 0, k.compCls.list(root.cls); i < len(cs); i++ {
		cs[i] = int32(i)
	}
	n := k.countChildren(root)
	if k.err != nil {
		return k, nil, k.err
	}
	return k, new(big.Int).Lsh(n.toBig(), uint(k.unused)), nil
}

// checkpoint reports cancellation and calls the progress callback.
func (k *counter) checkpoint() error {
	if k.err != nil {
		return k.err
	}
	if err := k.ctx.Err(); err != nil {
		k.err = fmt.Errorf("count: exact model counting stopped: %w", err)
		return k.err
	}
	if k.opts.Progress != nil {
		now := time.Now()
		if now.Sub(k.lastTick) >= k.opts.progressInterval() {
			k.lastTick = now
			k.opts.Progress(k.stats())
		}
	}
	return nil
}

func (k *counter) stats() Stats {
	return Stats{
		Decisions:      k.decisions,
		Conflicts:      k.conflicts,
		FailedLiterals: k.failedLits,
		Propagations:   k.propagations,
		Learned:        len(k.learnts),
		CacheEntries:   k.cache.len(),
		CacheBytes:     k.cache.bytes,
		CacheHits:      k.cache.hits,
		CacheMisses:    k.cache.misses,
		CacheEvicted:   k.cache.evictions,
		Elapsed:        time.Since(k.start),
	}
}

// bumpLit raises the activity of a literal met in conflict analysis.
func (k *counter) bumpLit(l lit) { k.litAct[l]++ }

// countChildren decomposes the unassigned variables of component p and
// returns the product of the counts of the components times 2 per free
// variable.
func (k *counter) countChildren(p component) num {
	markComps, markVars, markCls, markKeys := len(k.comps), k.compVars.mark(), k.compCls.mark(), len(k.keys)
	defer func() {
		k.comps = k.comps[:markComps]
		k.compVars.release(markVars)
		k.compCls.release(markCls)
		k.keys = k.keys[:markKeys]
	}()
	free := k.decompose(p)
	var result acc
	result.small = 1
	result.shl(free)
	subs := k.comps[markComps:]
	sortComponents(subs)
	j := 0
	for _, c := range subs {
		if n, ok := k.cache.get(k.key(c)); ok {
			if n.isZero() {
				return num{}
			}
			result.mul(n)
			continue
		}
		subs[j] = c
		j++
	}
	subs = subs[:j]
	for i := range subs {
		if k.decisionLevel() == 0 {
			// Nothing above the root can be withdrawn.
			k.cache.forgetLog()
		}
		n := k.countComp(subs[i])
		if k.err != nil || n.isZero() {
			return num{}
		}
		result.mul(n)
	}
	return result.num
}

// sortComponents orders components by size, smallest first, so that an
// unsatisfiable one tends to be found before big ones are counted.
func sortComponents(cs []component) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].size() < cs[j-1].size(); j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// countComp counts the models of component c by branching on one of its
// variables, caches the count and returns it.
//
// Learned clauses can propagate literals outside the component being
// counted, so a branch may fail because of a sibling component that is
// itself unsatisfiable. The branch's count of zero is then right for the
// product but may be wrong for the components counted inside it; the cache
// entries made during a branch that yields zero are therefore withdrawn
// (as in sharpSAT).
func (k *counter) countComp(c component) num {
	k.decisions++
	if k.decisions&15 == 0 && k.checkpoint() != nil {
		return num{}
	}
	if k.decisions&127 == 0 {
		for i := range k.litAct {
			k.litAct[i] *= 0.5
		}
	}
	d, ok := k.pickLiteral(c)
	if !ok { // all variables assigned meanwhile (not expected)
		return k.countChildren(c)
	}
	var total acc
	flip := noReason
	lvl := k.decisionLevel()
	for branch := range 2 {
		l, reason := d, noReason
		if branch == 1 {
			l, reason = d.not(), flip
		}
		mark := k.cache.mark()
		k.newLevel()
		k.assign(l, reason)
		var n num
		learned := false
		if !k.assertUnits() {
			// A learned fact contradicts the path: no models, nothing to learn.
		} else if !k.propagate() || (!k.opts.noProbe && !k.probe()) {
			learned = k.analyze() >= 0
		} else {
			n = k.countChildren(c)
		}
		k.backtrack(lvl)
		if k.err != nil {
			return num{}
		}
		switch {
		case !learned:
		case len(k.learnt) == 1:
			k.units = append(k.units, k.learnt[0])
			if branch == 0 && k.learnt[0] == d.not() {
				flip = unitReason
			}
		case len(k.learnt) > 1:
			k.maybeReduce()
			r := k.learn()
			if branch == 0 && k.learnt[0] == d.not() {
				flip = r
			}
		}
		if n.isZero() {
			k.cache.rollback(mark)
		} else {
			total.add(n)
		}
	}
	k.cache.put(k.key(c), total.num)
	return total.num
}

// learntSlack is how many pool words (literals and headers) the learned
// long clauses may hold beyond those of the original long clauses.
const learntSlack = 3000

// maybeReduce halves the learned clauses when there are too many: a small
// database keeps propagation fast, which matters more in the counting
// search than in a satisfiability search. The bound is on the clauses'
// size in words, not their number, and scales with the formula: the
// learned clauses may take as much of the pool as the original long
// clauses plus learntSlack. Long learned clauses cost the most to visit
// and prune the least, and a formula of few long clauses (ais8, the Latin
// squares) is slowed by a database of long learned clauses that one of
// many long clauses (logistics.a) needs: with a bound of 1000 clauses
// whatever their length, ais8 took 43 ms where it now takes 40, and
// ls6-norm-gen 210 ms where it takes 180 (bench/sharpsat/RESULTS.md).
func (k *counter) maybeReduce() {
	k.clauseInc /= 0.999
	bound := int(k.origEnd) + learntSlack
	if k.opts.learntWords > 0 {
		bound = k.opts.learntWords
	}
	if len(k.pool)-int(k.origEnd) > bound {
		k.reduceLearnts()
		k.reductions++
	}
}

// pickLiteral chooses the branching literal of c: the variable with the
// most occurrences in the component's clauses plus recent conflict
// activity, and its more active sign.
func (k *counter) pickLiteral(c component) (lit, bool) {
	best, bestScore := int32(-1), -1.0
	for _, v := range k.compVars.list(c.vars) {
		if k.val[2*v] != unknown {
			continue
		}
		score := float64(k.freq[v]) + 10*(k.litAct[2*v]+k.litAct[2*v+1])
		if score > bestScore {
			best, bestScore = v, score
		}
	}
	if best < 0 {
		return litUndef, false
	}
	l := lit(2 * best)
	if k.litAct[l+1] > k.litAct[l] {
		l++
	}
	return l, true
}
