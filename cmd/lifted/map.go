package main

import (
	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/engine"
)

// newMapCmd is "lifted map": infer --max-product with --method
// engine.DefaultMAPMethod by default (issue 12's MAP command).
func newMapCmd() *cobra.Command {
	var f inferFlags
	cmd := &cobra.Command{Args: exactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
		return runInfer(cmd.Context(), cmd, &f, args[0], cmd.OutOrStdout())
	}}
	f.register(cmd, engine.ModeMAP)
	groupFlags(cmd, append([]flagGroup{prefixed(cmd, "Flags of MLNs", "MLN:")}, settingGroups(engine.ModeMAP)...)...)
	cmd.Use = "map [flags] MODEL"
	cmd.Short = "MAP assignment (the most probable world): --method " + engine.DefaultMAPMethod + " by default, with a bound"
	cmd.Long = `map prints a most probable world of MODEL given the evidence: "lifted infer
--max-product" with --method ` + engine.DefaultMAPMethod + ` by default. Methods:

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
              components, within budgets of work (--max-flips, the dual's
              sweeps: a real dataset answers in seconds, the same answer
              under any load); --time-limit cuts it shorter (marked).
  maxwalksat  MaxWalkSAT local search (Alchemy's and Tuffy's -m): --tries,
              --max-flips, --noise.
  bp, lbp     max-product belief propagation.

For a Markov logic network it prints every query ground atom with 0 or 1
(Alchemy's result format), for a factor graph the UAI MPE format;
--output-format json (engine/result.schema.json) gives "assignment" and, for
every method, "objective": the log score of the world, the sum of the natural
logs of its factors' entries (for an MLN Σ w·n(x) over its ground formulas);
for lp and ilp also "bound" (the LP value on the same scale), "gap" and stats
(orbits, lp_variables, lp_constraints, cuts, cut_rounds, seconds).
The flags below apply; samplers and dynamic MLNs are infer's.`
	cmd.Example = `  lifted map examples/fg/smokers10.uai -e examples/fg/smokers10.uai.evid --symmetry none
  lifted map model.uai --relaxation local --symmetry colour --output-format json
  lifted map examples/mln/smokers.mln -e examples/mln/smokers.db -q Smokes,Cancer --method maxwalksat --tries 5 --seed 1
  lifted map --method ilp small.uai`
	f.maxProduct = true
	fl := cmd.Flags()
	fl.Lookup("method").DefValue, f.method = engine.DefaultMAPMethod, engine.DefaultMAPMethod
	fl.Lookup("method").Usage = "MAP method: map-auto (anytime: MaxWalkSAT per component, then a bound and exact components), lp (LP relaxation with a bound), ilp (exact, small models), maxwalksat, bp or lbp (max-product BP)"
	return cmd
}
