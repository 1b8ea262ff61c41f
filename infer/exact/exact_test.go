package exact_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/mln"
)

// model parses an MLN (and its evidence), grounds it for the queries and
// returns its first-order model.
func model(t *testing.T, name string, src, db []byte, query ...string) *infer.Model {
	t.Helper()
	m, err := mlnfile.Parse(name, src)
	if err != nil {
		t.Fatal(err)
	}
	d := mln.NewDB(m)
	if db != nil {
		if d, err = mlnfile.ReadDB(bytes.NewReader(db), name+".db", m); err != nil {
			t.Fatal(err)
		}
	}
	q, err := ground.ParseQuery(m, d, query)
	if err != nil {
		t.Fatal(err)
	}
	opt := ground.Options{QueryAtoms: q}
	gr, err := ground.Ground(context.Background(), m, d, opt)
	if err != nil {
		t.Fatal(err)
	}
	return exact.NewModel(gr, opt)
}

func tutorial(t *testing.T, name string, query ...string) *infer.Model {
	t.Helper()
	dir := "../../examples/mln/tutorial"
	src := readFile(t, filepath.Join(dir, name+".mln"))
	var db []byte
	if name == "roman" || name == "social" || name == "hmm" {
		db = readFile(t, filepath.Join(dir, name+".db"))
	}
	return model(t, name+".mln", src, db, query...)
}

// runAuto answers m with "auto" (a generous budget) under the command's
// rule: an answer that did not converge is an error.
func runAuto(t *testing.T, m *infer.Model) *infer.Answer {
	t.Helper()
	alg, meth, err := infer.New("auto", infer.Properties{"wfomc-work": "0"})
	if err != nil {
		t.Fatal(err)
	}
	ans, err := infer.RunModel(context.Background(), alg, m, infer.Options{Lifted: meth.Lifted, Unconverged: infer.Refuse})
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Converged {
		t.Fatal("an answer that did not converge came back without an error")
	}
	return ans
}

// checkExact compares the query marginals and log Z of an exact answer with
// enumeration of the ground model.
func checkExact(t *testing.T, name string, m *infer.Model, ans *infer.Answer) {
	t.Helper()
	b := brute.Solve(m.Graph, nil)
	for _, q := range m.Queries {
		got, want := ans.Marginal(int(q.Var))[1], b.Marginals[q.Var][1]
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s: P(%s) = %.12g, enumeration %.12g", name, q.Name, got, want)
		}
	}
	if got, want := ans.LogZ+m.LogZOffset, b.LogZ+m.LogZOffset; math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("%s: log Z = %.12g, enumeration %.12g", name, got, want)
	}
	if ans.LogZKind != infer.Exact {
		t.Errorf("%s: log Z kind %v", name, ans.LogZKind)
	}
}

// The tutorial models: auto answers every one exactly — wfomc where it
// lifts the model, the junction tree of the grounding for the HMM (beyond the
// lifting rules, but of treewidth 3) — and equals enumeration (internal/brute,
// an independent enumerator) and the closed forms.
func TestTutorial(t *testing.T) {
	cases := []struct {
		name   string
		query  []string
		method string
		want   float64
	}{
		{"uniform", []string{"Heads"}, "wfomc", 0.5},
		{"binomial", []string{"Heads"}, "wfomc", math.E / (1 + math.E)},
		{"multinomial", []string{"Outcome"}, "wfomc", 1.0 / 6},
		{"roman", []string{"Hate"}, "wfomc", math.NaN()},
		{"social", []string{"Smokes", "Cancer"}, "wfomc", math.NaN()},
		{"hmm", []string{"State"}, "jtree", math.NaN()},
	}
	for _, c := range cases {
		m := tutorial(t, c.name, c.query...)
		ans := runAuto(t, m)
		if ans.Stats.Method != c.method || ans.Stats.MethodReason == "" {
			t.Errorf("%s: auto chose %q (%s), want %s", c.name, ans.Stats.Method, ans.Stats.MethodReason, c.method)
			continue
		}
		if !math.IsNaN(c.want) {
			for _, q := range m.Queries {
				if p := ans.Marginal(int(q.Var))[1]; math.Abs(p-c.want) > 1e-9 {
					t.Errorf("%s: P(%s) = %.12g, want %.12g", c.name, q.Name, p, c.want)
				}
			}
		}
		if m.Graph.NumVars() <= 22 {
			checkExact(t, c.name, m, ans)
		}
	}
}

// The multinomial model on two throws is small enough to enumerate: 1/6.
func TestMultinomialSmall(t *testing.T) {
	src := strings.Replace(string(readFile(t, "../../examples/mln/tutorial/multinomial.mln")), "{1,...,20}", "{1,2}", 1)
	m := model(t, "multinomial2.mln", []byte(src), nil, "Outcome")
	b := brute.Solve(m.Graph, nil)
	for _, q := range m.Queries {
		if p := b.Marginals[q.Var][1]; math.Abs(p-1.0/6) > 1e-12 {
			t.Fatalf("enumeration: P(%s) = %v", q.Name, p)
		}
	}
	ans := runAuto(t, m)
	if ans.Stats.Method != "wfomc" {
		t.Fatalf("auto chose %s: %s", ans.Stats.Method, ans.Stats.MethodReason)
	}
	checkExact(t, "multinomial (2 throws)", m, ans)
}

// Random small MLNs with mutual exclusion, existentials and equality:
// wherever auto chooses wfomc, its answer equals enumeration.
func TestRandomMLNs(t *testing.T) {
	pool := []string{
		"%s P(x) => Q(x)",
		"%s R(x,y) ^ P(x) => S(y)",
		"%s P(x) v S(y)",
		"Exist y R(x,y).",
		"%s Exist y R(x,y)",
		"R(x,y0) ^ !(y0 = y1) => !R(x,y1).",
		"%s Q(x) ^ !(x = z) => !Q(z)",
		"%s !(x = z) ^ P(x) => P(z)",
		"%s Exist x P(x) ^ Q(x)",
		"%s R(x,y) <=> Q(x)",
	}
	rng := rand.New(rand.NewPCG(13, 1))
	exactRuns := 0
	features := map[string]int{}
	const trials = 60
	for trial := range trials {
		var b strings.Builder
		fmt.Fprintf(&b, "t1 = {A, B%s}\nt2 = {C, D}\nP(t1)\nQ(t1)\nR(t1, t2)\nS(t2)\n", []string{"", ", E"}[rng.IntN(2)])
		for _, i := range rng.Perm(len(pool))[:1+rng.IntN(3)] {
			f := pool[i]
			if strings.Contains(f, "%s") {
				f = fmt.Sprintf(f, fmt.Sprintf("%.3f", 4*rng.Float64()-2))
			}
			b.WriteString(f + "\n")
		}
		var db strings.Builder
		if rng.IntN(2) == 0 {
			fmt.Fprintf(&db, "%sP(A)\n", []string{"", "!"}[rng.IntN(2)])
		}
		src := b.String()
		m := model(t, fmt.Sprintf("random%d.mln", trial), []byte(src), []byte(db.String()), "P", "Q", "R", "S")
		if m.Graph.NumVars() > 20 {
			continue
		}
		alg, meth, _ := infer.New("auto", infer.Properties{"wfomc-work": "0"})
		ans, err := infer.RunModel(context.Background(), alg, m, infer.Options{Lifted: meth.Lifted, Unconverged: infer.Refuse})
		var nc *infer.NotConvergedError
		switch {
		case errors.As(err, &nc):
			continue // BP failed loudly: allowed, never a silent wrong answer
		case errors.Is(err, ground.ErrContradiction):
			continue
		case err != nil:
			t.Fatalf("trial %d: %v\n%s", trial, err, src)
		}
		if ans.Stats.Method != "wfomc" {
			continue
		}
		exactRuns++
		for feature, text := range map[string]string{"mutual exclusion": "!(y0 = y1)", "existential": "Exist", "equality": "(x = z)"} {
			if strings.Contains(src, text) {
				features[feature]++
			}
		}
		before := t.Failed()
		checkExact(t, fmt.Sprintf("trial %d", trial), m, ans)
		if t.Failed() && !before {
			t.Logf("model:\n%sevidence:\n%s", src, db.String())
		}
	}
	t.Logf("%d of %d random MLNs answered exactly by wfomc and checked against enumeration; with %v", exactRuns, trials, features)
	if exactRuns < trials/4 {
		t.Errorf("only %d of %d random MLNs went to wfomc", exactRuns, trials)
	}
}

// BP on the multinomial model oscillates under undamped flooding; the rule
// is that the run either converges by a fallback (and says which) or fails
// with a NotConvergedError: an answer never comes back unconverged.
func TestOscillationFallsBackOrFails(t *testing.T) {
	m := tutorial(t, "multinomial", "Outcome")
	for _, maxIter := range []string{"1000", "3"} {
		alg, meth, err := infer.New("lbp", infer.Properties{"max-iter": maxIter})
		if err != nil {
			t.Fatal(err)
		}
		opt := infer.Options{Lifted: meth.Lifted}
		// As asked (Accept): flooding does not converge.
		raw, err := infer.RunModel(context.Background(), alg, m, opt)
		if err != nil || raw.Converged {
			t.Fatalf("max-iter %s: undamped flooding converged (%v) or failed (%v); the test needs an oscillating run", maxIter, raw.Converged, err)
		}
		opt.Unconverged = infer.Refuse
		ans, err := infer.RunModel(context.Background(), alg, m, opt)
		var nc *infer.NotConvergedError
		switch {
		case err == nil:
			if !ans.Converged || ans.Stats.Fallback == "" {
				t.Fatalf("max-iter %s: converged %v, fallback %q", maxIter, ans.Converged, ans.Stats.Fallback)
			}
			t.Logf("max-iter %s: converged with %s, P(Outcome(1,1)) = %.6f (BP's approximation of 1/6)", maxIter, ans.Stats.Fallback, ans.Marginal(int(m.Queries[0].Var))[1])
		case errors.As(err, &nc):
			if nc.Answer == nil || nc.Answer.Converged {
				t.Fatalf("max-iter %s: %v without the last answer", maxIter, err)
			}
			t.Logf("max-iter %s: %v", maxIter, err)
		default:
			t.Fatalf("max-iter %s: %v", maxIter, err)
		}
		if maxIter == "3" && err == nil {
			t.Fatalf("3 iterations converged")
		}
	}
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
