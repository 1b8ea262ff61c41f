package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/ground"
)

// limitMLN: friends-and-smokers over n people with transitivity (three
// variables: neither wfomc nor the FO2 routes answer it), Friends open.
func limitMLN(n int) string {
	var b strings.Builder
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nSmokes(person)\nFriends(person, person)\n")
	b.WriteString("1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n0.7 Friends(x, y) ^ Friends(y, z) => Friends(x, z)\n-0.5 Smokes(x)\n")
	return b.String()
}

// Issue 37: after the grounding is refused, auto's fallback (lifted BP on
// the first-order network) is held to the same limit: where the evidence
// tells every person apart, the network's reduced model is the full
// model, and it is refused with the size before it is built (it ran on,
// past the memory budget, before). Where the evidence leaves the people
// interchangeable, the fallback answers under the same limit.
func TestFallbackKeepsTheLimit(t *testing.T) {
	const n = 12
	var chain strings.Builder
	for i := 0; i+1 < n; i++ {
		fmt.Fprintf(&chain, "Friends(P%d, P%d)\n", i, i+1)
	}
	model := writeTemp(t, "m.mln", limitMLN(n))
	req := Request{Model: model, Evidence: []string{writeTemp(t, "chain.db", chain.String())}, Query: []string{"Smokes"},
		Ground: GroundOptions{OpenWorld: []string{"Friends"}, MaxGround: 1000}}
	res, err := Run(context.Background(), req)
	if !errors.Is(err, ground.ErrTooLarge) || !strings.Contains(err.Error(), "raise --max-ground") {
		route := ""
		if res != nil {
			route = string(res.Route) + " " + res.MethodReason
		}
		t.Fatalf("every person told apart, limit 1000: %v (answered: %s)", err, route)
	}
	req.Evidence = []string{writeTemp(t, "one.db", "Smokes(P0)\n")}
	res, err = Run(context.Background(), req)
	if err != nil {
		t.Fatalf("interchangeable people, limit 1000: %v", err)
	}
	if res.Route != RouteFirstOrder {
		t.Fatalf("interchangeable people: route %s (%s), want lifted BP on the first-order network", res.Route, res.MethodReason)
	}
}

// Lazy MAP (cutting planes on lazy groundings) answers what MAP on the
// full grounding answers: on small models, where map-auto proves both
// optimal, the same objective, and a world that scores that objective on
// the full grounding. The transitive model's full grounding is refused
// under a small limit (the message names --lazy), and answered with --lazy.
func TestLazyMAPAgrees(t *testing.T) {
	chain := ""
	for i := 0; i+1 < 5; i++ {
		chain += fmt.Sprintf("Friends(P%d, P%d)\n", i, i+1)
	}
	cases := []struct {
		model, db string
		q         []string
		ow        []string
	}{
		{smokersMLN, smokersDB, []string{"Smokes", "Cancer"}, nil},
		{writeTemp(t, "tiny.mln", tinyMLN), "", []string{"P", "Q"}, nil},
		{writeTemp(t, "t.mln", limitMLN(5)), writeTemp(t, "c.db", chain+"Smokes(P0)\n!Smokes(P3)\n"), []string{"Smokes"}, []string{"Friends"}},
		{writeTemp(t, "t6.mln", limitMLN(6)), writeTemp(t, "o.db", "Smokes(P0)\n"), []string{"Smokes", "Friends"}, nil},
	}
	for _, c := range cases {
		req := Request{Model: c.model, Query: c.q, Task: MAP, Seed: 1, Ground: GroundOptions{OpenWorld: c.ow}}
		if c.db != "" {
			req.Evidence = []string{c.db}
		}
		full, err := Run(context.Background(), req)
		if err != nil {
			t.Fatalf("%s: %v", c.model, err)
		}
		req.Ground.Lazy = true
		lazy, err := Run(context.Background(), req)
		if err != nil {
			t.Fatalf("%s lazily: %v", c.model, err)
		}
		if full.Gap == nil || *full.Gap != 0 || lazy.Gap == nil || *lazy.Gap > 1e-9 {
			t.Fatalf("%s: not proved optimal: gap %v full, %v lazy", c.model, full.Gap, lazy.Gap)
		}
		if math.Abs(*full.Objective-*lazy.Objective) > 1e-9*(1+math.Abs(*full.Objective)) {
			t.Errorf("%s: objective %v on the full grounding, %v lazily (%s)", c.model, *full.Objective, *lazy.Objective, lazy.Stats.ConstructionReason)
		}
		if !strings.Contains(lazy.Stats.ConstructionReason, "lazy grounding") || lazy.Stats.GroundFormulas > full.Stats.GroundFormulas {
			t.Errorf("%s: lazily %d ground formulas (full %d): %s", c.model, lazy.Stats.GroundFormulas, full.Stats.GroundFormulas, lazy.Stats.ConstructionReason)
		}
	}
	req := Request{Model: cases[3].model, Evidence: []string{cases[3].db}, Query: cases[3].q, Task: MAP, Ground: GroundOptions{MaxGround: 100}}
	if _, err := Run(context.Background(), req); !errors.Is(err, ground.ErrTooLarge) || !strings.Contains(err.Error(), "--lazy") {
		t.Fatalf("MAP over the limit: %v", err)
	}
	req.Ground.Lazy = true
	res, err := Run(context.Background(), req)
	if err != nil || res.Gap == nil || *res.Gap > 1e-9 {
		t.Fatalf("MAP over the limit, lazily: %v %+v", err, res)
	}
	req.Ground.Lazy = false
	req.Ground.MaxGround = 0
	full, err := Run(context.Background(), req)
	if err != nil || math.Abs(*full.Objective-*res.Objective) > 1e-9*(1+math.Abs(*full.Objective)) {
		t.Fatalf("MAP over the limit: objective %v lazily, %v on the full grounding (%v)", *res.Objective, full.Objective, err)
	}
}
