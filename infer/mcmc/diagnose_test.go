package mcmc

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// exactlyOne is three binary variables under a hard "exactly one" factor
// (symmetric: every one-hot world has weight 1): single-site Gibbs cannot
// move between its worlds.
func exactlyOne(t *testing.T) *fg.Graph {
	b := fg.NewBuilder()
	b.AddVars(3, 2)
	tab := make([]float64, 8)
	tab[1], tab[2], tab[4] = 1, 1, 1
	if _, err := b.AddFactor([]int32{0, 1, 2}, tab); err != nil {
		t.Fatal(err)
	}
	return b.Build()
}

func run(t *testing.T, method string, p infer.Properties, g *fg.Graph, seed uint64) *infer.Answer {
	t.Helper()
	alg, _, err := infer.New(method, p)
	if err != nil {
		t.Fatal(err)
	}
	c, err := lift.Ground(g, nil)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := alg.Run(context.Background(), c, infer.Query{Task: infer.Marginals, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return ans
}

// TestGibbsFrozenNamesTheRemedy (issue 25.3): Gibbs on a symmetric hard
// formula is refused, and the reason names the methods that cross it,
// not more samples; mcsat and bgibbs mix on it and match the exact 1/3.
func TestGibbsFrozenNamesTheRemedy(t *testing.T) {
	g := exactlyOne(t)
	ans := run(t, "gibbs", nil, g, 1)
	if ans.Converged {
		t.Fatalf("gibbs labelled mixed on an exactly-one constraint: %+v", ans.Stats)
	}
	why := ans.Stats.Mixing
	for _, w := range []string{"mcsat", "bgibbs", "more samples will not help"} {
		if !strings.Contains(why, w) {
			t.Errorf("reason %q does not say %q", why, w)
		}
	}
	if strings.Contains(why, "raise --samples") {
		t.Errorf("reason %q suggests more samples", why)
	}
	for _, m := range []string{"mcsat", "bgibbs"} {
		a := run(t, m, nil, g, 1)
		if !a.Converged {
			t.Errorf("%s not mixed: %s", m, a.Stats.Mixing)
		}
		for v := range 3 {
			if d := math.Abs(a.Marginal(v)[1] - 1.0/3); d > 4*a.StdErr[a.NodeOff[v]+1]+1e-3 {
				t.Errorf("%s: P(x%d) = %.4f ± %.4f, exact 1/3", m, v, a.Marginal(v)[1], a.StdErr[a.NodeOff[v]+1])
			}
		}
	}
}

// TestStdErrAndStats: every sampler fills StdErr parallel to Belief (the
// two states of a binary variable share it, observed variables have 0)
// and the diagnostics' statistics.
func TestStdErrAndStats(t *testing.T) {
	g := gen.FrustratedGrid(rand.New(rand.NewPCG(1, 1)), 3, 0.2, 0.5, 0.5)
	for _, m := range []string{"gibbs", "mcsat", "bgibbs", "tempering"} {
		a := run(t, m, nil, g, 2)
		if len(a.StdErr) != len(a.Belief) {
			t.Fatalf("%s: %d standard errors for %d beliefs", m, len(a.StdErr), len(a.Belief))
		}
		for v := range g.NumVars() {
			se := a.StdErr[a.NodeOff[v] : a.NodeOff[v]+2]
			if !(se[1] > 0) || se[0] != se[1] || math.IsInf(se[1], 0) {
				t.Errorf("%s: standard errors of variable %d: %v", m, v, se)
			}
		}
		st := a.Stats
		chains := DefaultChains
		if m == "tempering" {
			chains = TemperingChains
		}
		if need := float64(100 * chains); !a.Converged || st.RHat >= 1.01 || st.BulkESS < need || st.TailESS < need || st.Mixing != "" || st.Chains != chains {
			t.Errorf("%s on a weakly coupled grid: %+v", m, st)
		}
		if (m == "tempering") != (len(st.SwapRates) > 0 && len(st.SwapRates) == len(st.Temperatures)-1) {
			t.Errorf("%s: swap rates %v", m, st.SwapRates)
		}
	}
}

// TestTemperingGrid: on a frustrated 3×3 grid (|J| ∈ [2, 2.5]) that Gibbs
// does not mix on, tempering mixes and its marginals are within 4 stated
// standard errors of enumeration; the swap rates are in (0, 1].
func TestTemperingGrid(t *testing.T) {
	g := gen.FrustratedGrid(rand.New(rand.NewPCG(3, 4)), 3, 2, 2.5, 0.5)
	ex := brute.Solve(g, nil)
	if a := run(t, "gibbs", nil, g, 1); a.Converged {
		t.Errorf("gibbs labelled mixed on this grid (R-hat %.4f)", a.Stats.RHat)
	} else if !strings.Contains(a.Stats.Mixing, "--method tempering") {
		t.Errorf("gibbs's refusal on a soft grid does not name tempering: %s", a.Stats.Mixing)
	}
	a := run(t, "tempering", infer.Properties{"samples": "4000"}, g, 1)
	if !a.Converged {
		t.Fatalf("tempering not mixed: %s", a.Stats.Mixing)
	}
	for v := range g.NumVars() {
		se := a.StdErr[a.NodeOff[v]+1]
		if d := math.Abs(a.Marginal(v)[1] - ex.Marginals[v][1]); d > 4*se+1.0/float64(a.Stats.Samples) {
			t.Errorf("variable %d: %.4f ± %.4f, exact %.4f", v, a.Marginal(v)[1], se, ex.Marginals[v][1])
		}
	}
	for i, r := range a.Stats.SwapRates {
		if !(r > 0 && r <= 1) {
			t.Errorf("swap rate %d: %v", i, r)
		}
	}
	// a tempered ladder with base bgibbs also works
	b := run(t, "tempering", infer.Properties{"samples": "2000", "base": "bgibbs", "ladder": "1,2,4"}, g, 1)
	if len(b.Stats.SwapRates) != 2 || b.Stats.Clusters == 0 {
		t.Errorf("base bgibbs, ladder 1,2,4: %+v", b.Stats)
	}
}

func TestTemperingProperties(t *testing.T) {
	for _, p := range []infer.Properties{
		{"base": "mcsat"}, {"temperatures": "1"}, {"max-temperature": "1"}, {"ladder": "2,3"}, {"ladder": "1,3,2"}, {"ladder": "1,x"},
	} {
		if _, _, err := infer.New("tempering", p); err == nil {
			t.Errorf("tempering with %v: no error", p)
		}
	}
}

// TestTemperingResumes: a run that is not mixed is extended from where its
// chains are, so a run of 200 samples extended to 400 is the run of 400
// (same seed): the same estimate, bit for bit, and the same steps; and a
// work budget bounds the steps of a run and of its extension.
func TestTemperingResumes(t *testing.T) {
	g := gen.FrustratedGrid(rand.New(rand.NewPCG(5, 6)), 5, 2, 2.5, 0.5)
	ctx := context.Background()
	cfg := Config{Samples: 200, BurnIn: 50, Chains: 4, Seed: 7}
	first, err := SampleTempering(ctx, g, nil, cfg, Tempering{Base: Gibbs, Copies: 2})
	if err != nil {
		t.Fatal(err)
	}
	if first.Diag.Mixed {
		t.Skip("200 samples mixed: nothing to extend")
	}
	ext, err := SampleTempering(ctx, g, nil, cfg, Tempering{Base: Gibbs, Copies: 2, MaxSamples: 400})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Samples = 400
	one, err := SampleTempering(ctx, g, nil, cfg, Tempering{Base: Gibbs, Copies: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ext.Samples != one.Samples || ext.Sweeps != one.Sweeps || ext.Samples != 4*400 {
		t.Fatalf("extended: %d samples, %d sweeps; one run: %d samples, %d sweeps", ext.Samples, ext.Sweeps, one.Samples, one.Sweeps)
	}
	for i := range one.Mean {
		if ext.Mean[i] != one.Mean[i] {
			t.Fatalf("entry %d: extended %v, one run %v", i, ext.Mean[i], one.Mean[i])
		}
	}
	if ext.Diag != one.Diag {
		t.Errorf("diagnostics differ: extended %+v, one run %+v", ext.Diag, one.Diag)
	}
	// max-work: the kept and burn-in steps of all replicas stay within it
	cfg.Samples = 1000
	const work = 3e6
	w, err := SampleTempering(ctx, g, nil, cfg, Tempering{Base: Gibbs, Copies: 2, MaxSamples: 64000, MaxWork: work})
	if err != nil {
		t.Fatal(err)
	}
	if used := float64(w.Sweeps) * float64(g.NumEdges()); used > work {
		t.Errorf("max-work %g: the run visited %g edges (%d replica steps)", work, used, w.Sweeps)
	}
	if !w.Diag.Mixed && !strings.Contains(w.Diag.Why, "work budget") {
		t.Errorf("not mixed within max-work without saying so: %s", w.Diag.Why)
	}
}

// TestSamplerProgressDoubles: the progress total follows a run that goes
// on with doubled samples, so it never reads above 100%.
func TestSamplerProgressDoubles(t *testing.T) {
	var got []infer.Progress
	f := samplerProgress(func(p infer.Progress) { got = append(got, p) }, Config{Chains: 4, Samples: 1000, BurnIn: 100})
	for _, n := range []int{10, 4000, 4001, 8000, 14978, 16001} {
		f(n, 400, 1.1)
	}
	want := []int{4000, 4000, 8000, 8000, 16000, 32000}
	for i, p := range got {
		if p.SamplesTotal != want[i] || p.Samples > p.SamplesTotal {
			t.Errorf("report %d: %d of %d, want a total of %d", i, p.Samples, p.SamplesTotal, want[i])
		}
	}
}
