package count

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
)

// violation returns P(bound > log10 #F) exactly for t independent
// estimates, each drawn from the discrete distribution (value log10 est[j]
// with probability prob[j]), by enumerating every t-tuple.
func violation(est, prob []float64, t int, alpha float64, stat BoundStatistic, countLog10 float64) float64 {
	idx := make([]int, t)
	tuple := make([]float64, t)
	total := 0.0
	for {
		p := 1.0
		for i, j := range idx {
			tuple[i], p = est[j], p*prob[j]
		}
		if LowerBound(tuple, alpha, stat) > countLog10+1e-12 {
			total += p
		}
		i := 0
		for ; i < t; i++ {
			idx[i]++
			if idx[i] < len(est) {
				break
			}
			idx[i] = 0
		}
		if i == t {
			return total
		}
	}
}

// TestLowerBoundConfidenceTwoPoint: an estimate that is #F/p with
// probability p and 0 otherwise is the extreme case of Markov's inequality.
// Over a grid of p the probability that the bound exceeds #F, computed
// exactly, must stay at most 2^(−α·t) for both statistics, and come within
// 10% of it (the statistics use their confidence fully: a constant too
// small or too large fails one of the checks).
func TestLowerBoundConfidenceTwoPoint(t *testing.T) {
	for _, stat := range []BoundStatistic{BoundProduct, BoundMin} {
		for _, trials := range []int{1, 2, 3, 5} {
			for _, alpha := range []float64{0.5, 1, 2} {
				limit := math.Exp2(-alpha * float64(trials))
				worst := 0.0
				for k := 1; k <= 2000; k++ {
					p := float64(k) / 2000
					v := violation([]float64{math.Log10(1 / p), math.Inf(-1)}, []float64{p, 1 - p}, trials, alpha, stat, 0)
					if v > limit*(1+1e-9) {
						t.Fatalf("%v, t=%d, α=%g, p=%g: P(bound > #F) = %g > %g", stat, trials, alpha, p, v, limit)
					}
					worst = max(worst, v)
				}
				if worst < 0.9*limit {
					t.Errorf("%v, t=%d, α=%g: largest P(bound > #F) %g, far below the confidence's %g", stat, trials, alpha, worst, limit)
				}
			}
		}
	}
}

// TestLowerBoundProductAtLeastMin: the product statistic is never below the
// minimum one (the geometric mean is at least the minimum) and handles
// estimates of 0: a 0 after the first trial leaves the prefixes before it.
func TestLowerBoundProductAtLeastMin(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	l2 := math.Log10(2)
	for range 1000 {
		n := 1 + r.IntN(8)
		est := make([]float64, n)
		for i := range est {
			est[i] = 30 + 3*r.NormFloat64()
			if r.IntN(10) == 0 {
				est[i] = math.Inf(-1)
			}
		}
		alpha := 0.25 + 2*r.Float64()
		p, m := LowerBound(est, alpha, BoundProduct), LowerBound(est, alpha, BoundMin)
		if p < m-1e-12 || math.IsNaN(p) {
			t.Fatalf("%v α=%g: product %v below min %v", est, alpha, p, m)
		}
		// the k = t term: geometric mean / 2^α
		sum := 0.0
		for _, e := range est {
			sum += e
		}
		if g := sum/float64(n) - alpha*l2; p < g-1e-12 {
			t.Fatalf("%v: product %v below the geometric mean's %v", est, p, g)
		}
		if math.IsInf(est[0], -1) != math.IsInf(p, -1) {
			t.Fatalf("%v: product %v; 0 exactly when the first estimate is", est, p)
		}
	}
	if got, want := LowerBound([]float64{10, 12}, 1, BoundProduct), 11-l2; math.Abs(got-want) > 1e-12 {
		t.Errorf("product of 10^10, 10^12: %v, want %v", got, want)
	}
	if got, want := LowerBound([]float64{10, 12}, 1, BoundMin), 10-l2; math.Abs(got-want) > 1e-12 {
		t.Errorf("min of 10^10, 10^12: %v, want %v", got, want)
	}
	// (10^12 · 10^-Inf): only the first prefix, 10^12 / 2^(1·2)
	if got, want := LowerBound([]float64{12, math.Inf(-1)}, 1, BoundProduct), 12-2*l2; math.Abs(got-want) > 1e-12 {
		t.Errorf("10^12 then 0: %v, want %v", got, want)
	}
}

// pathDistribution enumerates every outcome of the random draws of one
// trial: the log10 estimate of each path and its probability.
func pathDistribution(t *testing.T, b *bpCounter) (est, prob []float64) {
	var walk func(prefix []bool)
	walk = func(prefix []bool) {
		flips := 0
		tr, err := b.trial(context.Background(), 0, func(q float64) bool {
			k := flips
			flips++
			return k >= len(prefix) || prefix[k]
		})
		if err != nil {
			t.Fatal(err)
		}
		logP := 0.0
		for _, s := range tr.Steps {
			logP += math.Log10(s.Prob)
		}
		est, prob = append(est, tr.EstimateLog10), append(prob, math.Pow(10, logP))
		for k := len(prefix); k < flips; k++ {
			next := append(append([]bool(nil), prefix...), make([]bool, k-len(prefix)+1)...)
			for j := len(prefix); j < k; j++ {
				next[j] = true
			}
			walk(next)
		}
	}
	walk(nil)
	return est, prob
}

// TestLowerBoundConfidenceExact: on small formulas, the exact distribution
// of one trial's estimate (every path of BPCount's and LBPCount's draws,
// with made-up marginals for a wide spread) gives the exact probability that
// the bound of t trials exceeds the count; it must be at most 2^(−α·t) for
// both statistics, and the product statistic must not be below the min.
func TestLowerBoundConfidenceExact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 4))
	checked, paths, worst := 0, 0, 0.0
	for i := 0; checked < 60; i++ {
		nv := 5 + r.IntN(6)
		c := bpRandomCNF(r, nv, nv+r.IntN(2*nv))
		want := bruteForce(c)
		if want == 0 {
			continue
		}
		opt := testOptions(0)
		opt.Lifted = i%2 == 1
		opt.MinProb = []float64{0.05, 0.25}[i/2%2]
		b, err := newBPCounter(c, opt)
		if err != nil {
			t.Fatal(err)
		}
		testMarginals = nil
		if i%3 != 0 {
			testMarginals = func(p1 []float64) {
				for v := range p1 {
					p1[v] = 0.5 + 0.49*math.Sin(float64(5*v+i))
				}
			}
		}
		est, prob := pathDistribution(t, b)
		testMarginals = nil
		if len(est) > 60 {
			continue
		}
		sum, total := 0.0, 0.0
		for j := range est {
			total += prob[j]
			if !math.IsInf(est[j], -1) {
				sum += prob[j] * math.Pow(10, est[j])
			}
		}
		if math.Abs(total-1) > 1e-9 || math.Abs(sum-float64(want)) > 1e-9*float64(want) {
			t.Fatalf("formula %d: paths' probabilities sum to %v, E[estimate] %v, count %d", i, total, sum, want)
		}
		lw := math.Log10(float64(want))
		for _, cf := range []struct {
			t     int
			alpha float64
		}{{2, 1}, {3, 0.5}, {2, 2}} {
			limit := math.Exp2(-cf.alpha * float64(cf.t))
			for _, stat := range []BoundStatistic{BoundProduct, BoundMin} {
				v := violation(est, prob, cf.t, cf.alpha, stat, lw)
				if v > limit*(1+1e-9) {
					t.Fatalf("formula %d (%d paths), %v, t=%d, α=%g: P(bound > #F) = %g > %g", i, len(est), stat, cf.t, cf.alpha, v, limit)
				}
				worst = max(worst, v/limit)
			}
		}
		checked++
		paths += len(est)
	}
	t.Logf("%d formulas, %d paths; largest P(bound > #F) / 2^(−α·t) = %.3f", checked, paths, worst)
	if paths < 100 || worst == 0 {
		t.Errorf("too little spread to test: %d paths, largest ratio %v", paths, worst)
	}
}

// TestBoundStatisticFlag: the flag value parses its two names, refuses
// others, and BPCount reports the statistic it used.
func TestBoundStatisticFlag(t *testing.T) {
	var b BoundStatistic
	for name, want := range BoundStatistics {
		if err := b.Set(name); err != nil || b != want || b.String() != name {
			t.Errorf("Set(%q): %v, %v", name, b, err)
		}
	}
	if err := b.Set("mean"); err == nil {
		t.Error("Set(\"mean\") accepted")
	}
	o := DefaultBPCountOptions()
	o.Bound = BoundStatistic(7)
	if o.Check() == nil || checkBPCountOptions(&o) == nil {
		t.Error("an unknown statistic passed the checks")
	}
	c := bpRandomCNF(rand.New(rand.NewPCG(3, 3)), 8, 10)
	for _, stat := range []BoundStatistic{BoundProduct, BoundMin} {
		o := testOptions(0)
		o.Bound = stat
		r, err := BPCount(context.Background(), c, o)
		if err != nil {
			t.Fatal(err)
		}
		est := make([]float64, len(r.Trials))
		for i, tr := range r.Trials {
			est[i] = tr.EstimateLog10
		}
		if r.Bound != stat || r.LowerBoundLog10 != LowerBound(est, o.Alpha, stat) {
			t.Errorf("%v: result statistic %v, bound %v", stat, r.Bound, r.LowerBoundLog10)
		}
	}
}
