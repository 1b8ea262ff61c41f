package gibbs

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/fg"
)

// Chain is a graph prepared for repeated steps of a Markov chain on the
// world x it was made with (Start makes x positive): Gibbs sweeps (as
// Sample) or MC-SAT steps, and the conditional distribution of every
// variable given the others, which a Rao-Blackwellised estimator averages.
// A Chain is not safe for concurrent use; run one per goroutine.
type Chain struct {
	c   *chain
	off []int

	// MC-SAT scratch
	thr    []float64   // per factor: the slice threshold of this step
	active []bool      // per factor: whether its threshold excludes an entry
	blocky []bool      // per factor: whether this step redraws it as a block
	tmin   []float64   // per table: its smallest entry
	levels [][]float64 // per table: its distinct positive entries, increasing
	split  [][]bool    // per table and level: entries ≥ level not connected by single changes
	free   []int32
	allow  []int32
	seen   []uint32 // per factor: the block move that last looked at it
	vmark  []uint32 // per variable: the block move whose block holds it
	stamp  uint32
	// per block move: the factors holding several of its variables, and
	// per variable (from okOff) and state whether its own factors allow it
	shared   []int32
	okState  []bool
	okOff    []int
	freeFlip []uint8   // per variable: freeFlips
	coupling []bool    // per factor: holds two or more unobserved variables
	field    []float64 // per variable and state (Offsets): Σ log of its unit factors
	p1       []float64 // per binary variable: σ(field₁ − field₀)
	nFree    int       // unobserved variables of two or more states
	// the running state (mcsatstate.go)
	cur, curX, dec, z0, z1 []int32
	lodds                  []float64
	score                  float64 // Σ of the finite log entries
	zeros                  int     // entries that are 0
	steps                  int
	changed, newX          []int32
	// thresholds drawn when first read: tstamp[f] == tstep when factor
	// f's threshold is this step's; rng is the step's stream
	tstamp       []uint32
	tstep        uint32
	rng          *rand.Rand
	couplingList []int32 // the coupling factors, increasing
	splittable   []int32 // those whose table has a split level
	// per step: the active factors redrawn as blocks always (split) and
	// those redrawn with probability blockProb (opt), in factor order
	splitList, optList []int32

	// blocked Gibbs scratch
	bw     []float64 // per joint state of a block: its weight
	bsmall []float64 // per joint state of a group of a block's variables: its log weight
	bs     []int32   // a joint state of a group
	ind    []float64 // an MC-SAT block draw's slice indicator of a factor

	// pair moves' scratch (PairSweep): per variable, the sweep that last
	// wrote its Rao-Blackwellised term and how many pairs did
	pmark  []uint32
	pcount []int32
	pstamp uint32
	pold   []float64

	// the log-score of Gibbs steps by counts (score.go); nil until
	// LogScore is first called, or when counting does not pay
	sc      *scoreCounts
	scTried bool
}

// NewChain prepares g and ev for sampling from the world x, which the
// Chain updates in place (and which must be positive for the steps to be
// valid).
func NewChain(g *fg.Graph, ev fg.Evidence, x []int32) (*Chain, error) {
	return NewChainContext(context.Background(), g, ev, x)
}

// NewChainContext is NewChain stopped with ctx's error once ctx is done
// (the preparation polls it: Ctrl-C while a sampler's chains are set up).
func NewChainContext(ctx context.Context, g *fg.Graph, ev fg.Evidence, x []int32) (*Chain, error) {
	p, err := Prepare(ctx, g)
	if err != nil {
		return nil, err
	}
	return p.NewChain(ev, x)
}

// NewChain is the package's NewChain on the prepared graph: chains made
// from one Prepared share it (it is read only), each holding its world and
// scratch.
func (p *Prepared) NewChain(ev fg.Evidence, x []int32) (*Chain, error) {
	c, err := p.newChain(ev, x)
	if err != nil {
		return nil, err
	}
	g := p.g
	ch := &Chain{c: c, off: make([]int, g.NumVars()+1)}
	for v := range g.NumVars() {
		ch.off[v+1] = ch.off[v] + int(g.Card[v])
	}
	return ch, nil
}

// State returns the current world (aliasing the Chain).
func (ch *Chain) State() []int32 { return ch.c.x }

// Offsets returns, per variable v, where its states start in the flat
// vectors Sweep and Conditionals fill: v's states are [off[v], off[v+1]).
func (ch *Chain) Offsets() []int { return ch.off }

// Sweep runs one Gibbs sweep, drawing exactly as Sample does. With cond
// (of length Offsets()[NumVars]) set, it writes there the conditional
// distribution each variable was drawn from, given the others at that
// moment (for an observed variable, its evidence state with probability
// 1): the terms of the Rao-Blackwellised estimate of the marginals.
func (ch *Chain) Sweep(rng *rand.Rand, cond []float64) {
	ch.c.sweep(rng, cond, ch.off)
}

// Conditionals writes into cond the distribution of every variable given
// the current state of all the others, P(v = s | x₋ᵥ) ∝ Π_f φ_f(s, x₋ᵥ).
//
// After an MC-SAT step a binary variable's conditional is read from the
// running log odds MCSAT keeps (recomputed exactly every resyncEvery
// steps; in between they differ from a recomputation in the last bits).
func (ch *Chain) Conditionals(cond []float64) {
	c, off := ch.c, ch.off
	if ch.cur != nil {
		ch.syncEntries()
	}
	for v := range c.x {
		u := int32(v)
		p := cond[off[v]:off[v+1]]
		switch {
		case c.observed(u):
			clear(p)
			p[c.ev[v]] = 1
		case c.g.Card[v] == 2 && ch.cur != nil:
			p1 := 0.0
			switch {
			case ch.z1[v] > 0:
			case ch.z0[v] > 0:
				p1 = 1
			default:
				p1 = 1 / (1 + math.Exp(-ch.lodds[v]))
			}
			p[0], p[1] = 1-p1, p1
		case c.g.Card[v] == 2:
			p1, _ := c.binaryCond(u)
			p[0], p[1] = 1-p1, p1
		default:
			w, _, total := c.weights(u)
			for s := range p {
				p[s] = w[s] / total
			}
		}
	}
}

// LogScore returns the log-score of the current world, Σ_f log φ_f(x)
// (−Inf when some factor is zero there): the scalar summary of the state
// whose mixing the samplers' diagnostics check.
func (ch *Chain) LogScore() float64 {
	c := ch.c
	s := 0.0
	if ch.cur != nil {
		ch.syncEntries()
		if ch.zeros > 0 {
			return math.Inf(-1)
		}
		return ch.score
	}
	if !ch.scTried {
		ch.scTried = true
		if useScoreCounts(c) {
			ch.sc = newScoreCounts(c)
		}
	}
	if ch.sc != nil {
		ch.sc.update(c)
		return ch.sc.score(c)
	}
	for f := range c.g.NumFactors() {
		s += c.logT[c.g.FactorTable[f]][c.entry(f, -1, 0)]
	}
	return s
}
