package main

import (
	"context"
	"encoding/json"
	"io"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

func newCompressCmd() *cobra.Command {
	var f graphFlags
	var mf mlnFlags
	var output string
	cmd := &cobra.Command{
		Use:   "compress [flags] MODEL",
		Short: "Colour passing only: print the sizes of the compressed graph as JSON",
		Long: `compress runs colour passing on MODEL (.uai, .fg or .cnf with UAI evidence, or
an Alchemy .mln with .db evidence, which is grounded first) and prints the
statistics of the compressed (lifted) graph as JSON: variables, factors, edges,
clusternodes, clusterfactors, lifted_edges, color_iterations and color_seconds
(the BP fields are zero), plus ground_atoms and ground_formulas for an MLN.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if isMLN(args[0], f.format) {
				return compressMLN(cmd.Context(), &f, &mf, args[0], output, cmd.OutOrStdout())
			}
			return runCompress(cmd.Context(), &f, args[0], output, cmd.OutOrStdout())
		},
	}
	f.register(cmd)
	mf.register(cmd)
	cmd.Flags().StringVarP(&output, "output", "o", "", "output file (default stdout)")
	return cmd
}

func runCompress(ctx context.Context, f *graphFlags, path, output string, stdout io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	l, err := loadGraph(path, f.format)
	if err != nil {
		return err
	}
	mode, err := colourMode(f.colorMode, l.format)
	if err != nil {
		return err
	}
	colour := lift.Options{Mode: mode}
	if mode == lift.Symmetric {
		colour.Symmetric = symmetricTables(l.graph)
	}
	ev, err := loadEvidence(f.evidence, l.graph)
	if err != nil {
		return err
	}
	ref, err := f.workers.refiner()
	if err != nil {
		return err
	}
	prog := newProgress(f.quiet)
	colour.Progress = prog.colour
	_, st, err := infer.CompressWith(ctx, ref, l.graph, ev, true, colour)
	prog.done()
	if err != nil {
		return err
	}
	return writeOutput(output, stdout, func(w io.Writer) error {
		return json.NewEncoder(w).Encode(st)
	})
}
