package bp_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
)

// multistableModel is evidenceModel's shape with strong attractive
// couplings and weak, nearly cancelling unary fields: ground BP has
// several stable fixed points (clusters of variables that lean either way),
// and the unary fields, which the approximations round, decide which one
// BP from uniform messages ends at.
func multistableModel(r *rand.Rand, n int) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(n, 2)
	for v := 0; v < n; v++ {
		h := 0.25 * (2*r.Float64() - 1)
		if _, err := b.AddFactor([]int32{int32(v)}, []float64{1, math.Exp(h)}); err != nil {
			panic(err)
		}
	}
	for v := 1; v < n; v++ {
		for k := 1 + r.IntN(2); k > 0; k-- {
			w := max(0, v-1-r.IntN(8)) // mostly local: clusters with their own basins
			a := []float64{0.9, 1.3}[r.IntN(2)]
			if _, err := b.AddFactor([]int32{int32(w), int32(v)}, []float64{math.Exp(a), 1, 1, math.Exp(a)}); err != nil {
				panic(err)
			}
		}
	}
	return b.Build()
}

// The check's statement (bp.CheckError) against ground BP run to
// convergence from uniform messages, over random models and the
// approximations of infer.Approximations: the stated mean error must be at
// least the actual mean |marginal − ground BP| (up to the warm run's
// tolerance) in every case, on evidence-heavy models (evidenceModel) and
// on models with several stable fixed points (multistableModel), where
// lifted BP on a compression whose rounded fields tip a whole cluster of
// variables the other way ends in another basin than ground BP, decided
// beyond any atom's neighbourhood. There the other starts (CheckOptions.Starts)
// carry the statement: the test requires that such basin jumps occur (else
// it tests little) and that without the other starts the statement misses
// at least one of them (else they are not what makes it hold).
func TestCheckCalibration(t *testing.T) {
	ctx := context.Background()
	opt := bp.DefaultOptions()
	opt.Damping = 0.5
	opt.Tol = 1e-11
	opt.MaxIter = 20000
	seeds := 3
	if testing.Short() {
		seeds = 2
	}
	var cases, held, jumps [2]int
	var stated, actuals [2]float64
	missedAlone := 0
	for seed := 0; seed < seeds; seed++ {
		r := rand.New(rand.NewPCG(uint64(seed), 91))
		for kind, g := range []*fg.Graph{evidenceModel(r, 300+r.IntN(200)), multistableModel(r, 200+r.IntN(200))} {
			ref := runGround(t, g, nil, opt)
			if !ref.Converged {
				continue
			}
			alg := bp.New(opt)
			for _, a := range infer.Approximations[:4] {
				c, _, err := a.Compress(ctx, nil, g, nil, infer.Options{}.Colour)
				if err != nil {
					t.Fatal(err)
				}
				ans, err := alg.Run(ctx, c, infer.Query{})
				if err != nil || !ans.Converged {
					continue
				}
				s, err := bp.CheckError(ctx, ans, g, nil, bp.CheckOptions{Damping: opt.Damping, Seed: uint64(seed)})
				if err != nil {
					t.Errorf("seed %d kind %d %v: %v", seed, kind, a, err)
					continue
				}
				// The warm fixed point against ground BP's: the basin
				// jump no run from the lifted messages sees.
				w := warmFixedPoint(t, ans, g, opt.Damping)
				actual, jump := 0.0, 0.0
				for v := 0; v < g.NumVars(); v++ {
					actual += math.Abs(ans.Marginal(v)[1] - ref.Marginal(v)[1])
					jump = max(jump, math.Abs(w[v]-ref.Marginal(v)[1]))
				}
				actual /= float64(g.NumVars())
				cases[kind]++
				stated[kind] += s.Hi
				actuals[kind] += actual
				// The warm run stops at a largest message change of
				// 1e-4 (damping 0.5: within about 2e-4 of its fixed point).
				if s.Hi >= actual-1e-3 {
					held[kind]++
				} else {
					t.Errorf("seed %d kind %d %v: stated %.4g (warm %.4g, others %.4g from %d starts, basin %.4g, flagged %d) below the actual %.4g (basin jump %.3g)", seed, kind, a, s.Hi, s.Warm, s.Others, s.Starts, s.Basin, s.Flagged, actual, jump)
				}
				if jump > 0.01 {
					jumps[kind]++
					alone, err := bp.CheckError(ctx, ans, g, nil, bp.CheckOptions{Damping: opt.Damping, Seed: uint64(seed), Starts: -1})
					if err != nil {
						t.Fatal(err)
					}
					if alone.Hi < actual-1e-3 {
						missedAlone++
					}
				}
			}
		}
	}
	t.Logf("evidence-heavy: held in %d of %d cases (%d basin jumps; stated %.3g, actual %.3g on average); multistable: held in %d of %d (%d basin jumps, %d missed without the other starts; stated %.3g, actual %.3g on average)",
		held[0], cases[0], jumps[0], stated[0]/float64(max(1, cases[0])), actuals[0]/float64(max(1, cases[0])),
		held[1], cases[1], jumps[1], missedAlone, stated[1]/float64(max(1, cases[1])), actuals[1]/float64(max(1, cases[1])))
	if cases[0] == 0 || cases[1] == 0 {
		t.Fatalf("cases %v: the test tests little", cases)
	}
	if jumps[1] == 0 || missedAlone == 0 {
		t.Fatalf("%d multistable cases had a basin jump, %d missed without the other starts: the test tests little", jumps[1], missedAlone)
	}
}

// warmFixedPoint returns P(x_v = 1) at ground BP's fixed point reached
// from the lifted messages of ans, run to 1e-10.
func warmFixedPoint(t *testing.T, ans *infer.Answer, g *fg.Graph, damping float64) []float64 {
	t.Helper()
	s, err := bp.CheckError(context.Background(), ans, g, nil, bp.CheckOptions{Damping: damping, Tol: 1e-10, MaxIter: 20000, MaxSample: 1})
	if err != nil {
		t.Fatal(err)
	}
	w := make([]float64, g.NumVars())
	for v := range w {
		w[v] = s.WarmBP.Marginal(v)[1]
	}
	return w
}

// CheckOptions.Reject stops the check once its statement exceeds it, with
// what was stated so far above it; a Reject above the full statement
// changes nothing.
func TestCheckReject(t *testing.T) {
	ctx := context.Background()
	opt := bp.DefaultOptions()
	opt.Damping = 0.5
	g := multistableModel(rand.New(rand.NewPCG(3, 91)), 300)
	c, _, err := infer.Approximations[0].Compress(ctx, nil, g, nil, infer.Options{}.Colour)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := bp.New(opt).Run(ctx, c, infer.Query{})
	if err != nil {
		t.Fatal(err)
	}
	full, err := bp.CheckError(ctx, ans, g, nil, bp.CheckOptions{Damping: opt.Damping})
	if err != nil {
		t.Fatal(err)
	}
	if full.Stopped || full.Hi <= full.Warm || !full.Census {
		t.Fatalf("full check: %+v", full)
	}
	same, _ := bp.CheckError(ctx, ans, g, nil, bp.CheckOptions{Damping: opt.Damping, Reject: full.Hi + 1e-9})
	if same.Stopped || same.Hi != full.Hi {
		t.Fatalf("reject above the statement: %v (stopped %v), full %v", same.Hi, same.Stopped, full.Hi)
	}
	for _, r := range []float64{full.Warm / 2, (full.Warm + full.Hi) / 2} {
		s, _ := bp.CheckError(ctx, ans, g, nil, bp.CheckOptions{Damping: opt.Damping, Reject: r})
		if !s.Stopped || !(s.Hi > r) || s.Hi > full.Hi+1e-12 {
			t.Fatalf("reject %v: stated %v (stopped %v), full %v", r, s.Hi, s.Stopped, full.Hi)
		}
	}
}

// Under CheckOptions.Reject the basin runs stop early once the sample so
// far decides (SequentialZ). On populations shaped like UW-CSE's basin
// excesses (4681 atoms, a few dozen near 1, the rest small), over many
// random orders: where the population's statement (global part + mean)
// exceeds the tolerance, the rule must accept in at most 5% of the runs,
// in each case (the decision's error); where it is at least a fifth below, the
// accepted upper end must cover it in at least 95% of the early accepts
// (nearer the tolerance the accepted runs are those whose sample ran low:
// the upper end may fall below the statement, which is still within the
// tolerance); early refusals must be right in 95%; early stops must
// happen (else the test tests little), and a census must state the
// population mean exactly.
func TestCheckSequential(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const n = 4681
	var early, covered, farAccepts, farCovered, refused, right, census, above, wrongAccepts int
	for _, c := range []struct {
		jumps          int
		global, reject float64
	}{{30, 0.003, 0.01}, {30, 0.003, 0.02}, {30, 0.009, 0.015}, {30, 0.0095, 0.015}, {30, 0.003, 0.0085}, {60, 0.003, 0.01},
		{5, 0.003, 0.01}, {0, 0.002, 0.01}, {30, 0.003, 0.005}} {
		pop := make([]float64, n)
		for i := range pop {
			pop[i] = 0.002 * r.Float64()
			if i < c.jumps {
				pop[i] = 0.5 + 0.5*r.Float64()
			}
		}
		mean := 0.0
		for _, x := range pop {
			mean += x
		}
		mean /= n
		total := c.global + mean
		e0, c0, w0 := early, covered, wrongAccepts
		for run := 0; run < 200; run++ {
			r.Shuffle(n, func(i, j int) { pop[i], pop[j] = pop[j], pop[i] })
			i := 0
			m, hi, k, acc, ref := bp.SequentialRule(n, c.global, c.reject, func() float64 { i++; return pop[i-1] })
			if total > c.reject {
				above++
				if acc {
					wrongAccepts++
				}
			}
			switch {
			case acc:
				early++
				if hi >= total {
					covered++
				}
				if total <= 0.8*c.reject {
					farAccepts++
					if hi >= total {
						farCovered++
					}
				}
				if k >= n || hi > c.reject {
					t.Fatalf("accepted with k %d, upper end %v above %v", k, hi, c.reject)
				}
			case ref && k < n:
				refused++
				if total > c.reject {
					right++
				}
			case !ref:
				census++
				if k != n || math.Abs(m-mean) > 1e-12 {
					t.Fatalf("census: k %d mean %v, population %v", k, m, mean)
				}
			}
		}
		t.Logf("%+v: statement %.4g: early accepts %d, covering %d; wrong accepts %d", c, total, early-e0, covered-c0, wrongAccepts-w0)
		if wrongAccepts-w0 > 10 {
			t.Errorf("%+v: the statement %.4g is above the tolerance, accepted in %d of 200 runs", c, total, wrongAccepts-w0)
		}
	}
	t.Logf("early accepts %d (upper end covering %d; %d of %d far below the tolerance), wrong accepts %d of %d runs above it, early refusals %d (right %d), censuses %d",
		early, covered, farCovered, farAccepts, wrongAccepts, above, refused, right, census)
	if farAccepts < 200 || refused < 100 || census == 0 || above < 200 {
		t.Fatalf("early accepts %d, refusals %d, censuses %d, runs above %d: the test tests little", farAccepts, refused, census, above)
	}
	if float64(wrongAccepts) > 0.05*float64(above) || float64(farCovered) < 0.95*float64(farAccepts) || float64(right) < 0.95*float64(refused) {
		t.Fatalf("wrong accepts %d of %d, covered %d of %d early accepts far below, right in %d of %d early refusals", wrongAccepts, above, farCovered, farAccepts, right, refused)
	}
}
