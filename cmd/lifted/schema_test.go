package main

import (
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/jsonschema"
)

// Every command's JSON validates against the one schema
// (engine/result.schema.json): infer on a factor graph and on an MLN with
// every method that answers marginals, map with every MAP method, dynamic
// filtering and smoothing, wfomc and count; compress prints the schema's
// stats object (graphStats) alone.
func TestEveryCommandWritesTheSchema(t *testing.T) {
	s, err := jsonschema.Compile(engine.ResultSchema)
	if err != nil {
		t.Fatal(err)
	}
	uai := []string{smokers, "-e", smokers + ".evid"}
	mln := []string{smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer"}
	sampler := []string{"--samples", "200", "--chains", "2", "--seed", "1", "--allow-unconverged"}
	var cases [][]string
	for _, m := range infer.Methods() {
		if m.Name == "brute" { // registered by plugin_test.go, not in the binary
			continue
		}
		var extra []string
		if m.HasProperty("samples") {
			extra = sampler
		}
		if m.Supports(infer.Marginals) {
			if m.Name != "wfomc" && m.Name != "lbg" && m.Name != "enumerate" { // wfomc, lbg need an MLN; 2^120 states
				cases = append(cases, append(append([]string{"infer", "--method", m.Name}, extra...), uai...))
			}
			cases = append(cases, append(append([]string{"infer", "--method", m.Name}, extra...), mln...))
		}
		if m.Supports(infer.MAP) {
			for _, model := range [][]string{uai, mln} {
				cases = append(cases, append([]string{"map", "--method", m.Name, "--seed", "1"}, model...))
			}
		}
	}
	dyn := []string{"infer", "--dynamic", "../../examples/mln/social-dynamic.mln", "-e", "../../examples/mln/social-dynamic.db", "-q", "Cancer(A,t)", "--horizon", "3"}
	cases = append(cases, append(dyn, "--filter"), append(dyn, "--smooth"), dyn,
		[]string{"wfomc", wfDir + "friendsmoker.mln", "-q", "friends(Guy,Nima)"},
		[]string{"count", "--method", "exact", copiesCNF},
		[]string{"count", "--residual-vars", "4", "--trials", "2", "--per-step", copiesCNF})
	for _, c := range cases {
		out, stderr, code := run(t, append(c, "--output-format", "json", "--quiet")...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c, code, stderr)
			continue
		}
		if err := s.Validate([]byte(out)); err != nil {
			t.Errorf("%v: %v\n%.300s", c, err, out)
		}
	}
	for _, model := range [][]string{uai, mln} {
		out, stderr, code := run(t, append([]string{"compress", "--quiet"}, model...)...)
		if err := s.ValidateDef("graphStats", []byte(out)); code != 0 || err != nil {
			t.Errorf("compress %v: exit %d, %v: %s", model, code, err, stderr+strings.TrimSpace(out))
		}
	}
}
