package lift

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lifted-dev/lifted/fg"
)

// Recolourer keeps the stable colouring of one graph while its evidence
// changes (new observations, clamped values, retracted observations), and
// recolours only what a change touches. After every Update its colouring is
// exactly the one ColourPassing computes from scratch on the graph and the
// new evidence: the same partition and, after Colouring's renumbering by
// first appearance, the same class ids; only the number of rounds differs
// (RecolourStats counts the rounds of the update).
//
// An update has two stages.
//
//  1. Seeded refinement. The variables whose evidence changed leave their
//     class (grouped by old class and new evidence), and colour passing
//     continues from the old stable colouring with only the nodes next to a
//     change re-signed, as the rounds of ColourPassing do. This yields the
//     coarsest stable colouring that refines both the old colouring and the
//     new evidence. When the change only refines the initial colours
//     (every variable that shares its new evidence class with another
//     shared its old one with it too: a fresh observation of a value that
//     no other variable of its cardinality is observed at, say) that is
//     the from-scratch colouring, since colour passing is monotone.
//  2. Merging. Otherwise classes kept apart by the old evidence may now be
//     one (two variables clamped to the same value one after the other).
//     The colouring of stage 1 is stable, so its classes form a counted
//     graph; colour passing on that quotient, one representative per class,
//     starting from the new initial colours, finds which classes merge. Its
//     cost is that of the compressed graph, not of the ground graph.
//
// Users: LBPCount clamps one variable per step (count.BPCount with
// EvidenceGraph and Lifted); dynamic MLN filtering changes the evidence of
// each time step. Both call NewRecolourer once, then Update and Compress
// per change. A Recolourer is not safe for concurrent use.
type Recolourer struct {
	p  *passing
	ev fg.Evidence // current evidence
	// initCount counts the variables per initial colour key (cardinality,
	// evidence) under the current evidence.
	initCount map[uint64]int
	rounds    int // rounds of the last refinement (from scratch or update)
}

// RecolourStats describe one Update.
type RecolourStats struct {
	Changed        int  // variables whose evidence changed
	Rounds         int  // rounds of the seeded refinement
	Merged         bool // the merging stage ran (the change was not a pure refinement)
	QuotientRounds int  // rounds of colour passing on the quotient
	QuotientNodes  int  // variable and factor classes of the quotient
	Resigned       int  // ground nodes re-signed by the seeded refinement
	Seconds        float64
}

// ErrRecolourMaxIter is returned by NewRecolourer when Options.MaxIter is
// set: a round-limited colouring is not a fixpoint, so it cannot be updated.
var ErrRecolourMaxIter = errors.New("lift: a Recolourer needs colour passing until stable (MaxIter 0)")

// NewRecolourer runs colour passing on g with evidence ev (copied) from
// scratch and keeps its state for updates.
func NewRecolourer(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Recolourer, error) {
	if opt.MaxIter != 0 {
		return nil, ErrRecolourMaxIter
	}
	if opt.CountTolerance != 0 {
		return nil, errors.New("lift: a Recolourer keeps an exact colouring (CountTolerance must be 0)")
	}
	if err := g.CheckEvidence(ev); err != nil {
		return nil, err
	}
	cur := fg.NoEvidence(g.NumVars())
	if ev != nil {
		copy(cur, ev)
	}
	r := &Recolourer{p: newPassing(g, cur, opt, 1), ev: cur, initCount: map[uint64]int{}}
	rounds, err := r.p.run(ctx, true)
	if err != nil {
		return nil, err
	}
	r.rounds = rounds
	for v := range cur {
		r.initCount[r.initKey(int32(v), cur[v])]++
	}
	return r, nil
}

func (r *Recolourer) initKey(v int32, e int32) uint64 {
	return uint64(uint32(r.p.g.Card[v]))<<32 | uint64(uint32(e))
}

// Graph returns the graph being coloured.
func (r *Recolourer) Graph() *fg.Graph { return r.p.g }

// Evidence returns the current evidence (a copy).
func (r *Recolourer) Evidence() fg.Evidence { return slices.Clone(r.ev) }

// Update changes the evidence to ev and recolours. changed must list every
// variable whose evidence may differ from the current evidence (a superset
// does no harm; nil compares every variable); variables left out are taken
// to be unchanged. On error (invalid
// evidence, cancellation) the Recolourer must not be used further, except
// for an error from the evidence check, which changes nothing.
func (r *Recolourer) Update(ctx context.Context, ev fg.Evidence, changed []int32) (RecolourStats, error) {
	start := time.Now()
	g := r.p.g
	var st RecolourStats
	if err := g.CheckEvidence(ev); err != nil {
		return st, err
	}
	if ev == nil {
		ev = fg.NoEvidence(g.NumVars())
	}
	// The variables whose evidence really changed, once each.
	var diff []int32
	if changed == nil {
		for v := range ev {
			if ev[v] != r.ev[v] {
				diff = append(diff, int32(v))
			}
		}
	} else {
		seen := map[int32]bool{}
		for _, v := range changed {
			if v < 0 || int(v) >= len(ev) {
				return st, fmt.Errorf("lift: changed variable %d out of range [0, %d)", v, len(ev))
			}
			if ev[v] != r.ev[v] && !seen[v] {
				seen[v] = true
				diff = append(diff, v)
			}
		}
	}
	st.Changed = len(diff)
	if len(diff) == 0 {
		st.Seconds = time.Since(start).Seconds()
		return st, nil
	}
	// Is the new initial colouring a refinement of the old one? Per new
	// key, the variables holding it must all have held one old key.
	oldOf := map[uint64]uint64{}
	leaving := map[uint64]int{} // changed variables per old key
	refines := true
	for _, v := range diff {
		nk, ok := r.initKey(v, ev[v]), r.initKey(v, r.ev[v])
		leaving[ok]++
		if prev, seen := oldOf[nk]; seen && prev != ok {
			refines = false
		}
		oldOf[nk] = ok
	}
	for nk := range oldOf {
		if r.initCount[nk]-leaving[nk] > 0 { // unchanged variables already hold nk
			refines = false
		}
	}
	for _, v := range diff {
		r.initCount[r.initKey(v, r.ev[v])]--
		r.initCount[r.initKey(v, ev[v])]++
		r.ev[v] = ev[v]
	}

	// Stage 1: the changed variables leave their classes, grouped by
	// (old class, new evidence); refinement continues from there.
	p := r.p
	signed0 := p.vr.signed + p.fr.signed
	step := p.step
	p.step++
	for _, v := range diff {
		p.vr.mark(v, step)
	}
	p.vr.resign(func(v int32, buf []uint64) []uint64 {
		return append(buf, uint64(uint32(p.vc[v])), uint64(uint32(r.ev[v])))
	})
	rounds, err := p.run(ctx, false)
	st.Rounds = rounds
	st.Resigned = p.vr.signed + p.fr.signed - signed0
	if err != nil {
		return st, err
	}
	r.rounds = rounds
	if !refines {
		// Stage 2: colour passing on the quotient of the stable colouring.
		if err := r.merge(ctx, &st); err != nil {
			return st, err
		}
	}
	st.Seconds = time.Since(start).Seconds()
	return st, nil
}

// merge runs mergeClasses and records it in st.
func (r *Recolourer) merge(ctx context.Context, st *RecolourStats) error {
	st.Merged = true
	qr, qn, err := r.mergeClasses(ctx)
	st.QuotientRounds, st.QuotientNodes = qr, qn
	if err != nil {
		return err
	}
	r.rounds += qr
	return nil
}

// mergeClasses runs colour passing on the quotient of the current stable
// colouring, from the initial colours of the current evidence, and replaces
// the colouring by its result. A class is represented by any of its
// members: the colouring is stable, so every member sees the same multiset
// of (neighbour class, slot key), and the quotient's rounds are the rounds
// of colour passing from scratch on the ground graph, class by class.
func (r *Recolourer) mergeClasses(ctx context.Context) (rounds, nodes int, err error) {
	p, g := r.p, r.p.g
	// Dense indices of the live classes and a representative of each.
	vIdx, repV := classReps(p.vc, p.vr.numClasses())
	fIdx, repF := classReps(p.fc, p.fr.numClasses())
	nx, ny := len(repV), len(repF)
	nodes = nx + ny
	qv := make([]int32, nx)
	keys := make([]uint64, nx)
	for x, v := range repV {
		keys[x] = r.initKey(v, r.ev[v])
	}
	qvr := newRefiner(qv, dense(keys, qv))
	qf := make([]int32, ny)
	keys = make([]uint64, ny)
	for y, f := range repF {
		keys[y] = p.initF[f]
	}
	qfr := newRefiner(qf, dense(keys, qf))
	// The quotient as one part: class y of factors has the edges of its
	// representative, to the classes of their variables.
	qp := &Part{Factors: iota32(ny), Vars: iota32(nx), FactorStart: make([]int64, 1, ny+1),
		FactorSorted: make([]bool, ny), VarStart: make([]int64, 1, nx+1)}
	for y, f := range repF {
		for e := g.FactorStart[f]; e < g.FactorStart[f+1]; e++ {
			qp.FactorVar = append(qp.FactorVar, vIdx[p.vc[g.EdgeVar[e]]])
			qp.FactorKey = append(qp.FactorKey, p.keys[e])
		}
		qp.FactorStart = append(qp.FactorStart, int64(len(qp.FactorVar)))
		qp.FactorSorted[y] = p.sorted[f]
	}
	for _, v := range repV {
		lo, hi := g.VarStart[v], g.VarStart[v+1]
		for k := lo; k < hi; k++ {
			qp.VarFactor = append(qp.VarFactor, fIdx[p.fc[p.adj.varFactor(k)]])
			qp.VarKey = append(qp.VarKey, p.adj.varKey(k))
		}
		qp.VarStart = append(qp.VarStart, int64(len(qp.VarFactor)))
	}
	signFactor := func(y int32, buf []uint64) []uint64 { return qp.signFactor(y, qf, qv, buf) }
	signVar := func(x int32, buf []uint64) []uint64 { return qp.signVar(x, qv, qf, buf) }
	for step := int32(0); ; step++ {
		if err := ctx.Err(); err != nil {
			return rounds, nodes, fmt.Errorf("%w: %w", ErrCancelled, err)
		}
		rounds++
		if rounds == 1 {
			for y := range int32(ny) {
				qfr.mark(y, step)
			}
		} else {
			for _, x := range qvr.changed {
				for _, y := range qp.VarFactor[qp.VarStart[x]:qp.VarStart[x+1]] {
					qfr.mark(y, step)
				}
			}
		}
		qfr.resign(signFactor)
		if rounds == 1 {
			for x := range int32(nx) {
				qvr.mark(x, step)
			}
		} else {
			for _, y := range qfr.changed {
				for _, x := range qp.FactorVar[qp.FactorStart[y]:qp.FactorStart[y+1]] {
					qvr.mark(x, step)
				}
			}
		}
		qvr.resign(signVar)
		if len(qfr.changed) == 0 && len(qvr.changed) == 0 {
			break
		}
	}
	// Every node takes its class's quotient colour.
	for v, c := range p.vc {
		p.vc[v] = qv[vIdx[c]]
	}
	for f, c := range p.fc {
		p.fc[f] = qf[fIdx[c]]
	}
	p.vr.recount(qvr.numClasses())
	p.fr.recount(qfr.numClasses())
	return rounds, nodes, nil
}

// classReps returns, for class ids below n, the dense index of each live
// class (by first appearance; -1 for dead ids) and the first member of each.
func classReps(col []int32, n int) (idx []int32, rep []int32) {
	idx = make([]int32, n)
	for i := range idx {
		idx[i] = -1
	}
	for i, c := range col {
		if idx[c] < 0 {
			idx[c] = int32(len(rep))
			rep = append(rep, int32(i))
		}
	}
	return idx, rep
}

// Colouring returns the current colouring with class ids dense in order of
// first appearance (as ColourPassing numbers them); Iterations is the
// number of rounds of the last update (quotient rounds included), or of the
// first colour passing.
func (r *Recolourer) Colouring() *Colouring {
	p := r.p
	vc, fc := slices.Clone(p.vc), slices.Clone(p.fc)
	nvc := renumber(vc, p.vr.numClasses())
	nfc := renumber(fc, p.fr.numClasses())
	return &Colouring{VarColor: vc, NumVarColor: nvc, FactorColor: fc, NumFacColor: nfc, EdgeKey: p.keys, Iterations: r.rounds}
}

// Compress returns the counted graph of the current colouring and evidence.
func (r *Recolourer) Compress() (*Compressed, error) {
	col := r.Colouring()
	return build(context.Background(), r.p.g, slices.Clone(r.ev), col.VarColor, col.NumVarColor, col.FactorColor, col.NumFacColor, col.EdgeKey, false)
}
