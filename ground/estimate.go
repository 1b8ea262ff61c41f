package ground

import (
	"context"
	"fmt"
	"math"

	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/mln"
)

// Memory is the memory model that sizes the default limit on ground
// formulas (Options.MaxGround 0): the peak heap bytes per ground formula of
// the caller's whole pipeline after the evidence is read (grounding, the
// counted graph, the method). The evidence database is not in it: it is in
// memory before the prediction is made, and the budget (memlimit.Limit, a
// share of the memory then available) is what it leaves.
type Memory int

const (
	// MarginalMemory, marginal inference (lifted infer's auto: grounding,
	// the counted graph, connected components answered one by one by
	// enumeration, junction trees, lifted BP or the MCMC chains):
	// MarginalFixed plus MAPBytes(a) per ground formula over a unknown
	// atoms. Measured (margprof -heap, the collector at GOGC 10, peak live
	// heap less the evidence): 204 MB for Tuffy's Cora (177,735 ground
	// formulas; most of it the junction tree of its largest component),
	// 207 MB for UW-CSE (357,286; most of it the first-order attempt,
	// before any grounding), 469 MB for Cora replicated 10 times
	// (1,777,630: 264 bytes each, most of it the ground network and its
	// counted graph); 475 bytes per ternary ground formula on
	// friends-and-smokers through colour passing and ground BP.
	MarginalMemory Memory = iota
	// MAPMemory, MAP (lifted map's map-auto: components, junction trees,
	// MaxWalkSAT, the dual bound): MAPBytes(a) per ground formula over a
	// unknown atoms. Measured (engine's TestMemoryModel, the collector at
	// GOGC 5): 232 bytes per ground formula on Cora (binary factors), 275
	// on UW-CSE, 178 on Cora replicated 10 times, 513 on a transitive
	// friends-and-smokers model (ternary factors).
	MAPMemory
)

// MarginalFixed is MarginalMemory's part that does not grow with the
// ground formulas: the work on one component or one first-order attempt
// at a time (a junction tree within auto's table limits, a sampler's
// chains, the first-order compiler within its budget), measured at about
// 200 MB on Tuffy's Cora and UW-CSE; charged at most half the memory
// budget.
const MarginalFixed = 160 << 20

// DefaultBytesPerFormula is the bytes per ground atom of the ground atoms'
// limit (every memory model: the atom tables are allocated before the
// ground formulas are predicted) and per ground formula of
// DefaultMaxGround.
const DefaultBytesPerFormula = 1200

// MAPBytes is MAPMemory's bytes per ground formula over a unknown atoms
// (at most maxArity in one table): a fixed part, a part per variable of
// the factor (edges, the dual's messages, MaxWalkSAT's occurrence lists)
// and one per table entry. MarginalMemory takes the same per ground
// formula (edges, the counted graph's slots, BP's messages).
func MAPBytes(a, maxArity int) float64 {
	t := min(a, maxArity)
	return 100 + 100*float64(a) + 16*math.Ldexp(1, t)
}

// DefaultMaxGround returns the default limit on ground formulas (and ground
// atoms) for marginal inference: what fits in the memory budget
// (memlimit.Limit: --max-memory, by default 60% of MemAvailable) at
// DefaultBytesPerFormula.
func DefaultMaxGround() int64 {
	return memlimit.Limit() / DefaultBytesPerFormula
}

// bytesPer returns the bytes per ground formula of f under the grounding's
// memory model.
func (p *prepared) bytesPer(f *formula) float64 {
	a := 0
	for _, o := range f.prog.occs {
		if !p.at.preds[o.pred].closed {
			a++
		}
	}
	return MAPBytes(a, p.maxArity)
}

// Size is a prediction of a grounding's size, made before building it.
type Size struct {
	// Atoms is the number of ground atoms that will be variables.
	Atoms int64
	// Upper is the number of bindings of all formulas' variables: an upper
	// bound on the ground formulas before evidence pruning.
	Upper float64
	// Estimate is the expected number of ground formulas after pruning on
	// the evidence (see Grounder.estimate in the package documentation); it
	// assumes the evidence is spread uniformly and is not a bound.
	Estimate float64
	// Bytes is the memory the ground formulas of Estimate take under the
	// grounding's memory model (Options.Memory).
	Bytes float64
	// Formulas has the figures per compiled formula piece.
	Formulas []FormulaSize
}

// FormulaSize is the predicted size of one formula (or piece of one).
type FormulaSize struct {
	Formula         int // index in MLN.Formulas
	Text            string
	Upper, Estimate float64
	// Bytes is the memory one ground formula takes (Options.Memory).
	Bytes float64
}

// Estimate predicts the size of the grounding of m under db without
// building it.
func Estimate(m *mln.MLN, db *mln.DB, opt Options) (*Size, error) {
	p, err := prepare(m, db, opt)
	if err != nil {
		return nil, err
	}
	return p.size(), nil
}

// size computes the prediction for a prepared MLN.
func (p *prepared) size() *Size {
	sz := &Size{Atoms: int64(len(p.at.varPred))}
	g := newGrounder(context.Background(), p)
	for _, f := range p.formulas {
		est := g.estimate(f)
		b := p.bytesPer(f)
		sz.Upper += f.bindings
		sz.Estimate += est
		sz.Bytes += est * b
		sz.Formulas = append(sz.Formulas, FormulaSize{Formula: f.index, Text: f.src.Text, Upper: f.bindings, Estimate: est, Bytes: b})
	}
	for i := range p.at.preds {
		s := &p.at.preds[i]
		if len(s.decl.MutexArgs) > 0 {
			in, _ := mutexSplit(s)
			blocks := float64(s.n)
			for _, q := range in {
				if s.dims[q] > 0 {
					blocks /= float64(s.dims[q])
				}
			}
			sz.Upper += blocks
			sz.Estimate += blocks
			sz.Bytes += blocks * DefaultBytesPerFormula
		}
	}
	if p.opt.Memory == MarginalMemory && sz.Estimate > 0 {
		// at most half the budget: under a small one the methods' own
		// limits (junction tree tables, the samplers' and the compiler's
		// budgets) keep that work smaller
		sz.Bytes += min(MarginalFixed, float64(memlimit.Limit())/2)
	}
	return sz
}

// estimate predicts the ground formulas of f by a greedy join over its
// drivers (closed-world occurrences that fix the formula when false, and
// occurrences of open-world predicates with false evidence, whose
// candidates are their atoms not false by evidence):
// starting from all bindings unbound, take the driver with the fewest
// expected candidate atoms given the arguments already bound (the
// predicate's non-false atoms divided by the number of distinct values of
// the bound arguments among them), bind its variables, and repeat; the
// variables no driver binds range over their domains. It is an expectation
// under uniformity, not a bound.
func (g *grounder) estimate(f *formula) float64 {
	if f.total == 0 {
		return 0
	}
	if _, ok := f.prog.constValue(); ok {
		return 0
	}
	g.setup(f)
	if g.f.prog.eval(g.occVal, g.eqVal, g.vals) != vUnk || (g.p.worlds != nil && g.atMaxInAll(-1)) {
		return 0
	}
	var drivers []int32
	for o := range f.prog.occs {
		if g.occLeft[o] == 0 {
			continue
		}
		s := &g.at.preds[f.prog.occs[o].pred]
		if s.lazyDrive {
			// lazy: driven by the atoms true in some world
			if g.atMaxInAll(int32(o)) {
				drivers = append(drivers, int32(o))
			}
			continue
		}
		if !s.closed && s.openNonFalse() == nil {
			continue // open-world without false evidence: prunes nothing
		}
		g.occVal[o] = vFalse
		v := f.prog.eval(g.occVal, g.eqVal, g.vals)
		g.occVal[o] = vUnk
		if v != vUnk {
			drivers = append(drivers, int32(o))
		}
	}
	bound := make([]bool, len(f.slotDom))
	est := 1.0
	for {
		best, bestN := int32(-1), 0.0
		for _, o := range drivers {
			n, open := g.expectedCandidates(f.prog.occs[o], bound)
			if open && (best < 0 || n < bestN) {
				best, bestN = o, n
			}
		}
		if best < 0 {
			break
		}
		est *= bestN
		for _, a := range f.prog.occs[best].args {
			if !isConst(a) {
				bound[a] = true
			}
		}
	}
	for s, b := range bound {
		if !b {
			est *= float64(f.slotDom[s])
		}
	}
	// at most one grounding per binding of the formula's own variables
	// can survive its guards
	return math.Min(est, f.bindings)
}

// expectedCandidates returns the expected number of non-false atoms of
// occurrence o's predicate per binding of its constant and bound arguments,
// and whether o has an unbound argument.
func (g *grounder) expectedCandidates(o occurrence, bound []bool) (float64, bool) {
	s := &g.at.preds[o.pred]
	var mask uint64
	var key int64
	open := false
	constOnly := true
	for p, a := range o.args {
		switch {
		case isConst(a):
			mask |= 1 << p
			key += int64(constOf(a)) * s.strides[p]
		case bound[a]:
			mask |= 1 << p
			constOnly = false
		default:
			open = true
		}
	}
	if !open {
		return 0, false
	}
	if !s.closed && !s.lazyDrive {
		// Open-world with evidence: the atoms not false by evidence.
		nf := s.openNonFalse()
		if mask == 0 {
			return float64(len(nf)), true
		}
		if constOnly {
			n := 0
			for _, a := range nf {
				if s.maskKey(a, mask) == key {
					n++
				}
			}
			return float64(n), true
		}
		return s.openPerKey(mask), true
	}
	if mask == 0 {
		return float64(len(s.nonFalse)), true
	}
	if constOnly {
		return float64(len(s.lookupMask(mask, key))), true
	}
	s.lookupMask(mask, 0) // build the index
	keys := len(s.byMask[mask])
	if keys == 0 {
		return 0, true
	}
	return float64(len(s.nonFalse)) / float64(keys), true
}

// checkAtoms refuses a grounding with more variables than the limit,
// before the atom tables are allocated.
func (p *prepared) checkAtoms() error {
	if p.maxGr < 0 {
		return nil
	}
	var n float64
	big, bigN := "", 0.0
	for i := range p.at.preds {
		s := &p.at.preds[i]
		if s.closed || !s.used {
			continue
		}
		n += float64(s.n)
		if float64(s.n) > bigN {
			big, bigN = s.decl.Name, float64(s.n)
		}
	}
	if n > float64(p.maxGr) {
		return sizeErrorf("grounding would create about %.2g ground atoms (%s: %.2g); %s",
			n, big, bigN, p.limitText())
	}
	return nil
}

// checkSize refuses a grounding predicted to exceed the limit.
func (p *prepared) checkSize() error {
	if p.maxGr < 0 {
		return nil
	}
	sz := p.size()
	if p.opt.MaxGround == 0 && sz.Estimate > 0 {
		// the limit at the predicted bytes per ground formula
		p.bytesPerFormula = sz.Bytes / sz.Estimate
		p.maxGr = int64(float64(memlimit.Limit()) / p.bytesPerFormula)
	}
	if sz.Estimate <= float64(p.maxGr) {
		return nil
	}
	var big FormulaSize
	for _, f := range sz.Formulas {
		if f.Estimate > big.Estimate {
			big = f
		}
	}
	return sizeErrorf("grounding would create about %.2g ground formulas (formula %d %q: %.2g; %.2g bindings before evidence pruning); %s",
		sz.Estimate, big.Formula+1, big.Text, big.Estimate, sz.Upper, p.limitText())
}

// limitText states the limit a grounding was refused at and the flag
// that raises it: --max-ground where it was given, else --max-memory,
// whose budget sizes the default limit (DefaultMaxGround).
func (p *prepared) limitText() string {
	if p.opt.MaxGround > 0 {
		return fmt.Sprintf("limit %d; %s", p.maxGr, p.raiseText())
	}
	return fmt.Sprintf("limit %d (%s of memory at about %s per ground formula); %s",
		p.maxGr, memlimit.Bytes(float64(memlimit.Limit())), memlimit.Bytes(p.bytesPerFormula), p.raiseText())
}

// raiseText names the flag that raises the limit.
func (p *prepared) raiseText() string {
	if p.opt.MaxGround > 0 {
		return "raise --max-ground to allow it"
	}
	return "raise --max-memory (or --max-ground) to allow it"
}

// sizeError is an ErrTooLarge with its own message.
type sizeError struct{ msg string }

// Error returns the message.
func (e *sizeError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrTooLarge) true.
func (e *sizeError) Is(target error) bool { return target == ErrTooLarge }

func sizeErrorf(format string, args ...any) error {
	return &sizeError{fmt.Sprintf(format, args...)}
}
