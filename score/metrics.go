package score

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
)

// DefaultClip is the clipping of probabilities in the conditional
// log-likelihood: to [1e-4, 1-1e-4], as Lowd and Domingos (PKDD 2007) and
// the UW-CSE literature do, so that one atom given probability 0 does not
// make the mean -Inf.
const DefaultClip = 1e-4

// Num is a float64 that encodes NaN (a metric that is undefined, such as
// AUC-PR without a true atom) as JSON null.
type Num float64

// MarshalJSON writes x, or null for NaN or ±Inf.
func (x Num) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads a number, or null as NaN.
func (x *Num) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*x = Num(math.NaN())
		return nil
	}
	var f float64
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	*x = Num(f)
	return nil
}

// Metrics are the scores of probabilities p[i] = P(atom i is true) against
// the true values y[i].
type Metrics struct {
	Atoms     int `json:"atoms"`      // atoms scored
	Positives int `json:"true_atoms"` // of those, the true ones
	// CLL is the conditional log-likelihood: the mean over the atoms of
	// log P(the atom's true value), probabilities clipped (see CLL).
	CLL Num `json:"cll"`
	// AUCPR is the area under the precision-recall curve, Davis and
	// Goadrich's interpolation (see AUCPR); NaN without a true atom.
	AUCPR Num `json:"auc_pr"`
	// AUCROC is the area under the ROC curve (ties count one half); NaN
	// without a true or without a false atom.
	AUCROC Num `json:"auc_roc"`
	// Accuracy and F1 classify an atom as true when p ≥ 0.5. F1 is NaN
	// when there is neither a true atom nor a predicted one.
	Accuracy Num `json:"accuracy"`
	F1       Num `json:"f1"`
	// Brier is the mean squared error (p − y)².
	Brier Num `json:"brier"`
}

// Compute returns every metric of p against y (equal lengths), with the
// conditional log-likelihood's probabilities clipped to [clip, 1−clip]
// (clip ≤ 0: not clipped).
func Compute(p []float64, y []bool, clip float64) Metrics {
	m := Metrics{Atoms: len(p)}
	tp, fp, fn, tn := 0, 0, 0, 0
	brier := 0.0
	for i := range p {
		t := 0.0
		if y[i] {
			m.Positives++
			t = 1
		}
		brier += (p[i] - t) * (p[i] - t)
		switch pred := p[i] >= 0.5; {
		case pred && y[i]:
			tp++
		case pred:
			fp++
		case y[i]:
			fn++
		default:
			tn++
		}
	}
	n := float64(len(p))
	m.CLL = Num(CLL(p, y, clip))
	m.AUCPR = Num(AUCPR(p, y))
	m.AUCROC = Num(AUCROC(p, y))
	m.Accuracy = Num(float64(tp+tn) / n)
	m.Brier = Num(brier / n)
	m.F1 = Num(math.NaN())
	if d := 2*tp + fp + fn; d > 0 {
		m.F1 = Num(2 * float64(tp) / float64(d))
	}
	return m
}

// CLL returns the mean of log P(y[i]) (log p[i] where y[i], log(1−p[i])
// where not), each probability first clipped to [clip, 1−clip] when clip
// > 0. NaN for no atoms.
func CLL(p []float64, y []bool, clip float64) float64 {
	if len(p) == 0 {
		return math.NaN()
	}
	s := 0.0
	for i := range p {
		q := p[i]
		if clip > 0 {
			q = min(max(q, clip), 1-clip)
		}
		if y[i] {
			s += math.Log(q)
		} else {
			s += math.Log1p(-q)
		}
	}
	return s / float64(len(p))
}

// confusion is a point of the ranking: the true and false atoms at or
// above a threshold.
type confusion struct{ tp, fp float64 }

// thresholds returns the confusion at every distinct probability, from
// the highest down (tied atoms enter together), and the numbers of true
// and false atoms.
func thresholds(p []float64, y []bool) (pts []confusion, pos, neg float64) {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] > p[b]:
			return -1
		case p[a] < p[b]:
			return 1
		}
		return 0
	})
	var c confusion
	for k, i := range idx {
		if y[i] {
			c.tp++
		} else {
			c.fp++
		}
		if k == len(idx)-1 || p[idx[k+1]] != p[i] {
			pts = append(pts, c)
		}
	}
	return pts, c.tp, c.fp
}

// PRPoint is a point of a precision-recall curve.
type PRPoint struct {
	Recall    float64 `json:"recall"`
	Precision float64 `json:"precision"`
}

// PRCurve returns the precision-recall curve of p against y with Davis and
// Goadrich's interpolation (ICML 2006; their AUCCalculator's): a point per
// distinct probability (tied atoms are ranked together, never broken by
// their labels), the points with no true atom dropped; if the first point
// has more than one true atom, a point at one true atom with the same
// precision is put before it; between consecutive points A and B the
// curve passes through one point per true atom, TP_A + k true and FP_A +
// k·(FP_B − FP_A)/(TP_B − TP_A) false (precision is not linear in recall
// between them). nil without a true atom.
func PRCurve(p []float64, y []bool) []PRPoint {
	pts, pos, _ := thresholds(p, y)
	if pos == 0 {
		return nil
	}
	for len(pts) > 0 && pts[0].tp == 0 {
		pts = pts[1:]
	}
	if f := pts[0]; f.tp > 1 {
		pts = append([]confusion{{1, f.fp / f.tp}}, pts...)
	}
	var out []PRPoint
	add := func(c confusion) {
		out = append(out, PRPoint{c.tp / pos, c.tp / (c.tp + c.fp)})
	}
	add(pts[0])
	for i := 1; i < len(pts); i++ {
		a, b := pts[i-1], pts[i]
		if b.tp == a.tp { // only false atoms came in
			add(b)
			continue
		}
		slope := (b.fp - a.fp) / (b.tp - a.tp)
		for k := 1.0; a.tp+k < b.tp; k++ {
			add(confusion{a.tp + k, a.fp + k*slope})
		}
		add(b)
	}
	return out
}

// AUCPR returns the area under PRCurve: the rectangle from recall 0 to the
// first point at its precision, then the trapezoids between consecutive
// points (AUCCalculator's calculateAUCPR with minimum recall 0). NaN
// without a true atom.
func AUCPR(p []float64, y []bool) float64 {
	c := PRCurve(p, y)
	if c == nil {
		return math.NaN()
	}
	a := c[0].Recall * c[0].Precision
	for i := 1; i < len(c); i++ {
		a += (c[i].Recall - c[i-1].Recall) * (c[i].Precision + c[i-1].Precision) / 2
	}
	return a
}

// AUCROC returns the area under the ROC curve (true-positive rate against
// false-positive rate, ties grouped, straight lines between the points):
// the probability that a random true atom has a higher probability than a
// random false one, ties counting one half. NaN without a true or a false
// atom.
func AUCROC(p []float64, y []bool) float64 {
	pts, pos, neg := thresholds(p, y)
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	a := 0.0
	var prev confusion
	for _, c := range pts {
		a += (c.fp - prev.fp) * (c.tp + prev.tp) / 2
		prev = c
	}
	return a / (pos * neg)
}
