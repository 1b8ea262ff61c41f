package engine

import (
	"context"
	"errors"
	"fmt"
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
