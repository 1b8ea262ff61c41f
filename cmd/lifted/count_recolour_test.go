package main

import (
	"reflect"
	"strings"
	"testing"
)

// TestCountRecolour: lbpcount's default incremental recolouring gives the
// run that colouring from scratch gives (the same colourings, so the same
// steps and bound); an unknown mode or a negative conflict budget is a
// usage error.
func TestCountRecolour(t *testing.T) {
	args := []string{"--residual-vars", "4", "--seed", "6", "--per-step", copiesCNF}
	inc := countJSON(t, args...)
	scr := countJSON(t, append([]string{"--recolour", "scratch"}, args...)...)
	if inc.Method != "lbpcount" || inc.LowerBoundLog10 == nil || scr.LowerBoundLog10 == nil ||
		*inc.LowerBoundLog10 != *scr.LowerBoundLog10 || !reflect.DeepEqual(inc.PerStep, scr.PerStep) ||
		inc.MessagesLifted != scr.MessagesLifted || inc.EdgesLifted != scr.EdgesLifted {
		t.Fatalf("incremental %+v\nfrom scratch %+v", inc, scr)
	}
	for _, flag := range [][]string{{"--recolour", "sometimes"}, {"--sat-conflicts", "-1"}} {
		_, stderr, code := run(t, append([]string{"count"}, append(flag, copiesCNF)...)...)
		if code != 1 || !strings.Contains(stderr, flag[0]) {
			t.Fatalf("%v: exit %d: %s", flag, code, stderr)
		}
	}
}
