package main

import (
	"fmt"
	"strings"

	_ "github.com/lifted-dev/lifted/infer/maplp" // registers lp and ilp
	"github.com/spf13/cobra"
)

// newMapCmd is "lifted map": infer --max-product with --method lp by
// default (issue 12's MAP command).
func newMapCmd() *cobra.Command {
	cmd := newInferCmd()
	cmd.Use = "map [flags] MODEL"
	cmd.Short = "MAP assignment (the most probable world): LP relaxation with a bound by default"
	cmd.Long = `map prints a most probable world of MODEL given the evidence: "lifted infer
--max-product" with --method lp by default. Methods:

  lp          the MAP LP relaxation: the local polytope (--relaxation local) or,
              by default, the local polytope tightened by cycle inequalities
              added as cutting planes (--relaxation cycle); the LP is lifted
              over the classes of --symmetry (none; colour: colour passing,
              LOCAL only; orbits: automorphism orbits of the factor graph,
              the default for factor graphs; renaming: constant renamings of
              the MLN, the default for MLNs). A world is decoded from the LP
              solution by rounding (each atom its most likely state) and
              greedy one-variable local search; the LP value is an upper
              bound on every world's score.
  ilp         exact MAP: branch and bound on the ground LP (small models).
  map-auto    anytime MAP with a bound on real, evidence-heavy data: MaxWalkSAT
              per connected component (--workers), then an LP dual bound
              (clustered MPLP) and exact branch and bound on small
              components, within --time-limit (default 8s, so that with
              grounding a real dataset answers in under 10 s).
  maxwalksat  MaxWalkSAT local search (Alchemy's and Tuffy's -m): --tries,
              --max-flips, --noise.
  bp, lbp     max-product belief propagation.

For a Markov logic network it prints every query ground atom with 0 or 1
(Alchemy's result format), for a factor graph the UAI MPE format;
--output-format json gives "assignment" and, for lp and ilp, "objective" (the
log score of the world: the sum of the natural logs of its factors' entries;
for an MLN Σ w·n(x) less the constant by which grounding scales each table to
a largest entry of 1), "bound" (the LP value on the same scale), "gap" and
stats (orbits, lp_variables, lp_constraints, cuts, cut_rounds, seconds).
All the flags of infer apply.`
	cmd.Example = `  lifted map examples/fg/smokers10.uai -e examples/fg/smokers10.uai.evid --symmetry none
  lifted map model.uai --relaxation local --symmetry colour --output-format json
  lifted map examples/mln/smokers.mln -e examples/mln/smokers.db -q Smokes,Cancer --method maxwalksat --tries 5 --seed 1
  lifted map --method ilp small.uai`
	fl := cmd.Flags()
	for name, val := range map[string]string{"method": "lp", "max-product": "true"} {
		if err := fl.Set(name, val); err != nil {
			panic(err)
		}
		f := fl.Lookup(name)
		f.DefValue, f.Changed = val, false
	}
	fl.Lookup("method").Usage = "MAP method: lp (LP relaxation with a bound), ilp (exact, small models), map-auto (anytime, with a bound), maxwalksat, bp or lbp (max-product BP)"
	fl.MarkHidden("max-product")
	relaxation := fl.String("relaxation", "cycle", "lp: local (the local polytope) or cycle (plus cycle inequalities by cutting planes)")
	symmetry := fl.String("symmetry", "", "lp: none, colour (LOCAL only), orbits (default for factor graphs) or renaming (default for MLNs)")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		if c.Flags().Lookup("max-product").Value.String() != "true" {
			return usageError{fmt.Errorf("map answers MAP queries only; for marginals run lifted infer")}
		}
		switch m := c.Flags().Lookup("method").Value.String(); m {
		case "lp", "ilp":
			if !c.Flags().Changed("tol") { // BP's default is too tight for cut violations
				c.Flags().Lookup("tol").Value.Set("1e-6")
			}
			props := []string{"relaxation=" + *relaxation}
			sym := *symmetry
			if sym == "" && m == "lp" {
				sym = "orbits"
				if len(args) == 1 && strings.HasSuffix(strings.ToLower(args[0]), ".mln") {
					sym = "renaming"
				}
			}
			if sym != "" {
				props = append(props, "symmetry="+sym)
			}
			for _, p := range props {
				if err := c.Flags().Set("prop", p); err != nil {
					return err
				}
			}
		default:
			for _, name := range []string{"relaxation", "symmetry"} {
				if c.Flags().Changed(name) {
					return usageError{fmt.Errorf("--%s applies to --method lp and ilp, not %s", name, m)}
				}
			}
		}
		return run(c, args)
	}
	return cmd
}
