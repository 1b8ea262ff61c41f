package engine

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/infer"
)

// autoSampler is auto sent to its sampler on smokers10 without evidence
// (120 variables, one component): jtree refused by a 2-entry table limit,
// BP skipped, gibbs with n samples per chain.
func autoSampler(n string) Request {
	return Request{Model: smokersUAI, Method: "auto", Seed: 3, Properties: infer.Properties{
		"max-table": "2", "bp-iter": "0", "sampler": "gibbs", "sampler-samples": n}}
}

// The default always answers: a sampler whose chains have not mixed
// (20 samples) still gives every variable a marginal, each unresolved
// with an interval around its estimate, or mixed; --require-converged
// refuses the same run, and so does the sampler asked for by name.
func TestAutoAlwaysAnswers(t *testing.T) {
	ctx := context.Background()
	res, err := Run(ctx, autoSampler("20"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Converged || res.Method != "gibbs" {
		t.Fatalf("method %s converged %v, want gibbs not mixed", res.Method, res.Converged)
	}
	n := res.StatusCounts()
	if n[StatusUnresolved] == 0 || n[StatusUnresolved]+n[StatusMixed] != 120 {
		t.Errorf("statuses %v, want 120 mixed or unresolved, some unresolved", n)
	}
	for v := range 120 {
		s, p := res.VarStatus(v), res.Marginals[v][1]
		if s.Status == StatusUnresolved && !(0 <= s.Lo && s.Lo <= p && p <= s.Hi && s.Hi <= 1 && s.Why != "") {
			t.Errorf("variable %d: p %g, status %+v", v, p, s)
		}
	}
	js := checkJSON(t, schema(t), "auto not mixed", res)
	if st, ok := js["status"].([]any); !ok || len(st) != 120 {
		t.Errorf("JSON status %v", js["status"])
	}
	if !res.Unresolved() || res.StatusNote() == "" {
		t.Errorf("an answer with unresolved marginals has no note")
	}

	req := autoSampler("20")
	req.RequireConverged = true
	var nc *infer.NotConvergedError
	if _, err := Run(ctx, req); !errors.As(err, &nc) {
		t.Errorf("--require-converged: %v, want NotConvergedError", err)
	}
	req = Request{Model: smokersUAI, Method: "gibbs", Seed: 3, Properties: infer.Properties{"samples": "20", "chains": "2"}}
	if _, err := Run(ctx, req); !errors.As(err, &nc) {
		t.Errorf("--method gibbs: %v, want NotConvergedError", err)
	}
}

// With enough samples the statuses are mixed, and a mixed marginal is
// within 5 standard errors (and 0.02) of the exact one (jtree).
func TestAutoMixedAgreesWithExact(t *testing.T) {
	ctx := context.Background()
	res, err := Run(ctx, autoSampler("3000"))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := Run(ctx, Request{Model: smokersUAI, Method: "jtree"})
	if err != nil {
		t.Fatal(err)
	}
	n := res.StatusCounts()
	if n[StatusMixed] < 100 {
		t.Errorf("statuses %v, want most mixed", n)
	}
	for v := range 120 {
		s, p, want := res.VarStatus(v), res.Marginals[v][1], ex.Marginals[v][1]
		switch s.Status {
		case StatusMixed:
			if se := res.StdErrors[v][1]; math.Abs(p-want) > 5*se+0.02 {
				t.Errorf("variable %d mixed: %g ± %g, exact %g", v, p, se, want)
			}
		case StatusUnresolved:
			if want < s.Lo-0.05 || want > s.Hi+0.05 {
				t.Logf("variable %d unresolved [%g, %g], exact %g", v, s.Lo, s.Hi, want)
			}
		}
	}
	if ex.StatusCounts()[StatusExact] != 120 || ex.StatusLine() != "" {
		t.Errorf("jtree: statuses %v, line %q", ex.StatusCounts(), ex.StatusLine())
	}
}

// lbg asked for by name refuses chains that have not mixed, on the MLN
// without grounding it (one chain: no diagnostics) as on its grounding.
func TestLBGRefusesNotMixed(t *testing.T) {
	for _, c := range []string{"", ConstructGround} {
		req := Request{Model: smokersMLN, Evidence: []string{smokersDB}, Query: []string{"Smokes"}, Method: "lbg", Seed: 1,
			Properties: infer.Properties{"samples": "30", "chains": "1"}}
		req.Ground.Construction = c
		var nc *infer.NotConvergedError
		if _, err := Run(context.Background(), req); !errors.As(err, &nc) {
			t.Errorf("construction %q: %v, want NotConvergedError", c, err)
		}
		req.AllowUnconverged = true
		res, err := Run(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		for a := range res.Atoms() {
			if a.Status != StatusUnresolved {
				t.Errorf("construction %q: %s status %v", c, a.Name, a.Status)
			}
		}
	}
}

// Where lifted BP's messages converge, auto's sampler still answers and
// BP is checked against it (smokers10 without evidence, one component:
// BP converges); with bp-check 0 BP's fixed point answers, marked
// fixed-point. With evidence the components answered exactly say so.
func TestAutoChecksConvergedBP(t *testing.T) {
	req := Request{Model: smokersUAI, Method: "auto", Seed: 1,
		Properties: infer.Properties{"max-table": "2", "max-total": "2", "sampler": "gibbs", "sampler-samples": "3000"}}
	res, err := Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Method != "gibbs" || !strings.Contains(res.MethodReason, "messages converged") || !strings.Contains(res.MethodReason, "BP's fixed point agrees with the sampler on") {
		t.Errorf("method %s: %s", res.Method, res.MethodReason)
	}
	n := res.StatusCounts()
	if n[StatusFixedPoint] != 0 || n[StatusMixed] == 0 {
		t.Errorf("statuses %v", n)
	}
	req.Properties["bp-check"] = "0"
	res, err = Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.StatusCounts(); res.Method != "lbp" || n[StatusFixedPoint] != 120 {
		t.Errorf("bp-check 0: method %s, statuses %v", res.Method, n)
	}
	req.Evidence = []string{smokersUAI + ".evid"}
	res, err = Run(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if n := res.StatusCounts(); res.Method != "enumerate+lbp" || n[StatusExact] == 0 || n[StatusFixedPoint] == 0 || n[StatusExact]+n[StatusFixedPoint] != 120 {
		t.Errorf("components: method %s, statuses %v", res.Method, n)
	}
}
