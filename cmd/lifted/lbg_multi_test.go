package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestLBGCommandRS: on the paper's R,S,T MLN (n = 10) lifted infer
// --method lbg reports the lifted cluster {R,S} in its JSON statistics; --prop clusters=R,S,T keeps one atom per cluster.
func TestLBGCommandRS(t *testing.T) {
	c := make([]string, 10)
	for i := range c {
		c[i] = fmt.Sprintf("C%d", i)
	}
	model := writeTemp(t, "rst.mln", "t = {"+strings.Join(c, ", ")+"}\nR(t, t)\nS(t, t)\nT(t, t)\n0.7 R(x, y) v S(y, z)\n-0.2 S(y, z) v T(z, u)\n")
	for _, tc := range []struct {
		prop, reason string
		clusters     float64
	}{
		{"alpha=0", "clusters {R,S} lifted; {T} lifted", 2},
		{"clusters=R,S,T", "clusters {R} lifted; {S} lifted; {T} lifted", 3},
	} {
		out, err := runCLI(t, "infer", "--method", "lbg", "--seed", "1", "--samples", "50", "--chains", "1", "--allow-unconverged", "--prop", tc.prop, "--output-format", "json", "-q", "R", model)
		if err != nil {
			t.Fatal(err)
		}
		i := strings.Index(out, "{")
		var js struct{ Stats map[string]any }
		if err := json.Unmarshal([]byte(out[i:]), &js); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if !strings.Contains(js.Stats["method_reason"].(string), tc.reason) || js.Stats["clusters"] != tc.clusters || js.Stats["lifted_clusters"] != tc.clusters {
			t.Errorf("--prop %s: %v", tc.prop, js.Stats)
		}
	}
}
