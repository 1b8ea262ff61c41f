package exact_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/lift"
)

// frustratedGrid is an r×c Ising grid with couplings of random sign and
// size 2–2.5 and fields in ±0.5 (issue 23's grids: samplers stick in one
// mode and BP does not converge).
func frustratedGrid(r, c int, seed uint64) *fg.Graph { return isingGrid(r, c, seed, 2) }

// isingGrid is frustratedGrid with couplings of size j0 to 1.25·j0.
func isingGrid(r, c int, seed uint64, j0 float64) *fg.Graph {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := fg.NewBuilder()
	b.AddVars(r*c, 2)
	for v := range r * c {
		h := rng.Float64() - 0.5
		if _, err := b.AddFactor([]int32{int32(v)}, []float64{math.Exp(-h), math.Exp(h)}); err != nil {
			panic(err)
		}
	}
	pair := func(u, v int) {
		j := j0 * (1 + 0.25*rng.Float64())
		if rng.IntN(2) == 0 {
			j = -j
		}
		if _, err := b.AddFactor([]int32{int32(u), int32(v)}, []float64{math.Exp(j), math.Exp(-j), math.Exp(-j), math.Exp(j)}); err != nil {
			panic(err)
		}
	}
	for i := range r {
		for k := range c {
			v := i*c + k
			if k+1 < c {
				pair(v, v+1)
			}
			if i+1 < r {
				pair(v, v+c)
			}
		}
	}
	return b.Build()
}

func runAutoGraph(t *testing.T, g *fg.Graph, ev fg.Evidence, props infer.Properties) (*infer.Answer, error) {
	t.Helper()
	alg, meth, err := infer.New("auto", props)
	if err != nil {
		t.Fatal(err)
	}
	return infer.Run(context.Background(), alg, g, ev, infer.Options{Lifted: meth.Lifted, Unconverged: infer.Refuse})
}

func checkGraph(t *testing.T, g *fg.Graph, ev fg.Evidence, ans *infer.Answer) {
	t.Helper()
	b := brute.Solve(g, ev)
	worst := 0.0
	for v := range g.NumVars() {
		for s, p := range ans.Marginal(v) {
			worst = max(worst, math.Abs(p-b.Marginals[v][s]))
		}
	}
	if worst > 1e-9 {
		t.Errorf("max |Δ marginal| %v against enumeration", worst)
	}
	if math.Abs(ans.LogZ-b.LogZ) > 1e-9*max(1, math.Abs(b.LogZ)) || ans.LogZKind != infer.Exact {
		t.Errorf("log Z %v (%v), enumeration %v", ans.LogZ, ans.LogZKind, b.LogZ)
	}
}

// Frustrated grids are answered exactly by default: the 4×4 one by
// enumeration (2^16 states), the 4×5 one and a 4×5 one with evidence by
// the junction tree; each against internal/brute.
func TestAutoFrustratedGridsExact(t *testing.T) {
	for _, c := range []struct {
		r, c   int
		ev     bool
		method string
	}{{4, 4, false, "enumerate"}, {4, 5, false, "jtree"}, {4, 5, true, "jtree"}} {
		t.Run(fmt.Sprintf("%dx%d evidence=%v", c.r, c.c, c.ev), func(t *testing.T) {
			g := frustratedGrid(c.r, c.c, 3)
			var ev fg.Evidence
			if c.ev {
				ev = make(fg.Evidence, g.NumVars())
				for v := range ev {
					ev[v] = -1
				}
				ev[0], ev[7] = 1, 0
			}
			ans, err := runAutoGraph(t, g, ev, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ans.Stats.Method != c.method || ans.Stats.MethodReason == "" {
				t.Fatalf("method %q (%s), want %s", ans.Stats.Method, ans.Stats.MethodReason, c.method)
			}
			t.Log(ans.Stats.MethodReason)
			checkGraph(t, g, ev, ans)
		})
	}
}

// An MLN where every person orders exactly one dish (a mutual-exclusion
// block per person) and friends' orders are coupled through a formula of
// three logical variables (beyond wfomc): 21 unknown atoms, 2^21 joint
// states but 3^7 worlds of positive weight; auto answers exactly by the
// junction tree (each block one table of 8 entries), not by BP.
func TestAutoFunctionalBlocksExact(t *testing.T) {
	src := `person = {A, B, C, D, E, F, G}
dish = {Pizza, Pasta, Salad}
orders(person, dish!)
likes(person, dish)
friends(person, person)
1.2 likes(p, d) => orders(p, d)
0.8 friends(p, q) ^ orders(p, d) => orders(q, d)
-0.4 orders(p, Salad)
`
	db := `likes(A, Pizza)
likes(B, Salad)
likes(C, Pasta)
likes(D, Pizza)
friends(A, B)
friends(B, C)
friends(C, D)
friends(D, E)
friends(E, F)
friends(F, G)
friends(G, A)
friends(A, D)
`
	m := model(t, "orders", []byte(src), []byte(db), "orders")
	if n := m.Graph.NumVars(); n != 21 {
		t.Fatalf("%d variables, want 21", n)
	}
	ans := runAuto(t, m)
	if ans.Stats.Method != "jtree" {
		t.Fatalf("auto chose %s: %s", ans.Stats.Method, ans.Stats.MethodReason)
	}
	t.Log(ans.Stats.MethodReason)
	checkExact(t, "orders", m, ans)
}

// MAP queries on a factor graph go to the junction tree (max-product):
// the world auto decodes scores what the best world of enumeration does.
func TestAutoMAPExact(t *testing.T) {
	g := frustratedGrid(4, 5, 9)
	alg, _, err := infer.New("auto", nil)
	if err != nil {
		t.Fatal(err)
	}
	ans, err := infer.Run(context.Background(), alg, g, nil, infer.Options{Lifted: true, Query: infer.Query{Task: infer.MAP}, Unconverged: infer.Refuse})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Stats.Method != "jtree" {
		t.Fatalf("auto chose %s: %s", ans.Stats.Method, ans.Stats.MethodReason)
	}
	b := brute.Solve(g, nil)
	if math.Abs(*ans.Stats.Objective-b.LogMAP) > 1e-9*max(1, math.Abs(b.LogMAP)) {
		t.Errorf("MAP world scores %v, enumeration's best %v", *ans.Stats.Objective, b.LogMAP)
	}
}

// Grids_11 of the UAI 2014 set (treewidth 23 under min-fill, over jtree's
// default limit of 2^24 entries only with an unlucky order) gets an answer
// by default: exact when its plan fits, else BP or MC-SAT.
func TestAutoGrids11Answers(t *testing.T) {
	if testing.Short() {
		t.Skip("several seconds")
	}
	path := shareddata.Need(t, "uai", "Grids_11.uai")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("shared UAI data not found (%v)", err)
	}
	m, err := uai.Read(f, path)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	ans, err := runAutoGraph(t, m.Graph, nil, infer.Properties{"sampler-time": "5"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %s", ans.Stats.Method, ans.Stats.MethodReason)
	if ans.Stats.Method == "jtree" {
		mar := readMARFile(t, strings.TrimSuffix(path, ".uai")+".uai.MAR")
		worst := 0.0
		for v := range m.Graph.NumVars() {
			for s, p := range ans.Marginal(v) {
				worst = max(worst, math.Abs(p-mar[v][s]))
			}
		}
		if worst > 1e-5 {
			t.Errorf("max |Δ marginal| %v against the reference", worst)
		}
	}
}

func readMARFile(t *testing.T, path string) [][]float64 {
	t.Helper()
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := uai.ReadMAR(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// failingBP fails as BP fails on linkage_16 (messages not normalizable);
// its fallbacks are the given algorithms.
type failingBP struct{ fallbacks []infer.Fallback }

func (failingBP) Run(context.Context, *lift.Compressed, infer.Query) (*infer.Answer, error) {
	return nil, errors.New("bp: message not normalizable (every entry zero)")
}

func (f failingBP) Fallbacks() []infer.Fallback { return f.fallbacks }

// When BP fails outright (not merely unconverged) and jtree refuses the
// model, auto's chain goes on: to a fallback that converges, or, when
// every fallback fails too, to MC-SAT, saying why each step was taken.
func TestAutoBPFailureFallsThrough(t *testing.T) {
	g := isingGrid(30, 30, 5, 0.3) // treewidth 30: jtree refuses; BP converges
	seq, _, err := infer.New("bp", infer.Properties{"schedule": "seq", "damping": "0.5", "max-iter": "5000"})
	if err != nil {
		t.Fatal(err)
	}
	run := func(a *exact.Auto) *infer.Answer {
		ans, err := infer.Run(context.Background(), a, g, nil, infer.Options{Lifted: true, Unconverged: infer.Retry})
		if err != nil {
			t.Fatal(err)
		}
		return ans
	}
	// A fallback that converges answers.
	a := &exact.Auto{LBP: failingBP{[]infer.Fallback{{Name: "broken", Algorithm: failingBP{}}, {Name: "schedule=seq damping=0.5", Algorithm: seq}}}, NoBPCheck: true}
	ans := run(a)
	if ans.Stats.Method != "lbp" || !strings.Contains(ans.Stats.MethodReason, "jtree refuses: treewidth at least") {
		t.Errorf("method %q: %s", ans.Stats.Method, ans.Stats.MethodReason)
	}
	if !ans.Converged || ans.Stats.Fallback != "schedule=seq damping=0.5" {
		t.Errorf("converged with fallback %q", ans.Stats.Fallback)
	}
	// Every BP variant fails: MC-SAT answers within its time.
	g = frustratedGrid(30, 30, 5)
	a = &exact.Auto{LBP: failingBP{[]infer.Fallback{{Name: "damping=0.5", Algorithm: failingBP{}}}}, SamplerTime: time.Second, Sampler: "mcsat"}
	start := time.Now()
	ans = run(a)
	if ans.Stats.Method != "mcsat" || !strings.Contains(ans.Stats.MethodReason, "not normalizable") || ans.Stats.Samples == 0 {
		t.Fatalf("method %q: %s (%d samples)", ans.Stats.Method, ans.Stats.MethodReason, ans.Stats.Samples)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("MC-SAT given 1 s took %v", el)
	}
	for v := range g.NumVars() {
		if p := ans.Marginal(v); len(p) != 2 || math.IsNaN(p[0]) || math.Abs(p[0]+p[1]-1) > 1e-9 {
			t.Fatalf("marginal %d: %v", v, p)
		}
	}
	t.Logf("%s (converged %v, R-hat %.3g)", ans.Stats.MethodReason, ans.Converged, ans.Stats.RHat)
}
