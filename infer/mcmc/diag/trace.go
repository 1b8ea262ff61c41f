package diag

// Trace keeps one chain's draws of Q quantities in bounded memory: the
// draws themselves while there are fewer than 2L of them, then means of
// consecutive batches of B draws (B doubling, 2L > points ≥ L), so that a
// long run stores at most 2L·Q numbers. The diagnostics of the batch means
// are those of a chain thinned by averaging: R-hat and the effective
// sample size of the batch series judge the same mean (the mean of the
// batch means is the mean of the draws they hold), and its Monte Carlo
// standard error is that of the batch series (Summary.MCSE); ESS of the
// draws themselves is ESS of the batch series times Var(draws)/Var(batch
// means), which Summarise does not know, so a batched Summary's sizes
// count batches (a conservative reading: they are smaller).
//
// Every batch mean is computed the same way, as a balanced binary tree of
// pairwise means ((x₁+x₂)/2 + (x₃+x₄)/2)/2 …, whether its draws arrived
// before a halving (which merges two points by the same rule) or after:
// batches holding equal draws have bit-for-bit equal means, and a
// quantity that is constant is constant in the trace. (A running sum
// divided by B would not be: the mean of 8 copies of x summed one by one
// can differ in the last bit from that of two means of 4, and the
// diagnostics would read that one-bit step between the early and the
// late points of a chain as a chain that drifts.)
type Trace struct {
	q, l  int
	batch int // draws per point (a power of two)
	level int // log2(batch)
	// stack[i] holds, when full[i], the pairwise mean of 2^i draws not yet
	// in a point (i < level): a binary counter of the current batch.
	stack [][]float64
	full  []bool
	carry []float64
	data  []float64 // points × q, row-major
}

// NewTrace returns a Trace of q quantities keeping between l and 2l
// points (l at least 2).
func NewTrace(q, l int) *Trace {
	l = max(l, 2)
	return &Trace{q: q, l: l, batch: 1, carry: make([]float64, q)}
}

// Add records one draw of the q quantities.
func (t *Trace) Add(x []float64) {
	copy(t.carry, x[:t.q])
	for i := 0; i < t.level; i++ {
		if !t.full[i] {
			copy(t.stack[i], t.carry)
			t.full[i] = true
			return
		}
		for j, v := range t.stack[i] {
			t.carry[j] = (v + t.carry[j]) / 2
		}
		t.full[i] = false
	}
	t.data = append(t.data, t.carry...)
	if t.Len() == 2*t.l {
		t.halve()
	}
}

// halve merges consecutive pairs of points, by the rule of Add; it is
// called with no batch in progress (a point was just emitted, which
// empties the stack, or Align dropped the partial batch).
func (t *Trace) halve() {
	n := t.Len() / 2
	for p := range n {
		a, b := t.data[2*p*t.q:(2*p+1)*t.q], t.data[(2*p+1)*t.q:(2*p+2)*t.q]
		dst := t.data[p*t.q : (p+1)*t.q]
		for j := range dst {
			dst[j] = (a[j] + b[j]) / 2
		}
	}
	t.data = t.data[:n*t.q]
	t.batch *= 2
	t.level++
	t.stack = append(t.stack, make([]float64, t.q))
	t.full = append(t.full, false)
}

// Len is the number of points kept; Batch the draws each averages.
func (t *Trace) Len() int { return len(t.data) / max(t.q, 1) }

// Batch is the number of draws each kept point averages.
func (t *Trace) Batch() int { return t.batch }

// Column returns quantity j's points (a copy).
func (t *Trace) Column(j int) []float64 {
	n := t.Len()
	out := make([]float64, n)
	for p := range n {
		out[p] = t.data[p*t.q+j]
	}
	return out
}

// Align halves the traces with the smaller batches until every trace has
// the largest batch of any (chains stopped by a time limit may differ), so
// that their points are comparable; the draws of a partial batch are
// dropped from the points (and the batch in progress is dropped: Align is
// for the end of a run).
func Align(ts []*Trace) {
	b := 0
	for _, t := range ts {
		b = max(b, t.batch)
	}
	for _, t := range ts {
		for t.batch < b {
			if t.Len()%2 == 1 {
				t.data = t.data[:(t.Len()-1)*t.q]
			}
			clear(t.full)
			t.halve()
		}
	}
}
