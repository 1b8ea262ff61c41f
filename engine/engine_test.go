package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/jsonschema"
	"github.com/lifted-dev/lifted/lift"
)

const (
	smokersMLN = "../examples/mln/smokers.mln"
	smokersDB  = "../examples/mln/smokers.db"
	smokersUAI = "../examples/fg/smokers10.uai"
	socialMLN  = "../examples/mln/social-dynamic.mln"
	socialDB   = "../examples/mln/social-dynamic.db"
)

// tinyMLN: per person P ⇒ Q (weight 1.5) and P (weight −0.5); the MAP
// worlds score 1.5 per person (P false), so Σ w·n(x) = 3 over two people.
const tinyMLN = "person = {A, B}\nP(person)\nQ(person)\n1.5 P(x) => Q(x)\n-0.5 P(x)\n"

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.Compile(ResultSchema)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// checkJSON writes r as JSON, validates it against the schema, and checks
// what the schema cannot say: the task decides which fields are set.
func checkJSON(t *testing.T, s *jsonschema.Schema, name string, r *Result) map[string]any {
	t.Helper()
	var b bytes.Buffer
	if err := WriteJSON(&b, r); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := s.Validate(b.Bytes()); err != nil {
		t.Fatalf("%s: %v\n%.300s", name, err, b.String())
	}
	var js map[string]any
	json.Unmarshal(b.Bytes(), &js)
	switch js["task"] {
	case "map":
		if js["assignment"] == nil || js["marginals"] != nil || js["objective"] == nil {
			t.Errorf("%s: MAP JSON without assignment or objective: %.300s", name, b.String())
		}
	default:
		if js["marginals"] == nil || js["assignment"] != nil || js["objective"] != nil {
			t.Errorf("%s: marginal JSON without marginals: %.300s", name, b.String())
		}
	}
	if js["method"] == "" {
		t.Errorf("%s: no method", name)
	}
	// Issue 39.2: the time reported is the whole run, split by stage.
	if st, ok := js["stats"].(map[string]any); ok && st["stages"] != nil {
		total, _ := st["total_seconds"].(float64)
		sum := 0.0
		stages := st["stages"].([]any)
		for _, x := range stages {
			sum += x.(map[string]any)["seconds"].(float64)
		}
		first := stages[0].(map[string]any)["stage"]
		if secs, _ := st["seconds"].(float64); total < secs || math.Abs(sum-total) > 1e-9*(1+total) || first != "read" {
			t.Errorf("%s: total_seconds %v, seconds %v, stages %v (sum %v)", name, total, secs, stages, sum)
		}
	}
	return js
}

// Every registered method, on a factor graph and on an MLN, for each task
// it answers, writes JSON that the schema accepts, with the same fields.
func TestEveryMethodWritesTheSchema(t *testing.T) {
	s := schema(t)
	tiny := writeTemp(t, "tiny.mln", tinyMLN)
	props := map[string]infer.Properties{
		"gibbs": {"samples": "200", "chains": "2"}, "mcsat": {"samples": "200", "chains": "2"},
		"bgibbs": {"samples": "200", "chains": "2"}, "lbg": {"samples": "200", "chains": "2"},
		"maxwalksat": {"max-flips": "2000"},
	}
	ran := 0
	for _, m := range infer.Methods() {
		for _, task := range []Task{Marginals, MAP} {
			if !m.Supports(task) {
				continue
			}
			for _, model := range []Request{
				{Model: smokersUAI, Evidence: []string{smokersUAI + ".evid"}},
				{Model: tiny, Query: []string{"P", "Q"}},
				{Model: smokersMLN, Evidence: []string{smokersDB}, Query: []string{"Smokes", "Cancer"}},
			} {
				req := model
				req.Method, req.Task, req.Properties, req.Seed, req.AllowUnconverged, req.LogZ = m.Name, task, props[m.Name], 1, true, true
				name := m.Name + " " + task.String() + " " + filepath.Base(req.Model)
				res, err := Run(context.Background(), req)
				if errors.Is(err, infer.ErrNeedsModel) || (m.Name == "enumerate" && req.Model == smokersUAI) {
					continue // wfomc on a factor graph; 2^120 states
				}
				if err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				checkJSON(t, s, name, res)
				ran++
			}
		}
	}
	if ran < 20 {
		t.Errorf("only %d runs", ran)
	}
}

// The MAP objective is on one scale for every method: on an MLN Σ w·n(x)
// over all ground formulas, here computed by hand from the world printed.
func TestMAPObjectiveOneScale(t *testing.T) {
	tiny := writeTemp(t, "tiny.mln", tinyMLN)
	for _, method := range []string{"lp", "ilp", "maxwalksat", "bp", "lbp"} {
		res, err := Run(context.Background(), Request{Model: tiny, Query: []string{"P", "Q"}, Task: MAP, Method: method, Seed: 1})
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		world := map[string]int32{}
		for a := range res.Atoms() {
			world[a.Name] = a.Value
		}
		score := 0.0
		for _, x := range []string{"A", "B"} {
			p, q := world["P("+x+")"], world["Q("+x+")"]
			if p == 0 || q == 1 {
				score += 1.5
			}
			score -= 0.5 * float64(p)
		}
		if res.Objective == nil || math.Abs(*res.Objective-score) > 1e-9 || math.Abs(score-3) > 1e-9 {
			t.Errorf("%s: objective %v, the world %v scores %v (the MAP score is 3)", method, res.Objective, world, score)
		}
		if res.Bound != nil && (*res.Bound < *res.Objective-1e-9 || math.Abs(*res.Gap-(*res.Bound-*res.Objective)) > 1e-9) {
			t.Errorf("%s: bound %v gap %v objective %v", method, *res.Bound, *res.Gap, *res.Objective)
		}
	}
}

// A dynamic run writes steps of the one shape; smoothing no longer nests
// its marginals.
func TestDynamicJSON(t *testing.T) {
	s := schema(t)
	for _, d := range []Dynamic{{Horizon: 3, Filter: true}, {Horizon: 3, Smooth: true}, {Horizon: 3}} {
		res, err := Run(context.Background(), Request{Model: socialMLN, Evidence: []string{socialDB}, Query: []string{"Cancer(A,t)"}, Dynamic: &d})
		if err != nil {
			t.Fatal(err)
		}
		js := checkJSON(t, s, "dynamic", res)
		steps := js["steps"].([]any)
		want := 4
		if d.Smooth {
			want = 1
		} else if !d.Filter {
			want = 5
		}
		if len(steps) != want {
			t.Errorf("%+v: %d steps, want %d", d, len(steps), want)
		}
		last := steps[len(steps)-1].(map[string]any)
		if d.Filter != (last["kind"] == "filtered") {
			t.Errorf("%+v: last step %v", d, last["kind"])
		}
		// The top-level marginals are the last answer of each atom.
		top := js["marginals"].(map[string]any)
		if d.Smooth && len(top) != 4 {
			t.Errorf("smoothed: %d atoms at the top", len(top))
		}
		for k, v := range last["marginals"].(map[string]any) {
			if top[k] != v {
				t.Errorf("%+v: %s: top %v, last step %v", d, k, top[k], v)
			}
		}
	}
}

// A model loaded once answers several queries as separate loads do.
func TestLoadOnceQueryMany(t *testing.T) {
	m, err := Load(smokersMLN, LoadOptions{Evidence: []string{smokersDB}})
	if err != nil {
		t.Fatal(err)
	}
	for _, req := range []Request{
		{Query: []string{"Cancer"}, Method: "lbp"},
		{Query: []string{"Smokes", "Cancer"}},
		{Query: []string{"Smokes"}, Task: MAP},
		{Query: []string{"Cancer"}, Method: "lbp", Ground: GroundOptions{Construction: ConstructGround}},
	} {
		a, err := m.Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		req.Model, req.Evidence = smokersMLN, []string{smokersDB}
		b, err := Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		am, bm := a.AtomMarginals(), b.AtomMarginals()
		if len(am) == 0 || len(am) != len(bm) {
			t.Fatalf("%v: %d and %d atoms", req.Query, len(am), len(bm))
		}
		for k, v := range am {
			if bm[k] != v {
				t.Errorf("%v: %s: %v loaded once, %v loaded again", req.Query, k, v, bm[k])
			}
		}
	}
}

// The per-atom view is the same whichever route answered: lifted BP on the
// first-order network and on the grounding give the same marginals, and
// both agree with exact enumeration to BP's accuracy on this model.
func TestRoutesAgree(t *testing.T) {
	m, err := Load(smokersMLN, LoadOptions{Evidence: []string{smokersDB}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(req Request) *Result {
		r, err := m.Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	q := []string{"Smokes", "Cancer"}
	fo := run(Request{Query: q, Method: "lbp", Ground: GroundOptions{Construction: ConstructFirstOrder}})
	gr := run(Request{Query: q, Method: "lbp", Ground: GroundOptions{Construction: ConstructGround}})
	ex := run(Request{Query: q, Method: "enumerate"})
	if fo.Route != RouteFirstOrder || gr.Route != RouteGrounded {
		t.Fatalf("routes %s, %s", fo.Route, gr.Route)
	}
	gm, em := gr.AtomMarginals(), ex.AtomMarginals()
	for k, v := range fo.AtomMarginals() {
		if math.Abs(v-gm[k]) > 1e-9 || math.Abs(v-em[k]) > 0.05 {
			t.Errorf("%s: first-order %v, ground %v, exact %v", k, v, gm[k], em[k])
		}
	}
}

// Request mistakes are RequestErrors.
func TestRequestErrors(t *testing.T) {
	for _, req := range []Request{
		{Model: smokersMLN, Method: "nosuch", Query: []string{"Smokes"}},
		{Model: smokersMLN, Method: "gibbs", Task: MAP, Query: []string{"Smokes"}},
		{Model: smokersMLN, Query: []string{"NoSuch"}},
		{Model: smokersMLN},
		{Model: smokersMLN, Query: []string{"Smokes"}, ColourMode: "bogus"},
		{Model: smokersMLN, Query: []string{"Smokes"}, Ground: GroundOptions{Construction: "bogus"}},
		{Model: smokersMLN, Query: []string{"Smokes"}, Properties: infer.Properties{"damping": "2"}, Method: "lbp"},
	} {
		_, err := Run(context.Background(), req)
		var re *RequestError
		if !errors.As(err, &re) {
			t.Errorf("%+v: %v, want a RequestError", req, err)
		}
	}
}

// seAlg is lbp whose answer carries made-up standard errors (0.001 times
// the entry's index in Belief), to check where the Result puts them.
type seAlg struct{ lbp infer.Algorithm }

func (a seAlg) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	ans, err := a.lbp.Run(ctx, c, q)
	if err == nil {
		ans.StdErr = make([]float64, len(ans.Belief))
		for i := range ans.StdErr {
			ans.StdErr[i] = 0.001 * float64(i)
		}
	}
	return ans, err
}

func init() {
	infer.Register(infer.Method{Name: "stderr-test", Summary: "lbp with made-up standard errors (engine tests)",
		Tasks: []infer.Task{infer.Marginals},
		New: func(infer.Properties) (infer.Algorithm, error) {
			a, _, err := infer.New("bp", nil)
			return seAlg{a}, err
		}})
}

// The samplers' standard errors (infer.Answer.StdErr, parallel to Belief)
// reach the Result per variable and per atom, and the JSON's std_errors.
func TestStdErrors(t *testing.T) {
	s := schema(t)
	res, err := Run(context.Background(), Request{Model: smokersUAI, Evidence: []string{smokersUAI + ".evid"}, Method: "stderr-test"})
	if err != nil {
		t.Fatal(err)
	}
	ans := res.Answer
	for v, se := range res.StdErrors {
		X := int(ans.Graph.NodeOf[v])
		if len(se) != 2 || se[1] != 0.001*float64(ans.NodeOff[X]+1) {
			t.Fatalf("variable %d: std errors %v", v, se)
		}
	}
	js := checkJSON(t, s, "fg", res)
	if rows, _ := js["std_errors"].([]any); len(rows) != len(res.Marginals) {
		t.Fatalf("std_errors %v", js["std_errors"])
	}
	res, err = Run(context.Background(), Request{Model: smokersMLN, Evidence: []string{smokersDB}, Query: []string{"Smokes"}, Method: "stderr-test"})
	if err != nil {
		t.Fatal(err)
	}
	js = checkJSON(t, s, "mln", res)
	se, _ := js["std_errors"].(map[string]any)
	n := 0
	for a := range res.Atoms() {
		if math.IsNaN(a.StdErr) || a.StdErr <= 0 || se[a.Name] != a.StdErr {
			t.Errorf("%s: std error %v, JSON %v", a.Name, a.StdErr, se[a.Name])
		}
		n++
	}
	if n == 0 || len(se) != n {
		t.Fatalf("%d atoms, %d std errors", n, len(se))
	}
}

// A sampler's Alchemy output ends with a comment line of its standard
// errors: the largest, which is the largest of the JSON's per-atom ones;
// an exact method's has none.
func TestAlchemyStdErrLine(t *testing.T) {
	req := Request{Model: smokersMLN, Evidence: []string{smokersDB}, Query: []string{"Smokes,Cancer"},
		Method: "gibbs", Properties: infer.Properties{"samples": "2000"}, Seed: 1, AllowUnconverged: true}
	res, err := Run(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteAlchemy(&b, res); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	last := lines[len(lines)-1]
	worst := 0.0
	for a := range res.Atoms() {
		worst = max(worst, a.StdErr)
	}
	if want := fmt.Sprintf("// Monte Carlo standard errors (from the effective sample size): largest %.2g (", worst); worst == 0 || !strings.HasPrefix(last, want) {
		t.Errorf("last line %q, want prefix %q", last, want)
	}
	req.Method, req.Properties = "enumerate", nil
	if res, err = Run(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteAlchemy(&b, res); err != nil || strings.Contains(b.String(), "//") {
		t.Errorf("exact answer: %v\n%s", err, b.String())
	}
}

// --tolerance is refused for a dynamic run (its steps are lifted exactly:
// a tolerance would be silently ignored), and accepted at 0.
func TestDynamicRefusesTolerance(t *testing.T) {
	d := Dynamic{Horizon: 2, Filter: true}
	_, err := Run(context.Background(), Request{Model: socialMLN, Evidence: []string{socialDB}, Query: []string{"Cancer(A,t)"}, Dynamic: &d, Tolerance: 0.01})
	var re *RequestError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "--tolerance") {
		t.Errorf("tolerance 0.01: %v, want a request error naming --tolerance", err)
	}
	if _, err := Run(context.Background(), Request{Model: socialMLN, Evidence: []string{socialDB}, Query: []string{"Cancer(A,t)"}, Dynamic: &d}); err != nil {
		t.Errorf("tolerance 0: %v", err)
	}
}
