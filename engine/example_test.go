package engine_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/learn"
)

// An MLN query: marginals of the query atoms given the evidence, by
// whatever method auto chooses.
func Example() {
	res, err := engine.Run(context.Background(), engine.Request{Model: "../examples/mln/smokers.mln", Evidence: []string{"../examples/mln/smokers.db"}, Query: []string{"Smokes", "Cancer"}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("P(Cancer(Carl)) = %.4f by %s\n", res.AtomMarginals()["Cancer(Carl)"], res.Method)
	// Output: P(Cancer(Carl)) = 0.6647 by wfomc
}

// A MAP query: the most probable world given the evidence, with its score
// Σ w·n(x) and the LP's bound on every world's score.
func Example_mAP() {
	res, err := engine.Run(context.Background(), engine.Request{Model: "../examples/mln/smokers.mln",
		Evidence: []string{"../examples/mln/smokers.db"}, Query: []string{"Smokes", "Cancer"}, Task: engine.MAP})
	if err != nil {
		panic(err)
	}
	var smokers []string
	for a := range res.Atoms() {
		if a.Value == 1 && strings.HasPrefix(a.Name, "Smokes") {
			smokers = append(smokers, a.Name)
		}
	}
	fmt.Println(strings.Join(smokers, " "))
	fmt.Printf("objective %.1f, bound %.1f (%s)\n", *res.Objective, *res.Bound, res.Method)
	// Output:
	// Smokes(Carl) Smokes(Dana) Smokes(Frank) Smokes(Gary) Smokes(Helen)
	// objective 81.3, bound 81.3 (map-auto)
}

// A dynamic MLN filtered step by step: each step's marginals use the
// evidence of the steps so far. The model is loaded once.
func Example_filtering() {
	m, err := engine.Load("../examples/mln/social-dynamic.mln", engine.LoadOptions{
		Evidence: []string{"../examples/mln/social-dynamic.db"}, Dynamic: true})
	if err != nil {
		panic(err)
	}
	_, err = m.Run(context.Background(), engine.Request{Query: []string{"Cancer(A,t)"},
		Dynamic: &engine.Dynamic{Horizon: 3, Filter: true, OnStep: func(s engine.Step) error {
			for _, a := range s.Marginals {
				fmt.Printf("step %d: %s %.4f\n", s.Step, a.Name, a.P)
			}
			return nil
		}}})
	if err != nil {
		panic(err)
	}
	// Output:
	// step 0: Cancer(A,0) 0.0776
	// step 1: Cancer(A,1) 0.5183
	// step 2: Cancer(A,2) 0.8176
	// step 3: Cancer(A,3) 0.7879
}

// The method and settings as a user names them (the command's flags, the
// Python package's keywords) become a Request by one rule: the defaults,
// and a refusal for a setting the method would ignore.
func ExampleNamed() {
	var req engine.Request
	if err := (engine.Named{Method: "gibbs", Given: map[string]string{"samples": "500"}}).Resolve(&req); err != nil {
		panic(err)
	}
	fmt.Println(req.Method, req.Task, req.Properties["samples"], req.Properties["burn-in"])
	err := (engine.Named{Method: "gibbs", Given: map[string]string{"damping": "0.5"}}).Resolve(&req)
	fmt.Println(err)
	// Output:
	// gibbs marginals 500 100
	// --damping does not apply to --method gibbs
}

// Weight learning by the exact lifted likelihood (lwl, the default): one
// weight per formula of the model.
func ExampleLearn() {
	l, err := engine.Learn(context.Background(), engine.LearnRequest{Input: "../examples/mln/wfomc/smoking.mln",
		Run: learn.Run{Train: []string{"../examples/mln/wfomc/smoking-train.db"}}, DefaultPrior: true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d weights, Smokes(x) => Cancer(x): %.2f\n", l.Method, len(l.Weights), l.Weights[3])
	// Output: lwl: 6 weights, Smokes(x) => Cancer(x): 7.51
}
