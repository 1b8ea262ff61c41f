package online

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/lift"
)

// GradOptions configure the gradient of a mini-batch.
type GradOptions struct {
	// Ground runs BP on the ground batch graph instead of the lifted one
	// (the results agree; the lifted graph is only smaller).
	Ground bool
	// BP configures both BP runs; the zero value means bp.DefaultOptions().
	BP bp.Options
	// NoNormalize leaves out the per-clause normalisation of Eq. 14 (the
	// batch baselines use the plain likelihood gradient).
	NoNormalize bool
	// Workers > 1 runs the colour passing of every BP run on that many
	// cores (lift.Parallel: the same partition and class ids), so the
	// results are bit for bit those of one worker.
	Workers int
	// Shards > 1 splits a mini-batch into that many shards of pieces whose
	// gradients are computed concurrently and summed (the map/reduce of the
	// paper's Theorem 4): exact, since pieces are independent, but lifting
	// then works within each shard only, and BP's stopping rule applies per
	// shard, so the result differs from one shard's by BP's tolerance.
	Shards int
}

// BatchResult is the gradient of one mini-batch and what it cost.
type BatchResult struct {
	// Grad is the gradient of the batch's negative conditional
	// log-likelihood: E[n | evidence] − E[n | evidence, observed], per
	// formula, divided by Count unless NoNormalize; 0 for hard formulas.
	Grad []float64
	// Loss is the Bethe estimate of the batch's negative conditional
	// log-likelihood, log Z(evidence) − log Z(evidence, observed), not
	// normalised.
	Loss float64
	// Count is how often each formula occurs in the batch (the # of Eq. 14);
	// 0 for hard formulas, whose clauses are constraints, not features.
	Count []float64
	// Expected and Data are the two expectations (not normalised).
	Expected, Data []float64
	// GroundVars and GroundFactors are the size of the batch graph,
	// LiftedNodes and LiftedFactors that of its compression (of the
	// unclamped run).
	GroundVars, GroundFactors, LiftedNodes, LiftedFactors int
	// Hidden tells whether the data run needed BP (some atom was hidden).
	Hidden bool
	// Converged is false when a BP run stopped at its iteration limit
	// (its beliefs are then used as they are).
	Converged bool
}

// batchGraph is one mini-batch as a factor graph of disjoint pieces.
type batchGraph struct {
	g       *fg.Graph
	auxVar  []int32 // per soft factor (ground clause occurrence): its feature variable
	auxForm []int32 // per soft factor: formula
	clamped fg.Evidence
	hidden  bool
	// logOff is what table scaling took out of log Z (equal in both runs).
	logOff float64
	// dataVal per soft factor: observed value, or 255 when hidden atoms occur
	dataVal []uint8
}

// buildBatch builds the graph of the given pieces under weights w.
func (md *Model) buildBatch(w []float64, pieces *Pieces, batch []int32) (*batchGraph, error) {
	b := fg.NewBuilder()
	bg := &batchGraph{}
	// local[a] is atom a's variable in the current piece, or -1: a flat
	// scratch array from a pool, reset through the atoms touched.
	local := md.scratch()
	defer md.scratchPool.Put(local)
	var touched []int32
	var ev []int32
	var scope []int32
	var vals []float64
	for _, pi := range batch {
		for _, a := range touched {
			local[a] = -1
		}
		touched = touched[:0]
		for _, c := range pieces.Piece(int(pi)) {
			scope = scope[:0]
			for _, a := range md.ClauseAtoms(int(c)) {
				v := local[a]
				if v < 0 {
					v = b.AddVar(2)
					local[a] = v
					touched = append(touched, a)
					switch md.Status[a] {
					case Observed:
						ev = append(ev, int32(md.Value[a]))
					default:
						ev = append(ev, -1)
						if md.Status[a] == Hidden {
							bg.hidden = true
						}
					}
				}
				scope = append(scope, v)
			}
			feat := md.clauseFeat(int(c))
			if md.clauseHard(int(c)) {
				// A constraint, not a feature: no parameter, so no
				// feature variable and no count. NewModel has checked the
				// data against it, except for models built without data.
				if v, ok := md.clauseObservedValue(int(c)); ok && v == 0 {
					return nil, md.dataError(int(c))
				}
				vals = vals[:0]
				for _, x := range feat {
					vals = append(vals, float64(x))
				}
				if _, err := b.AddFactor(scope, vals); err != nil {
					return nil, err
				}
				continue
			}
			aux := b.AddVar(2)
			ev = append(ev, -1)
			scope = append(scope, aux)
			f := md.clForm[c]
			wf := w[f]
			top := math.Max(wf, 0)
			bg.logOff += top
			vals = vals[:0]
			for _, x := range feat {
				e := softEntry(wf*float64(x) - top)
				if x == 1 {
					vals = append(vals, 0, e)
				} else {
					vals = append(vals, e, 0)
				}
			}
			if _, err := b.AddFactor(scope, vals); err != nil {
				return nil, err
			}
			bg.auxVar = append(bg.auxVar, aux)
			bg.auxForm = append(bg.auxForm, f)
			dv, ok := md.clauseObservedValue(int(c))
			if !ok {
				dv = 255
			}
			bg.dataVal = append(bg.dataVal, dv)
		}
	}
	for _, a := range touched {
		local[a] = -1
	}
	bg.g = b.Build()
	bg.clamped = ev
	return bg, nil
}

// scratch returns an all −1 array with one entry per ground atom; it must
// go back to md.scratchPool all −1 again.
func (md *Model) scratch() []int32 {
	if s, ok := md.scratchPool.Get().([]int32); ok {
		return s
	}
	s := make([]int32, md.NumAtoms())
	for i := range s {
		s[i] = -1
	}
	return s
}

type runOut struct {
	res            *infer.Answer
	nodes, factors int
	err            error
}

// runBP runs BP through the infer seam on g (lifted unless opt.Ground).
func runBP(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt GradOptions) runOut {
	bo := opt.BP
	if bo.MaxIter == 0 {
		bo = bp.DefaultOptions()
	}
	iopt := infer.Options{Lifted: !opt.Ground, Query: infer.Query{Task: infer.Marginals}}
	if opt.Workers > 1 {
		iopt.Refiner = lift.Parallel{Workers: opt.Workers}
	}
	res, err := infer.Run(ctx, bp.New(bo), g, ev, iopt)
	if err != nil {
		return runOut{err: err}
	}
	return runOut{res: res, nodes: res.Stats.Clusternodes, factors: res.Stats.Clusterfactors}
}

// BatchGradient computes the gradient of the mini-batch made of the given
// pieces at weights w: two BP runs (lifted unless opt.Ground) on the batch
// graph, one with the observed atoms clamped (skipped, as an exact count, when
// no atom of the batch is hidden) and one with only the evidence, run
// concurrently.
func (md *Model) BatchGradient(ctx context.Context, w []float64, pieces *Pieces, batch []int32, opt GradOptions) (*BatchResult, error) {
	if len(w) != md.NumFormulas() {
		return nil, fmt.Errorf("online: %d weights for %d formulas", len(w), md.NumFormulas())
	}
	if nw := min(opt.Shards, len(batch)); nw > 1 {
		parts := make([]*BatchResult, nw)
		errs := make([]error, nw)
		var wg sync.WaitGroup
		for i := range nw {
			lo, hi := i*len(batch)/nw, (i+1)*len(batch)/nw
			wg.Add(1)
			go func() {
				defer wg.Done()
				parts[i], errs[i] = md.rawGradient(ctx, w, pieces, batch[lo:hi], opt)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return nil, err
			}
		}
		out := SumGradients(parts)
		FinishGradient(out, opt.NoNormalize)
		return out, nil
	}
	out, err := md.rawGradient(ctx, w, pieces, batch, opt)
	if err != nil {
		return nil, err
	}
	FinishGradient(out, opt.NoNormalize)
	return out, nil
}

// rawGradient computes the expectations, counts and loss of one batch graph.
func (md *Model) rawGradient(ctx context.Context, w []float64, pieces *Pieces, batch []int32, opt GradOptions) (*BatchResult, error) {
	bg, err := md.buildBatch(w, pieces, batch)
	if err != nil {
		return nil, err
	}
	k := md.NumFormulas()
	out := &BatchResult{Grad: make([]float64, k), Count: make([]float64, k),
		Expected: make([]float64, k), Data: make([]float64, k), Hidden: bg.hidden,
		GroundVars: bg.g.NumVars(), GroundFactors: bg.g.NumFactors()}
	var free, data runOut
	var wg sync.WaitGroup
	if bg.hidden {
		wg.Add(1)
		go func() {
			defer wg.Done()
			data = runBP(ctx, bg.g, bg.clamped, opt)
		}()
	}
	free = runBP(ctx, bg.g, nil, opt)
	wg.Wait()
	if free.err != nil {
		return nil, free.err
	}
	if data.err != nil {
		return nil, data.err
	}
	out.LiftedNodes, out.LiftedFactors = free.nodes, free.factors
	out.Converged = free.res.Converged && (!bg.hidden || data.res.Converged)
	logZData := 0.0
	for i, v := range bg.auxVar {
		f := bg.auxForm[i]
		out.Count[f]++
		out.Expected[f] += free.res.Marginal(int(v))[1]
		if !bg.hidden {
			x := float64(bg.dataVal[i])
			out.Data[f] += x
			logZData += w[f] * x
		} else {
			out.Data[f] += data.res.Marginal(int(v))[1]
		}
	}
	if bg.hidden {
		logZData = data.res.LogZ + bg.logOff
	}
	out.Loss = free.res.LogZ + bg.logOff - logZData
	return out, nil
}

// minLogEntry bounds how small a soft factor entry may get: exp(-700) is
// about 1e-304. A soft clause must stay soft: an entry that underflowed to an
// exact zero would turn it into a hard constraint, and BP on weights an
// optimiser's line search tries in passing (|w| > 745) would then report
// contradictions that the model does not have.
const minLogEntry = -700

// softEntry returns exp(d), d ≤ 0, never smaller than exp(minLogEntry).
func softEntry(d float64) float64 { return math.Exp(max(d, minLogEntry)) }
