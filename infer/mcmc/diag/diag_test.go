package diag

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1 returns m chains of n draws of x_t = φ x_{t−1} + √(1−φ²) ε_t,
// started from the stationary N(0, 1): the integrated autocorrelation time
// is (1+φ)/(1−φ), so ESS = mn(1−φ)/(1+φ), and the mean's standard error
// is √(τ/(mn)).
func ar1(r *rand.Rand, m, n int, phi, shift float64) [][]float64 {
	out := make([][]float64, m)
	s := math.Sqrt(1 - phi*phi)
	for k := range out {
		x := r.NormFloat64()
		out[k] = make([]float64, n)
		for i := range out[k] {
			x = phi*x + s*r.NormFloat64()
			out[k][i] = x + shift
		}
	}
	return out
}

func TestAutocovMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{5, 16, 37} {
		x := make([]float64, n)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		mu := 0.0
		for _, v := range x {
			mu += v
		}
		mu /= float64(n)
		got := autocov(x)
		for lag := range n {
			want := 0.0
			for i := 0; i+lag < n; i++ {
				want += (x[i] - mu) * (x[i+lag] - mu)
			}
			want /= float64(n)
			if math.Abs(got[lag]-want) > 1e-12 {
				t.Fatalf("n=%d lag %d: autocov %v, direct %v", n, lag, got[lag], want)
			}
		}
	}
}

// TestESSAR1 checks ESS and bulk ESS against the closed form of AR(1)
// chains, over several replications (the estimate's own error is a few
// per cent at these lengths).
func TestESSAR1(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const m, n = 4, 4000
	for _, phi := range []float64{0, 0.5, 0.9} {
		want := float64(m*n) * (1 - phi) / (1 + phi)
		got, bulk := 0.0, 0.0
		const reps = 20
		for range reps {
			ch := ar1(r, m, n, phi, 0)
			got += ESS(ch)
			bulk += Summarise(ch).BulkESS
		}
		got /= reps
		bulk /= reps
		if math.Abs(got/want-1) > 0.08 {
			t.Errorf("φ=%v: mean ESS %.0f, closed form %.0f", phi, got, want)
		}
		// The rank normalisation is monotone and the chain Gaussian: the
		// bulk ESS is about the same.
		if math.Abs(bulk/want-1) > 0.1 {
			t.Errorf("φ=%v: mean bulk ESS %.0f, closed form %.0f", phi, bulk, want)
		}
	}
}

// TestMCSECoverage: the stated standard error of the mean of AR(1) chains
// covers the true mean 0 at about the normal rate, and agrees with the
// closed form √(τ/(mn)).
func TestMCSECoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const m, n, phi = 4, 2000, 0.8
	tau := (1 + phi) / (1 - phi)
	want := math.Sqrt(tau / float64(m*n))
	in2, reps := 0, 400
	se := 0.0
	for range reps {
		s := Summarise(ar1(r, m, n, phi, 0))
		se += s.MCSE
		if math.Abs(s.Mean) <= 2*s.MCSE {
			in2++
		}
	}
	se /= float64(reps)
	if math.Abs(se/want-1) > 0.08 {
		t.Errorf("mean MCSE %.4g, closed form %.4g", se, want)
	}
	// 95.4% nominal; 400 replications: binomial sd ≈ 1%.
	if frac := float64(in2) / float64(reps); frac < 0.91 || frac > 0.99 {
		t.Errorf("±2 MCSE covered the mean in %.3f of runs, want about 0.954", frac)
	}
}

// TestRHat: iid chains from one distribution give R-hat below 1.01 and
// pass; a chain shifted by one standard deviation, a chain with a larger
// scale (caught by the folded tail R-hat) and chains stuck in different
// constant states do not.
func TestRHat(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	iid := ar1(r, 4, 1000, 0, 0)
	s := Summarise(iid)
	if s.RHat >= 1.01 || !s.Pass() {
		t.Errorf("iid chains: %+v, want R-hat < 1.01 and a pass", s)
	}
	if math.Abs(s.BulkESS/4000-1) > 0.15 || math.Abs(s.TailESS/4000-1) > 0.25 {
		t.Errorf("iid chains: bulk ESS %.0f, tail ESS %.0f, want about 4000", s.BulkESS, s.TailESS)
	}
	shifted := ar1(r, 4, 1000, 0, 0)
	for i := range shifted[3] {
		shifted[3][i]++
	}
	if s := Summarise(shifted); s.RHat < 1.05 || s.Pass() {
		t.Errorf("one chain shifted by 1 sd: R-hat %.4f, pass %v", s.RHat, s.Pass())
	}
	wide := ar1(r, 4, 1000, 0, 0)
	for i := range wide[0] {
		wide[0][i] *= 3
	}
	b := rhat(rankNormal(split(wide), 0))
	if s := Summarise(wide); s.RHat < 1.05 || s.RHat <= b || s.Pass() {
		t.Errorf("one chain 3 times wider: R-hat %.4f (bulk %.4f), pass %v; want the tail R-hat to catch it", s.RHat, b, s.Pass())
	}
	// A drift within each chain: split halves disagree.
	drift := ar1(r, 4, 1000, 0, 0)
	for k := range drift {
		for i := range drift[k] {
			drift[k][i] += 2 * float64(i) / 1000
		}
	}
	if s := Summarise(drift); s.RHat < 1.05 {
		t.Errorf("drifting chains: R-hat %.4f, want the split to catch it", s.RHat)
	}
	stuck := [][]float64{{1, 1, 1, 1, 1, 1}, {0, 0, 0, 0, 0, 0}}
	if s := Summarise(stuck); !math.IsInf(s.RHat, 1) || s.Pass() {
		t.Errorf("chains stuck apart: %+v, want R-hat +Inf and no pass", s)
	}
	same := [][]float64{{1, 1, 1, 1, 1, 1}, {1, 1, 1, 1, 1, 1}}
	if s := Summarise(same); s.RHat != 1 || s.MCSE != 0 || !s.Pass() {
		t.Errorf("constant chains that agree: %+v, want R-hat 1, MCSE 0, pass", s)
	}
	// Slow chains: too few effective draws fail the ESS rule.
	slow := ar1(r, 4, 1000, 0.99, 0)
	if s := Summarise(slow); s.Pass() {
		t.Errorf("AR(1) φ=0.99 (closed-form ESS ≈ 20): %+v passes", s)
	}
}

// TestTrace: the batch means keep the mean, the number of points stays in
// [L, 2L), and the standard error from the batch series agrees with the
// closed form for AR(1) chains much longer than the trace.
func TestTrace(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const m, n, phi, L = 4, 50000, 0.9, 256
	tau := (1 + phi) / (1 - phi)
	want := math.Sqrt(tau / float64(m*n))
	se := 0.0
	const reps = 20
	for range reps {
		ch := ar1(r, m, n, phi, 0)
		ts := make([]*Trace, m)
		cols := make([][]float64, m)
		for k := range ch {
			ts[k] = NewTrace(1, L)
			sum := 0.0
			for _, x := range ch[k] {
				ts[k].Add([]float64{x})
				sum += x
			}
			if ts[k].Len() < L || ts[k].Len() >= 2*L {
				t.Fatalf("trace has %d points, want [%d, %d)", ts[k].Len(), L, 2*L)
			}
			cols[k] = ts[k].Column(0)
			used := ts[k].Len() * ts[k].Batch()
			bm := 0.0
			for _, x := range cols[k] {
				bm += x
			}
			direct := 0.0
			for _, x := range ch[k][:used] {
				direct += x
			}
			if math.Abs(bm/float64(ts[k].Len())-direct/float64(used)) > 1e-9 {
				t.Fatalf("mean of batch means %v, mean of draws %v", bm/float64(ts[k].Len()), direct/float64(used))
			}
		}
		se += Summarise(cols).MCSE
	}
	se /= reps
	// The batches hold 128 of 50000 draws... the used draws are a little
	// fewer than n; allow 12%.
	if math.Abs(se/want-1) > 0.12 {
		t.Errorf("MCSE from batch means %.4g, closed form %.4g", se, want)
	}
	// Align brings traces of different batch sizes together.
	a, b := NewTrace(1, 4), NewTrace(1, 4)
	for i := range 40 {
		a.Add([]float64{float64(i)})
	}
	for i := range 10 {
		b.Add([]float64{float64(i)})
	}
	Align([]*Trace{a, b})
	if a.Batch() != b.Batch() {
		t.Errorf("after Align: batches %d and %d", a.Batch(), b.Batch())
	}
}

// treeMean is the balanced pairwise mean of a power-of-two run of draws.
func treeMean(x []float64) float64 {
	if len(x) == 1 {
		return x[0]
	}
	h := len(x) / 2
	return (treeMean(x[:h]) + treeMean(x[h:])) / 2
}

// TestTraceConstant: a constant quantity stays bit-for-bit constant
// through the batching (with a running sum it did not: the mean of 8
// copies of 0.8175744761936437 summed one by one differs in the last bit
// from the mean of two means of 4, and R-hat read the early and late
// points of each chain as a drift: R-hat 1.17, ESS 9 on the
// Rao-Blackwellised P(Cancer(Anna)) of examples/mln/smokers.mln, which is
// constant), and every point is the pairwise-tree mean of its draws,
// whether made before or after a halving.
func TestTraceConstant(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, n := range []int{5100, 10000, 33333} {
		c := 0.81757447619364365
		tr := NewTrace(2, 512)
		var draws []float64
		for range n {
			x := r.Float64()
			draws = append(draws, x)
			tr.Add([]float64{c, x})
		}
		for _, y := range tr.Column(0) {
			if y != c {
				t.Fatalf("n=%d: a constant %v has a point %v in the trace", n, c, y)
			}
		}
		b := tr.Batch()
		for p, y := range tr.Column(1) {
			if want := treeMean(draws[p*b : (p+1)*b]); y != want {
				t.Fatalf("n=%d point %d: %v, pairwise mean of its %d draws %v", n, p, y, b, want)
			}
		}
		s := Summarise([][]float64{tr.Column(0), tr.Column(0)})
		if s.RHat != 1 || !math.IsInf(s.BulkESS, 1) || !s.Pass() {
			t.Fatalf("n=%d: constant quantity: %+v", n, s)
		}
	}
}

// TestNearTies: draws that differ only in their last bits (one value
// computed along different paths) are one value: constant in every
// chain and across them passes; across chains a real difference still
// fails (frozen).
func TestNearTies(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const v = 0.6229
	chains := make([][]float64, 4)
	for k := range chains {
		for i := range 400 {
			x := v
			if (i/50+k)%2 == 0 { // a slow, chain-dependent pattern of rounding
				x = math.Nextafter(v, 1)
			}
			if r.IntN(3) == 0 {
				x = math.Nextafter(x, 0)
			}
			chains[k] = append(chains[k], x)
		}
	}
	if s := Summarise(chains); s.RHat != 1 || !s.Pass() {
		t.Errorf("one value up to rounding: %+v", s)
	}
	chains[3] = make([]float64, 400)
	for i := range chains[3] {
		chains[3][i] = v + 1e-6
	}
	for k := range 3 {
		for i := range chains[k] {
			chains[k][i] = v
		}
	}
	if s := Summarise(chains); !math.IsInf(s.RHat, 1) || s.Pass() {
		t.Errorf("chains stuck 1e-6 apart: %+v", s)
	}
}

// TestSummariseTol: a probability known to within tol is judged to that
// precision: chains stuck at 9e-13 and 2e-12 are one value with tol 1e-9
// (and frozen without it), while chains stuck 1e-6 apart stay frozen.
func TestSummariseTol(t *testing.T) {
	stuck := func(a, b float64) [][]float64 {
		out := make([][]float64, 4)
		for k := range out {
			out[k] = make([]float64, 200)
			for i := range out[k] {
				out[k][i] = a
				if k >= 2 {
					out[k][i] = b
				}
			}
		}
		return out
	}
	if s := SummariseTol(stuck(8.97e-13, 1.94e-12), 1e-9); !s.Pass() || s.RHat != 1 {
		t.Errorf("stuck 1e-12 apart with tol 1e-9: %+v", s)
	}
	if s := Summarise(stuck(8.97e-13, 1.94e-12)); s.Pass() || !math.IsInf(s.RHat, 1) {
		t.Errorf("stuck 1e-12 apart with no tol: %+v", s)
	}
	if s := SummariseTol(stuck(0.2, 0.200001), 1e-9); s.Pass() || !math.IsInf(s.RHat, 1) {
		t.Errorf("stuck 1e-6 apart with tol 1e-9: %+v", s)
	}
}
