package exact_test

import (
	"context"
	"math"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/lift"
)

// scriptedBP is a BP try whose convergence is scripted: it converges when
// its iteration limit reaches convergeAt (0: never), answering with real
// BP's beliefs; it records the limits it was run with.
type scriptedBP struct {
	name       string
	convergeAt int
	maxIter    int
	log        *[]string
	fallbacks  []infer.Fallback
}

func (s scriptedBP) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	*s.log = append(*s.log, s.name+" "+strconv.Itoa(s.maxIter))
	bp, _, err := infer.New("bp", infer.Properties{"max-iter": "20", "damping": "0.5"})
	if err != nil {
		return nil, err
	}
	ans, err := bp.Run(ctx, c, q)
	if err != nil {
		return nil, err
	}
	ans.Converged = s.convergeAt > 0 && s.maxIter >= s.convergeAt
	ans.Stats.Converged = ans.Converged
	ans.Stats.BPIterations = s.maxIter
	if ans.Converged {
		ans.Stats.BPIterations = s.convergeAt
	}
	return ans, nil
}

func (s scriptedBP) WithMaxIter(n int) infer.Algorithm { s.maxIter = n; return s }
func (s scriptedBP) MaxIterations() int                { return s.maxIter }
func (s scriptedBP) Fallbacks() []infer.Fallback       { return s.fallbacks }

// auto's BP slice: BP as asked and its first fallback (damping 0.5) share
// bp-iter iterations half and half (the later fallbacks are not run); a
// try that converges within its share answers; when none does, the
// sampler answers, and the reason says so; bp-iter 0 skips BP. The work
// is counted in iterations, not seconds, so the test does not depend on
// the machine's load.
func TestAutoBPSlice(t *testing.T) {
	g := isingGrid(30, 30, 5, 0.3) // treewidth 30: jtree refuses
	mk := func(asked, damped int, log *[]string) scriptedBP {
		return scriptedBP{name: "asked", convergeAt: asked, maxIter: 1000, log: log, fallbacks: []infer.Fallback{
			{Name: "damping=0.5", Algorithm: scriptedBP{name: "damping=0.5", convergeAt: damped, maxIter: 1000, log: log}},
			{Name: "damping=0.9", Algorithm: scriptedBP{name: "damping=0.9", convergeAt: 1, maxIter: 1000, log: log}},
		}}
	}
	run := func(a *exact.Auto) *infer.Answer {
		t.Helper()
		ans, err := infer.Run(context.Background(), a, g, nil, infer.Options{Lifted: true, Unconverged: infer.Retry})
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	for _, c := range []struct {
		name           string
		slice          int
		asked, damped  int
		wantLog        string
		wantMethod     string
		wantFallback   string
		wantIterations int
		reason         string
	}{
		{"as asked converges", 200, 30, 0, "asked 100", "lbp", "", 30, ""},
		{"damping converges in its half", 200, 0, 80, "asked 100,damping=0.5 100", "lbp", "damping=0.5", 180, ""},
		{"damping needs more than its half", 100, 0, 80, "asked 50,damping=0.5 50", "mcsat", "", 100, "did not converge within its slice of 100 iterations (tried as asked 50 iterations, damping=0.5 50 iterations)"},
		{"no slice: every fallback to its limit", 0, 0, 0, "asked 1000,damping=0.5 1000,damping=0.9 1000", "lbp", "damping=0.9", 2001, ""},
		{"bp-iter 0 skips BP", -1, 1, 1, "", "mcsat", "", 0, "lifted BP skipped"},
		// 900 unary and 1,740 pairwise factors: 4,380 edges (the grid is
		// not compressed); 2e5 edge updates cap the slice of 200 at 45.
		{"work cap", -2, 0, 0, "asked 22,damping=0.5 23", "mcsat", "", 45, "slice of 45 iterations"},
		{"work cap at least 20 iterations", -3, 0, 0, "asked 10,damping=0.5 10", "mcsat", "", 20, "slice of 20 iterations"},
	} {
		var log []string
		a := &exact.Auto{LBP: mk(c.asked, c.damped, &log), BPIter: c.slice, SamplerSamples: 50, Sampler: "mcsat", NoBPCheck: true}
		switch c.slice {
		case -2:
			a.BPIter, a.BPWork = 200, 2e5
		case -3:
			a.BPIter, a.BPWork = 200, 1
		}
		ans := run(a)
		if got := strings.Join(log, ","); got != c.wantLog {
			t.Errorf("%s: tries %q, want %q", c.name, got, c.wantLog)
		}
		if ans.Stats.Method != c.wantMethod || ans.Stats.Fallback != c.wantFallback || ans.Stats.BPIterations != c.wantIterations {
			t.Errorf("%s: method %q fallback %q iterations %d, want %q %q %d (%s)", c.name, ans.Stats.Method, ans.Stats.Fallback, ans.Stats.BPIterations, c.wantMethod, c.wantFallback, c.wantIterations, ans.Stats.MethodReason)
		}
		if !strings.Contains(ans.Stats.MethodReason, c.reason) {
			t.Errorf("%s: reason %q lacks %q", c.name, ans.Stats.MethodReason, c.reason)
		}
		if c.wantMethod == "mcsat" && (ans.Stats.Samples != 50*ans.Stats.Chains || ans.StdErr == nil || !strings.Contains(ans.Stats.MethodReason, "mcsat 50 samples per chain")) {
			t.Errorf("%s: %d samples in %d chains, standard errors %v: %s", c.name, ans.Stats.Samples, ans.Stats.Chains, ans.StdErr != nil, ans.Stats.MethodReason)
		}
	}
}

// wfomc's share: wfomc-work-per-atom per unknown atom within
// [MinWFOMCWork, wfomc-work].
func TestWFOMCWork(t *testing.T) {
	a := &exact.Auto{Work: 5e7, WorkPerAtom: 1e3}
	for _, c := range []struct {
		unknown, want float64
	}{{0, exact.MinWFOMCWork}, {4624, exact.MinWFOMCWork}, {9650, exact.MinWFOMCWork}, {15000, 1.5e7}, {2e4, 2e7}, {1e6, 5e7}, {math.Inf(1), 5e7}, {math.NaN(), 5e7}} {
		if got := a.WFOMCWork(c.unknown); got != c.want {
			t.Errorf("%g unknown atoms: %g, want %g", c.unknown, got, c.want)
		}
	}
	if got := (&exact.Auto{Work: 5e7}).WFOMCWork(10); got != 5e7 {
		t.Errorf("no per-atom share: %g, want the whole work", got)
	}
	if got := (&exact.Auto{Work: 1e6, WorkPerAtom: 1e3}).WFOMCWork(10); got != 1e6 {
		t.Errorf("work below the floor: %g, want the work", got)
	}
}

// auto's own properties reach Auto; bad values are refused by name.
func TestAutoProperties(t *testing.T) {
	alg, _, err := infer.New("auto", infer.Properties{"bp-iter": "0", "sampler": "gibbs", "cpu-budget": "3", "wfomc-work-per-atom": "0", "wfomc-work": "2e6", "budget": "2", "max-table": "1e8", "sampler-samples": "7", "max-iter": "40"})
	if err != nil {
		t.Fatal(err)
	}
	a := alg.(*exact.Auto)
	if a.BPIter != -1 || a.Sampler != "gibbs" || a.CPUBudget != 3*time.Second || a.WorkPerAtom != 0 || a.Work != 2e6 || a.Budget != 2*time.Second || a.JTree.MaxTable != 1e8 || a.SamplerSamples != 7 {
		t.Errorf("%+v", a)
	}
	def, _, err := infer.New("auto", nil)
	if err != nil {
		t.Fatal(err)
	}
	d := def.(*exact.Auto)
	if d.BPIter != 400 || d.BPWork != 1e8 || d.Sampler != "auto" || d.CPUBudget != 0 || d.SamplerWork != exact.DefaultSamplerWork || d.WorkPerAtom != exact.DefaultWFOMCWorkPerAtom || d.Work != exact.DefaultWFOMCWork || d.Budget != 0 || d.SamplerTime != 0 {
		t.Errorf("defaults %+v", d)
	}
	for k, v := range map[string]string{"bp-work": "-1", "bp-iter": "-1", "sampler": "lbp", "cpu-budget": "-1", "sampler-work": "0", "wfomc-work-per-atom": "x", "wfomc-work": "-1", "budget": "-1", "max-table": "1", "sampler-samples": "-2", "sampler-time": "-1"} {
		if _, _, err := infer.New("auto", infer.Properties{k: v}); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
}

// Every answer auto gives on its approximate path is either converged BP
// or a sampler's estimate whose claim holds: on random frustrated 4×5
// Ising grids (2^20 states: enumeration is the truth; jtree is kept out by
// max-table 2) with a BP slice too short for BP, the sampler answers with
// standard errors, and when it says its chains mixed, at least 95% of the
// marginals are within 4 standard errors + 1/N of the exact ones and none
// is off by more than 0.1 (internal/calib's rule); when it says not
// mixed, the answer is marked not converged.
func TestAutoSamplerClaimsHold(t *testing.T) {
	for _, sampler := range []string{"auto", "mcsat"} {
		pairs, within, mixed := 0, 0, 0
		for i := range 3 {
			g := isingGrid(4, 5, uint64(27+i), 0.5)
			truth := brute.Solve(g, nil).Marginals
			for seed := range uint64(2) {
				alg, _, err := infer.New("auto", infer.Properties{"max-table": "2", "max-total": "2", "bp-iter": "2", "sampler-samples": "6000", "sampler": sampler})
				if err != nil {
					t.Fatal(err)
				}
				ans, err := infer.Run(context.Background(), alg, g, nil, infer.Options{Lifted: true, Query: infer.Query{Task: infer.Marginals, Seed: seed}, Unconverged: infer.Retry})
				if err != nil {
					t.Fatal(err)
				}
				want := sampler
				if want == "auto" {
					want = "gibbs" // couplings 0.5–0.625: no factor near-deterministic
				}
				if ans.Stats.Method != want || ans.StdErr == nil {
					if ans.Stats.Method == "lbp" && ans.Converged {
						continue // converged BP: its claim is convergence
					}
					t.Fatalf("grid %d: %s (converged %v): %s", i, ans.Stats.Method, ans.Converged, ans.Stats.MethodReason)
				}
				if !ans.Converged {
					t.Logf("grid %d seed %d: %s (R-hat %.3g)", i, seed, ans.Stats.MethodReason, ans.Stats.RHat)
					if !strings.Contains(ans.Stats.MethodReason, "NOT mixed") {
						t.Errorf("grid %d seed %d: not mixed but the reason does not say so: %s", i, seed, ans.Stats.MethodReason)
					}
					continue
				}
				mixed++
				n := float64(ans.Stats.Samples)
				for v := range g.NumVars() {
					d := math.Abs(ans.Marginal(v)[1] - truth[v][1])
					se := ans.StdErr[ans.NodeOff[ans.Graph.NodeOf[v]]+1]
					pairs++
					if d <= 4*se+1/n {
						within++
					}
					if d > 0.1 {
						t.Errorf("grid %d seed %d: labelled mixed, variable %d off by %.3f", i, seed, v, d)
					}
				}
			}
		}
		if mixed == 0 {
			t.Fatalf("%s: no run labelled mixed: the check is vacuous", sampler)
		}
		if f := float64(within) / float64(pairs); f < 0.95 {
			t.Errorf("%s: %d/%d marginals within 4 SE + 1/N (%.3f), want ≥ 0.95", sampler, within, pairs, f)
		}
		t.Logf("%s: %d mixed runs, %d/%d within 4 SE + 1/N", sampler, mixed, within, pairs)
	}
}

// ChooseSampler: MC-SAT where a factor is deterministic (a zero) or
// nearly so (entries e^5 or more apart), Gibbs otherwise.
func TestChooseSampler(t *testing.T) {
	for _, c := range []struct {
		j    float64
		want string
	}{{0.5, "gibbs"}, {2.4, "mcsat"}, {1, "gibbs"}} {
		g := isingGrid(3, 3, 1, c.j) // couplings j to 1.25·j: entries e^±J
		if got, why := exact.ChooseSampler(g); got != c.want {
			t.Errorf("couplings %g: %s (%s), want %s", c.j, got, why, c.want)
		}
	}
	b := fg.NewBuilder()
	b.AddVars(2, 2)
	if _, err := b.AddFactor([]int32{0, 1}, []float64{1, 0, 1, 1}); err != nil {
		t.Fatal(err)
	}
	if got, _ := exact.ChooseSampler(b.Build()); got != "mcsat" {
		t.Errorf("a zero entry: %s, want mcsat", got)
	}
	// One deterministic factor among 200 soft ones (an auxiliary atom's
	// definition in a softly weighted model): Gibbs (under 5%).
	b = fg.NewBuilder()
	b.AddVars(201, 2)
	if _, err := b.AddFactor([]int32{0, 1}, []float64{1, 0, 1, 1}); err != nil {
		t.Fatal(err)
	}
	for v := range int32(200) {
		if _, err := b.AddFactor([]int32{v, v + 1}, []float64{2, 1, 1, 2}); err != nil {
			t.Fatal(err)
		}
	}
	if got, why := exact.ChooseSampler(b.Build()); got != "gibbs" {
		t.Errorf("one deterministic factor in 201: %s (%s), want gibbs", got, why)
	}
}

// The default sampler budget is work, not time: the samples each chain
// keeps follow from the edges alone (SamplerSweeps), and two runs with the
// same seed give the same bits whatever the cores (GOMAXPROCS 1 and 4)
// and however long the machine takes.
func TestAutoSamplerWorkDeterministic(t *testing.T) {
	g := isingGrid(4, 5, 27, 0.5)
	cost := exact.StepWork("gibbs", g, nil)
	if cost < float64(g.NumEdges()) {
		t.Fatalf("a Gibbs step visits %v edges, fewer than the %d of the graph", cost, g.NumEdges())
	}
	burn, keep := exact.SamplerSweeps(0, exact.SamplerChains, cost)
	steps := int(exact.DefaultSamplerWork / exact.SamplerChains / cost)
	if keep != exact.MaxSamplerSamples || burn != 100 || steps < burn+keep {
		t.Errorf("SamplerSweeps on %d edges: burn-in %d, samples %d (steps %d)", g.NumEdges(), burn, keep, steps)
	}
	if b, k := exact.SamplerSweeps(4*1e6*400, 4, 1e6); b != 100 || k != 300 {
		t.Errorf("400 steps per chain: burn-in %d, samples %d, want 100 and 300", b, k)
	}
	if b, k := exact.SamplerSweeps(4*1e6*100, 4, 1e6); b != exact.MinSamplerSteps/4 || k != exact.MinSamplerSteps*3/4 {
		t.Errorf("100 steps per chain, under the floor of %d: burn-in %d, samples %d", exact.MinSamplerSteps, b, k)
	}
	if _, k := exact.SamplerSweeps(1, 4, cost); k != exact.MinSamplerSamples {
		t.Errorf("tiny budget: %d samples, want the floor %d", k, exact.MinSamplerSamples)
	}
	run := func(procs int) *infer.Answer {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		alg, _, err := infer.New("auto", infer.Properties{"max-table": "2", "max-total": "2", "bp-iter": "2", "sampler-work": "2e6"})
		if err != nil {
			t.Fatal(err)
		}
		ans, err := infer.Run(context.Background(), alg, g, nil, infer.Options{Lifted: true, Query: infer.Query{Task: infer.Marginals, Seed: 3}, Unconverged: infer.Retry})
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	a, b := run(1), run(4)
	if a.Stats.Method != "gibbs" || a.Stats.TimeLimited {
		t.Fatalf("%s (time-limited %v): %s", a.Stats.Method, a.Stats.TimeLimited, a.Stats.MethodReason)
	}
	_, keep = exact.SamplerSweeps(2e6, exact.SamplerChains, cost)
	if a.Stats.Samples != keep*exact.SamplerChains || a.Stats.Samples != b.Stats.Samples {
		t.Errorf("samples %d and %d, want %d", a.Stats.Samples, b.Stats.Samples, keep*exact.SamplerChains)
	}
	for i := range a.Belief {
		if math.Float64bits(a.Belief[i]) != math.Float64bits(b.Belief[i]) {
			t.Fatalf("belief %d: %v with GOMAXPROCS 1, %v with 4", i, a.Belief[i], b.Belief[i])
		}
	}
}

// The probe (ProbeShare, ProbeRHat): on a strongly frustrated grid (no
// zero entries, the exact methods ruled out) auto's sampler is far from
// mixed on a quarter of sampler-work, so it spends no more of it and the
// escalation (tempering) answers, the reason saying so and the first
// sampler's samples those of the probe's share; on a weakly coupled grid the probe
// mixes and the full run follows (TestAutoSamplerWorkDeterministic: its
// samples are the whole budget's).
func TestAutoProbe(t *testing.T) {
	g := isingGrid(6, 6, 5, 2.5)
	alg, _, err := infer.New("auto", infer.Properties{"max-table": "2", "max-total": "2", "bp-iter": "0", "sampler-work": "4e6", "escalate-work": "1e6"})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := infer.Run(context.Background(), alg, g, nil, infer.Options{Query: infer.Query{Task: infer.Marginals, Seed: 3}})
	if err != nil {
		t.Fatal(err)
	}
	r := ans.Stats.MethodReason
	if !strings.Contains(r, "1/4 of sampler-work") || !strings.Contains(r, "far from mixed") || !strings.Contains(r, "then tempering") {
		t.Fatalf("%s: %s", ans.Stats.Method, r)
	}
	name, _ := exact.ChooseSampler(g)
	cost := exact.StepWork(name, g, nil)
	_, keep := exact.SamplerSweeps(4e6/exact.ProbeShare, exact.SamplerChains, cost)
	if want := strconv.Itoa(keep) + " samples per chain"; !strings.Contains(r, want) {
		t.Errorf("the probe's samples: want %q in %s", want, r)
	}
}
