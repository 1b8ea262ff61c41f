package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// newMapCmd is "lifted map": infer --max-product with --method maxwalksat
// by default (issue 12's MAP command; its LP and ILP methods are not built
// yet).
func newMapCmd() *cobra.Command {
	cmd := newInferCmd()
	cmd.Use = "map [flags] MODEL"
	cmd.Short = "MAP assignment (the most probable world): MaxWalkSAT by default"
	cmd.Long = `map prints a most probable world of MODEL given the evidence: "lifted infer
--max-product" with --method maxwalksat by default (MaxWalkSAT local search,
as Alchemy's and Tuffy's -m; --method bp or lbp for max-product BP). For a
Markov logic network it prints every query ground atom with 0 or 1 (Alchemy's
result format), for a factor graph the UAI MPE format; --output-format json
gives "assignment" and, for MaxWalkSAT, stats.objective (the log score of the
world: the sum of the natural logs of its factors' entries). All the flags of
infer apply. The LP relaxation and exact ILP methods (--method lp, ilp) are
not built yet (issue 12).`
	cmd.Example = `  lifted map examples/mln/smokers.mln -e examples/mln/smokers.db -q Smokes,Cancer
  lifted map examples/fg/smokers10.uai -e examples/fg/smokers10.uai.evid --tries 5 --seed 1
  lifted map --method bp model.uai`
	fl := cmd.Flags()
	for name, val := range map[string]string{"method": "maxwalksat", "max-product": "true"} {
		if err := fl.Set(name, val); err != nil {
			panic(err)
		}
		f := fl.Lookup(name)
		f.DefValue, f.Changed = val, false
	}
	fl.Lookup("method").Usage = "MAP method: maxwalksat, bp or lbp (max-product BP); lp and ilp are not built yet (issue 12)"
	fl.MarkHidden("max-product")
	run := cmd.RunE
	cmd.RunE = func(c *cobra.Command, args []string) error {
		switch m := c.Flags().Lookup("method").Value.String(); m {
		case "lp", "ilp":
			return usageError{fmt.Errorf("--method %s is not built yet: issue 12 (use maxwalksat, bp or lbp)", m)}
		}
		if c.Flags().Lookup("max-product").Value.String() != "true" {
			return usageError{fmt.Errorf("map answers MAP queries only; for marginals run lifted infer")}
		}
		return run(c, args)
	}
	return cmd
}
