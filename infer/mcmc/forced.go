package mcmc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/gibbs"
)

// Chains stuck together. The diagnostics compare chains: chains that hard
// constraints hold in different worlds show as frozen, but chains that all
// start in the same world (their WalkSAT starts repaired into one perfect
// matching, or one history of the event calculus) agree, and every atom
// they never move looks mixed. checkForced looks for a cluster of forced
// atoms: an atom whose conditional was 0 (or 1) at every kept step of
// every chain, with a hard factor (one with a zero entry) all of whose
// other free atoms were forced too, so that no single move of the chain
// could change any of them. If a world with the atom's other value
// satisfies the hard constraints (WalkSAT from a chain's last world with
// the atom flipped and held), the chains never visited worlds of positive
// probability that they could not reach: the run is marked frozen (not
// mixed; the chains' spread says nothing; more samples will not help).
// An atom forced by atoms that themselves move (UW-CSE: an EXIST clause's
// auxiliary atom, 0 while its rare atoms are all false) is not a cluster:
// those atoms can flip on their own. Where the search finds no such world
// the atom is taken as determined.

// forcedChecks bounds the atoms checkForced searches around, and
// forcedMoves each search's WalkSAT moves.
const (
	forcedChecks = 16
	forcedMoves  = 20000
)

// checkForced marks res frozen when a cluster of forced atoms (see above)
// has another world satisfying the hard constraints. It runs only where the
// graph has zeros and some entry passed the diagnostics.
func (res *Result) checkForced(ctx context.Context, g *fg.Graph, ev fg.Evidence, runs []*chainRun, sel []int, seed uint64) {
	if res.soft || res.Diag.Frozen || res.Interrupted || res.Off == nil || !slices.Contains(res.Pass, true) {
		return
	}
	var x0 []int32
	for _, r := range runs {
		if r.final != nil && r.diag != nil && r.diag.Len() > 0 {
			x0 = r.final
			break
		}
	}
	if x0 == nil {
		return
	}
	free := func(v int32) bool { return (ev == nil || ev[v] < 0) && g.Card[v] > 1 }
	forced := make([]bool, g.NumVars())
	for j, i := range sel {
		v := varOf(res.Off, i)
		if res.Off[v+1]-res.Off[v] == 2 {
			if val, ok := forcedValue(runs, j); ok && x0[v] == int32(val) {
				forced[v] = true
			}
		}
	}
	// clustered: some hard factor of v has only forced free variables
	clustered := func(v int32) bool {
		for e := g.VarStart[v]; e < g.VarStart[v+1]; e++ {
			f := g.EdgeFactor(e)
			if !slices.Contains(g.Table(f).Values, 0) {
				continue
			}
			all, others := true, 0
			for _, u := range g.Scope(f) {
				if u != v && free(u) {
					others++
					all = all && forced[u]
				}
			}
			if all && others > 0 {
				return true
			}
		}
		return false
	}
	ev2 := make(fg.Evidence, g.NumVars())
	x := make([]int32, g.NumVars())
	rng := rand.New(rand.NewPCG(seed, 0xf0ced))
	checked := 0
	var pg *gibbs.Prepared // prepared at the first check, shared by the others
	for v := range g.NumVars() {
		if !forced[v] || !clustered(int32(v)) {
			continue
		}
		if checked == forcedChecks || ctx.Err() != nil {
			return
		}
		checked++
		if ev == nil {
			for u := range ev2 {
				ev2[u] = -1
			}
		} else {
			copy(ev2, ev)
		}
		copy(x, x0)
		ev2[v], x[v] = 1-x0[v], 1-x0[v]
		if pg == nil {
			var err error
			if pg, err = gibbs.Prepare(ctx, g); err != nil {
				return
			}
		}
		if pg.StartAt(ctx, ev2, x, rng, forcedMoves) != nil {
			continue // determined, or too hard to tell
		}
		res.Diag.Mixed, res.Diag.Frozen = false, true
		res.Diag.Why = fmt.Sprintf("the chains never left the worlds in which variable %d is %d: it and the variables it shares a hard constraint with were forced at every step of every chain, yet a world with it %d satisfies the hard constraints (zero entries); the chains all started in the same part of the worlds, which their moves cannot leave, so their agreement says nothing; more samples will not help; %s",
			v, x0[v], 1-x0[v], frozenHint)
		for i := range res.Pass {
			res.Pass[i] = false
		}
		return
	}
}

// forcedValue reports whether quantity j of the chains' traces (a
// variable's conditional probability of state 1) was 0 at every kept step
// of every chain, or 1 at every one, and which.
func forcedValue(runs []*chainRun, j int) (int, bool) {
	val := -1
	for _, r := range runs {
		if r.diag == nil || r.diag.Len() == 0 {
			continue
		}
		for _, p := range r.diag.Column(j) {
			b := -1
			switch p {
			case 0:
				b = 0
			case 1:
				b = 1
			}
			if b < 0 || val >= 0 && b != val {
				return 0, false
			}
			val = b
		}
	}
	return val, val >= 0
}

// varOf is the variable whose entries of Mean (offsets off) hold entry i.
func varOf(off []int, i int) int {
	v, _ := slices.BinarySearch(off, i+1)
	return v - 1
}
