// Package diag is the convergence diagnostics of Markov chain Monte Carlo
// runs: the rank-normalised split-R-hat, the bulk and tail effective sample
// sizes and the Monte Carlo standard error of a mean, as Vehtari, Gelman,
// Simpson, Carpenter and Bürkner define them ("Rank-normalization,
// folding, and localization: an improved R-hat for assessing convergence
// of MCMC", Bayesian Analysis 16(2), 2021), and the rule by which a run is
// called mixed.
//
// Every function takes the draws of one scalar quantity as one slice per
// chain (chains[k][i]: chain k's i-th draw). Chains of different lengths
// are cut to the shortest; every chain is split into its two halves (the
// middle draw of an odd length dropped), so that a chain that drifts shows
// as two chains that disagree.
//
// # The rule (Mixed)
//
// A quantity passes when its R-hat is below RHatMax (1.01) and its bulk
// and tail effective sample sizes are at least ESSPerChain (100) times the
// number of chains (the paper's recommendation: R-hat < 1.01 and, with
// four chains, ESS > 400). A run is mixed when every quantity it reports
// (and the log-score of the state) passes. A quantity that is constant in
// every chain and equal across chains (up to rounding: draws within a
// relative 1e-12 are one value, tieTol) passes (R-hat 1, ESS +Inf: there is
// no sampling error); one that is constant within chains but differs
// between them fails (R-hat +Inf): the chains are stuck in different
// states.
package diag

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/dsp/fourier"
	"gonum.org/v1/gonum/stat/distuv"
)

// The thresholds of Mixed.
const (
	RHatMax     = 1.01
	ESSPerChain = 100
)

// Summary is the diagnostics of one quantity.
type Summary struct {
	Mean float64 // the mean of all draws used
	// RHat is the rank-normalised split-R-hat: the larger of that of the
	// rank-normalised draws (bulk) and that of the rank-normalised
	// distances from the median (tail). +Inf when the split chains are
	// each constant but not all equal; 1 when every draw is equal.
	RHat float64
	// BulkESS is the effective sample size of the rank-normalised split
	// chains; TailESS the smaller of those of the indicators of the draws
	// at most the 5% and the 95% quantile. +Inf for a constant quantity.
	BulkESS, TailESS float64
	// ESS is the effective sample size of the mean (of the draws
	// themselves, split chains) and MCSE = sd/√ESS the Monte Carlo
	// standard error of Mean (0 for a constant quantity).
	ESS, MCSE float64
	// Chains is the number of chains (before splitting) and Draws the
	// draws used per chain.
	Chains, Draws int
}

// Pass reports whether the quantity passes the rule of Mixed with the
// given number of chains.
func (s Summary) Pass() bool {
	need := float64(ESSPerChain * s.Chains)
	return s.RHat < RHatMax && s.BulkESS >= need && s.TailESS >= need
}

// Summarise computes every diagnostic of one quantity. It needs at least
// two chains' worth of split chains of two draws (two chains of four
// draws, or one of eight); with fewer, R-hat is +Inf and the sizes 0.
func Summarise(chains [][]float64) Summary { return SummariseTol(chains, 0) }

// SummariseTol is Summarise of a quantity known only to within tol
// (absolute): draws within tol of each other (or within tieTol relative)
// are one value. A probability that is below 1e-12 in every draw, where
// the chains differ only in whether a neighbour made it 9e-13 or 2e-12,
// is then constant (its estimate is good to tol whatever the chains do)
// instead of frozen; whether the neighbour mixed is the neighbour's own
// quantity's question.
func SummariseTol(chains [][]float64, tol float64) Summary {
	sp := split(chains)
	s := Summary{Chains: len(chains)}
	if len(sp) > 0 {
		s.Draws = 2 * len(sp[0])
	}
	n := 0
	for _, c := range sp {
		n += len(c)
		for _, x := range c {
			s.Mean += x
		}
	}
	if len(sp) < 2 || len(sp[0]) < 2 {
		s.Mean /= float64(max(n, 1))
		if n == 0 {
			s.Mean = math.NaN()
		}
		s.RHat, s.MCSE = math.Inf(1), math.Inf(1)
		return s
	}
	s.Mean /= float64(n)
	if constant(sp, tol) {
		s.RHat, s.BulkESS, s.TailESS, s.ESS = 1, math.Inf(1), math.Inf(1), math.Inf(1)
		return s
	}
	if frozen(sp, tol) {
		s.RHat, s.MCSE = math.Inf(1), math.Inf(1)
		return s
	}
	z := rankNormal(sp, tol)
	fold := make([][]float64, len(sp))
	med := median(sp)
	for k, c := range sp {
		fold[k] = make([]float64, len(c))
		for i, x := range c {
			fold[k][i] = math.Abs(x - med)
		}
	}
	s.RHat = max(rhat(z), rhat(rankNormal(fold, tol)))
	s.BulkESS = ess(z)
	s.TailESS = min(ess(indicator(sp, quantile(sp, 0.05), tol)), ess(indicator(sp, quantile(sp, 0.95), tol)))
	s.ESS = ess(sp)
	sd := 0.0
	for _, c := range sp {
		for _, x := range c {
			sd += (x - s.Mean) * (x - s.Mean)
		}
	}
	sd = math.Sqrt(sd / float64(n-1))
	s.MCSE = sd / math.Sqrt(s.ESS)
	if math.IsInf(s.ESS, 1) {
		s.MCSE = 0
	}
	return s
}

// SplitRHat is the rank-normalised split-R-hat of Summarise.
func SplitRHat(chains [][]float64) float64 { return Summarise(chains).RHat }

// ESS is the effective sample size of the draws themselves over the given
// chains, not split (Geyer's initial monotone sequence on the combined
// autocorrelations, as in the paper's equation (10) and Stan): +Inf for
// constant draws. Used by tests against closed forms; Summarise splits.
func ESS(chains [][]float64) float64 { return ess(trim(chains)) }

// trim cuts every chain to the shortest length.
func trim(chains [][]float64) [][]float64 {
	if len(chains) == 0 {
		return nil
	}
	n := len(chains[0])
	for _, c := range chains {
		n = min(n, len(c))
	}
	out := make([][]float64, len(chains))
	for k, c := range chains {
		out[k] = c[:n]
	}
	return out
}

// split cuts the chains to the shortest and splits each in halves.
func split(chains [][]float64) [][]float64 {
	tc := trim(chains)
	if len(tc) == 0 {
		return nil
	}
	h := len(tc[0]) / 2
	out := make([][]float64, 0, 2*len(tc))
	for _, c := range tc {
		out = append(out, c[:h], c[len(c)-h:])
	}
	return out
}

// frozen reports whether every chain is constant (the chains not all
// equal: constant is checked first).
func frozen(chains [][]float64, tol float64) bool {
	for _, c := range chains {
		if !constant([][]float64{c}, tol) {
			return false
		}
	}
	return true
}

// constant reports whether every draw is the same number up to rounding
// (tied: all within tol or tieTol of the smallest).
func constant(chains [][]float64, tol float64) bool {
	lo, hi := chains[0][0], chains[0][0]
	for _, c := range chains {
		for _, x := range c {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	return tied(lo, hi, tol)
}

// tieTol is the relative difference (to max(1, |x|)) below which two
// draws count as one value: a quantity that is the same number computed
// along different paths (a conditional probability that sums the same
// terms in another order) differs in its last bits, and the ranks must
// not read that rounding as information. A quantity whose draws all lie
// so close has a mean known to that precision whatever the chain does.
const tieTol = 1e-12

// tied reports whether a ≤ b are the same value up to tieTol (relative)
// or tol (absolute).
func tied(a, b, tol float64) bool {
	return b-a <= max(tol, tieTol*max(1, math.Abs(a), math.Abs(b)))
}

// rhat is the (basic) R-hat of equal-length chains: with W the mean of the
// chains' variances and B/n the variance of their means,
// sqrt(((n−1)/n·W + B/n)/W). +Inf when W is 0 and B is not; 1 when both
// are 0.
func rhat(chains [][]float64) float64 {
	m, n := len(chains), len(chains[0])
	means := make([]float64, m)
	w := 0.0
	for k, c := range chains {
		mu := 0.0
		for _, x := range c {
			mu += x
		}
		mu /= float64(n)
		means[k] = mu
		v := 0.0
		for _, x := range c {
			v += (x - mu) * (x - mu)
		}
		w += v / float64(n-1)
	}
	w /= float64(m)
	b := variance(means) // B/n
	const tiny = 1e-300
	if w <= tiny {
		if b > tiny {
			return math.Inf(1)
		}
		return 1
	}
	return math.Sqrt(((float64(n)-1)/float64(n)*w + b) / w)
}

// variance is the sample variance (n−1 denominator) of xs.
func variance(xs []float64) float64 {
	if len(xs) < 2 {
		return 0
	}
	mu := 0.0
	for _, x := range xs {
		mu += x
	}
	mu /= float64(len(xs))
	v := 0.0
	for _, x := range xs {
		v += (x - mu) * (x - mu)
	}
	return v / float64(len(xs)-1)
}

// rankNormal replaces every draw by Φ⁻¹((r − 3/8)/(S + 1/4)), r its rank
// among all S draws (ties, draws within tieTol of the smallest of their
// run, get their average rank).
func rankNormal(chains [][]float64, tol float64) [][]float64 {
	type item struct {
		x    float64
		k, i int32
	}
	var all []item
	for k, c := range chains {
		for i, x := range c {
			all = append(all, item{x, int32(k), int32(i)})
		}
	}
	slices.SortFunc(all, func(a, b item) int {
		switch {
		case a.x < b.x:
			return -1
		case a.x > b.x:
			return 1
		}
		return 0
	})
	out := make([][]float64, len(chains))
	for k, c := range chains {
		out[k] = make([]float64, len(c))
	}
	S := float64(len(all))
	for lo := 0; lo < len(all); {
		hi := lo + 1
		for hi < len(all) && tied(all[lo].x, all[hi].x, tol) {
			hi++
		}
		r := float64(lo+1+hi) / 2 // average of ranks lo+1..hi
		z := distuv.UnitNormal.Quantile((r - 0.375) / (S + 0.25))
		for _, it := range all[lo:hi] {
			out[it.k][it.i] = z
		}
		lo = hi
	}
	return out
}

func pooled(chains [][]float64) []float64 {
	var all []float64
	for _, c := range chains {
		all = append(all, c...)
	}
	slices.Sort(all)
	return all
}

func median(chains [][]float64) float64 { return quantile(chains, 0.5) }

// quantile is the p-quantile of all draws (linear interpolation between
// order statistics, R's type 7).
func quantile(chains [][]float64, p float64) float64 {
	all := pooled(chains)
	h := p * float64(len(all)-1)
	lo := int(math.Floor(h))
	if lo+1 >= len(all) {
		return all[len(all)-1]
	}
	return all[lo] + (h-float64(lo))*(all[lo+1]-all[lo])
}

// indicator is 1 where a draw is at most q, or tied with it (tol): one
// value computed along different paths must fall on one side.
func indicator(chains [][]float64, q, tol float64) [][]float64 {
	out := make([][]float64, len(chains))
	for k, c := range chains {
		out[k] = make([]float64, len(c))
		for i, x := range c {
			if x <= q || tied(q, x, tol) {
				out[k][i] = 1
			}
		}
	}
	return out
}

// autocov returns the biased autocovariances (divided by n) of x at lags
// 0..n−1, by FFT of the centred series padded with zeros to twice its
// length.
func autocov(x []float64) []float64 {
	n := len(x)
	mu := 0.0
	for _, v := range x {
		mu += v
	}
	mu /= float64(n)
	m := 2 * n
	w := getFFT(m)
	defer fftPool(m).Put(w)
	seq := w.seq
	for i, v := range x {
		seq[i] = v - mu
	}
	clear(seq[n:])
	c := w.ft.Coefficients(w.coef, seq)
	for i, v := range c {
		c[i] = complex(real(v)*real(v)+imag(v)*imag(v), 0)
	}
	seq = w.ft.Sequence(seq, c)
	out := make([]float64, n)
	for i := range out {
		out[i] = seq[i] / (float64(m) * float64(n))
	}
	return out
}

// fftWork is an FFT of one length with its buffers. Planning an FFT
// (its twiddle factors) cost as much as the transforms themselves when
// every quantity's every chain planned its own (UW-CSE's 4,624 marginals:
// 0.6 of 2.3 CPU s in autocov), so plans are kept per length, in a pool
// because the diagnostics run on several goroutines.
type fftWork struct {
	ft   *fourier.FFT
	seq  []float64
	coef []complex128
}

var fftPools sync.Map // length → *sync.Pool of *fftWork

func fftPool(m int) *sync.Pool {
	if p, ok := fftPools.Load(m); ok {
		return p.(*sync.Pool)
	}
	p, _ := fftPools.LoadOrStore(m, &sync.Pool{New: func() any {
		return &fftWork{ft: fourier.NewFFT(m), seq: make([]float64, m), coef: make([]complex128, m/2+1)}
	}})
	return p.(*sync.Pool)
}

func getFFT(m int) *fftWork { return fftPool(m).Get().(*fftWork) }

// ess is the effective sample size of equal-length chains (the paper's
// equations (10)–(11), as Stan and ArviZ compute it): the autocorrelation
// at lag t combined over the chains, ρ_t = 1 − (W − mean_k acov_k(t))/var⁺,
// summed in pairs while the pair sums stay positive (Geyer's initial
// positive sequence) and made monotone; τ = −1 + 2Σρ_t, at least
// 1/log10(mn), and ESS = mn/τ. +Inf for constant draws.
func ess(chains [][]float64) float64 {
	m, n := len(chains), len(chains[0])
	if n < 4 {
		return 0
	}
	acov := make([][]float64, m)
	means := make([]float64, m)
	meanVar := 0.0
	for k, c := range chains {
		acov[k] = autocov(c)
		for _, x := range c {
			means[k] += x
		}
		means[k] /= float64(n)
		meanVar += acov[k][0]
	}
	meanVar /= float64(m)
	meanVar *= float64(n) / float64(n-1) // W
	varPlus := meanVar * float64(n-1) / float64(n)
	if m > 1 {
		varPlus += variance(means)
	}
	if varPlus <= 0 {
		return math.Inf(1)
	}
	rhoAt := func(t int) float64 {
		s := 0.0
		for k := range m {
			s += acov[k][t]
		}
		return 1 - (meanVar-s/float64(m))/varPlus
	}
	rho := make([]float64, n)
	even, odd := 1.0, rhoAt(1)
	rho[0], rho[1] = even, odd
	t := 1
	for t < n-3 && even+odd > 0 {
		even, odd = rhoAt(t+1), rhoAt(t+2)
		if even+odd >= 0 {
			rho[t+1], rho[t+2] = even, odd
		}
		t += 2
	}
	maxT := t - 2
	if even > 0 {
		rho[maxT+1] = even
	}
	for t := 1; t <= maxT-2; t += 2 {
		if rho[t+1]+rho[t+2] > rho[t-1]+rho[t] {
			rho[t+1] = (rho[t-1] + rho[t]) / 2
			rho[t+2] = rho[t+1]
		}
	}
	total := float64(m * n)
	tau := -1.0
	for _, r := range rho[:maxT+1] {
		tau += 2 * r
	}
	tau += rho[maxT+1]
	tau = max(tau, 1/math.Log10(total))
	return total / tau
}
