package count

import (
	"fmt"
	"math"
)

// BoundStatistic selects how BPCount combines the t estimates of its
// trials into a lower bound that holds with confidence 1 − 2^(−α·t).
type BoundStatistic int

const (
	// BoundProduct is the largest k-th root (Π_{i≤k} X_i / 2^(α·t))^(1/k),
	// k = 1..t, over the estimates X_i in trial order; for k = t it is the
	// geometric mean of all estimates divided by 2^α. The X_i are
	// independent with E[X_i] = #F, so M_k = Π_{i≤k} X_i/#F is a
	// non-negative martingale with M_0 = 1, and by Ville's maximal
	// inequality (Markov's inequality for every k at once)
	// P(max_k M_k ≥ 2^(α·t)) ≤ 2^(−α·t): the bound exceeds #F with at
	// most that probability. The geometric mean is never below the
	// minimum, so this bound is never below BoundMin's at the same
	// confidence, and it is hurt by one unlucky trial far less.
	BoundProduct BoundStatistic = iota
	// BoundMin is min(X_i)/2^α (SampleCount, Gomes et al. 2007; BPCount,
	// Kroc et al. 2008): each X_i/2^α exceeds #F with probability at most
	// 2^−α (Markov), all t of them with at most 2^(−α·t).
	BoundMin
)

// String returns "product" or "min".
func (b BoundStatistic) String() string {
	if b == BoundMin {
		return "min"
	}
	return "product"
}

// BoundStatistics maps the names of the statistics to their values.
var BoundStatistics = map[string]BoundStatistic{"product": BoundProduct, "min": BoundMin}

// LowerBound returns log10 of the lower bound given the log10 of the t
// estimates in trial order (-Inf for an estimate of 0), the slack α and the
// statistic: with confidence 1 − 2^(−α·t) the count is at least the result
// (-Inf: the bound is 0). The order must not depend on the estimates'
// values (BPCount's is the trial index).
func LowerBound(estLog10 []float64, alpha float64, stat BoundStatistic) float64 {
	t := float64(len(estLog10))
	if len(estLog10) == 0 {
		return math.Inf(-1)
	}
	if stat == BoundMin {
		lo := math.Inf(1)
		for _, e := range estLog10 {
			lo = math.Min(lo, e)
		}
		return lo - alpha*math.Log10(2)
	}
	logBeta := alpha * t * math.Log10(2)
	best, sum := math.Inf(-1), 0.0
	for k, e := range estLog10 {
		sum += e
		if math.IsInf(sum, -1) {
			break // every later product is 0 too
		}
		best = math.Max(best, (sum-logBeta)/float64(k+1))
	}
	return best
}

// Set parses "product" or "min" (a command-line flag value).
func (b *BoundStatistic) Set(s string) error {
	v, ok := BoundStatistics[s]
	if !ok {
		return fmt.Errorf("unknown bound statistic %q (want product or min)", s)
	}
	*b = v
	return nil
}

// Type names the flag value's type.
func (b *BoundStatistic) Type() string { return "product|min" }
