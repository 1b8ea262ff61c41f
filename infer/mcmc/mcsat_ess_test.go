package mcmc

import (
	"context"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/internal/brute"
)

// groundQuery grounds an MLN with the given query predicates.
func groundQuery(t *testing.T, src, db string, query ...string) *fg.Graph {
	t.Helper()
	m, err := mlnfile.Parse("m.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "m.db", m)
	if err != nil {
		t.Fatal(err)
	}
	gr, err := ground.Ground(context.Background(), m, d, ground.Options{Query: query})
	if err != nil {
		t.Fatal(err)
	}
	return gr.Graph
}

// dishesMLN is experiments/sampling/mcsat/dishes.mln: a functional block
// (each person orders one dish), soft rules and a hard one.
const dishesMLN = `person = {Ann, Bob, Cal}
dish = {Pasta, Soup}
orders(person, dish!)
likes(person, dish)
friends(person, person)
1.5 likes(x, d) => orders(x, d)
0.8 friends(x, y) ^ orders(x, d) => orders(y, d)
-0.4 friends(x, y)
0.6 orders(x, Soup)
friends(x, y) ^ orders(x, d) => likes(y, d).
`

const dishesDB = "friends(Ann, Bob)\n!likes(Cal, Soup)\n"

// TestMCSATStdErrHonest: the standard errors MC-SAT states (from the
// effective sample sizes of the diagnostics) match the spread of its
// estimates between seeds: over 24 seeds, for every marginal that varies,
// the standard deviation of the estimates across seeds is within a factor
// 1.5 of the root mean square of the stated standard errors (24 seeds
// estimate a standard deviation to about ±15%), and the seeds' mean is
// within 4 standard errors of the mean of the exact marginal by
// enumeration. On friends-and-smokers (examples/mln/smokers.mln) and the
// dishes model (a "!" block and a hard formula).
func TestMCSATStdErrHonest(t *testing.T) {
	if testing.Short() {
		t.Skip("24 seeds × 2 models")
	}
	smokers, err := os.ReadFile("../../examples/mln/smokers.mln")
	if err != nil {
		t.Skip("examples/mln/smokers.mln not found")
	}
	smokersDB, err := os.ReadFile("../../examples/mln/smokers.db")
	if err != nil {
		t.Skip("examples/mln/smokers.db not found")
	}
	models := []struct {
		name    string
		g       *fg.Graph
		samples int
	}{
		{"smokers", groundQuery(t, string(smokers), string(smokersDB), "Smokes", "Cancer"), 2000},
		{"dishes", groundQuery(t, dishesMLN, dishesDB, "orders", "likes"), 4000},
	}
	const seeds = 24
	for _, m := range models {
		ex := brute.Solve(m.g, nil)
		var est, se [][]float64 // per seed, per variable: P(v = 1) and its stated error
		for s := range seeds {
			res, err := Sample(context.Background(), m.g, nil, Config{Kernel: MCSAT, Samples: m.samples, BurnIn: 100, Chains: 4, Seed: uint64(100 + s)})
			if err != nil {
				t.Fatal(err)
			}
			var e, sd []float64
			for v := range m.g.NumVars() {
				e = append(e, res.Mean[res.Off[v]+1])
				sd = append(sd, res.StdErr[res.Off[v]+1])
			}
			est, se = append(est, e), append(se, sd)
		}
		checked := 0
		worst := 1.0
		for v := range m.g.NumVars() {
			mean, ms := 0.0, 0.0
			for s := range seeds {
				mean += est[s][v]
				ms += se[s][v] * se[s][v]
			}
			mean /= seeds
			rms := math.Sqrt(ms / seeds)
			spread := 0.0
			for s := range seeds {
				spread += (est[s][v] - mean) * (est[s][v] - mean)
			}
			spread = math.Sqrt(spread / (seeds - 1))
			if rms < 1e-9 && spread < 1e-9 {
				continue // a constant conditional
			}
			checked++
			ratio := spread / rms
			if math.Abs(math.Log(ratio)) > math.Abs(math.Log(worst)) {
				worst = ratio
			}
			if ratio > 1.5 || ratio < 1/1.5 {
				t.Errorf("%s variable %d: estimates spread %.4g between seeds, stated standard error %.4g (ratio %.2f)", m.name, v, spread, rms, ratio)
			}
			if d := math.Abs(mean - ex.Marginals[v][1]); d > 4*rms/math.Sqrt(seeds)+1e-9 {
				t.Errorf("%s variable %d: mean of %d seeds %.5f, exact %.5f (%.1f standard errors)", m.name, v, seeds, mean, ex.Marginals[v][1], d/(rms/math.Sqrt(seeds)))
			}
		}
		if checked < 5 {
			t.Fatalf("%s: only %d marginals vary", m.name, checked)
		}
		t.Logf("%s: %d marginals, worst spread/stated ratio %.2f", m.name, checked, worst)
	}
}
