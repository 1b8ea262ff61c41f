package main

import (
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/engine"
)

func newCompressCmd() *cobra.Command {
	var f graphFlags
	var mf mlnFlags
	var output string
	var tolerance float64
	var damping string
	cmd := &cobra.Command{
		Use:   "compress [flags] MODEL",
		Short: "Colour passing only: print the sizes of the compressed graph as JSON",
		Long: `compress runs colour passing on MODEL (.uai, .fg or .cnf with UAI evidence, or
an Alchemy .mln with .db evidence, which is grounded first) and prints the
statistics of the compressed (lifted) graph as JSON: variables, factors, edges,
clusternodes, clusterfactors, lifted_edges, color_iterations and color_seconds
(the BP fields are zero), plus ground_atoms and ground_formulas for an MLN.
With --tolerance E it compresses approximately as lifted infer --method lbp
--tolerance E does, running lifted BP to choose (its figures and the error
estimate are in the JSON).`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			prog := newProgress(f.quiet)
			req := engine.Request{ColourMode: f.colorMode, Workers: f.workers,
				Query: mf.query, QueryFiles: mf.queryFiles, Ground: mf.options(), Progress: prog.report, Tolerance: tolerance}
			if tolerance > 0 && damping != "" {
				req.Properties = map[string]string{"damping": damping}
			}
			if err := engine.CheckOptions(req); err != nil {
				return cmdError(args[0], err)
			}
			m, err := loadModel(args[0], f.format, f.evidence, f.quiet)
			if err != nil {
				return err
			}
			res, err := m.Compress(cmd.Context(), req)
			prog.done()
			if err != nil {
				return cmdError(args[0], err)
			}
			return writeOutput(output, cmd.OutOrStdout(), func(w io.Writer) error {
				if res.Route == engine.RouteGraph {
					return json.NewEncoder(w).Encode(res.Stats.Stats)
				}
				return json.NewEncoder(w).Encode(res.Stats)
			})
		},
	}
	f.register(cmd)
	mf.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "", "output file (default stdout)")
	cmd.Flags().Float64Var(&tolerance, "tolerance", 0, "compress approximately, accepting this mean |marginal - ground BP| (as lifted infer --method lbp --tolerance; runs lifted BP to choose); 0 = exact colour passing")
	cmd.Flags().StringVar(&damping, "damping", "", "with --tolerance: lifted BP's damping")
	groupFlags(cmd, prefixed(cmd, "Flags of MLNs", "MLN:"))
	return cmd
}

// loadModel reads a model and its evidence (engine.Load), printing the
// parser's warnings.
func loadModel(path, format string, evidence []string, quiet bool) (*engine.Model, error) {
	m, err := engine.Load(path, engine.LoadOptions{Format: format, Evidence: evidence})
	if m != nil {
		warn(quiet, m.Warnings)
	}
	return m, cmdError(path, err)
}
