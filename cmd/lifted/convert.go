package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// convertFlags are the flags of "lifted convert".
type convertFlags struct {
	graphFlags
	mlnFlags
	to     string
	shards int
	output string
}

func newConvertCmd() *cobra.Command {
	var f convertFlags
	cmd := &cobra.Command{
		Use:   "convert [flags] MODEL --to edgelist --shards K -o DIR",
		Short: "Write a model as a sharded edge list (the input of the Beam colour-passing pipeline)",
		Long: `convert writes MODEL (.uai, .fg or .cnf with UAI evidence, or an Alchemy .mln
with .db evidence, which is grounded first, as lifted compress --construction
ground grounds it) as an edge list in K shards DIR/edges-00000.txt, … : colour
passing's input as text, one "v ID COLOUR" line per variable and one
"f ID COLOUR SORTED VAR:KEY …" line per factor (see beam/README.md and
lift.WriteEdgeList). The colours and slot keys are decided here, under
--color-mode and the evidence, so colour passing on the edge list (beam's
colourpass --input 'DIR/edges-*.txt') gives lifted compress's partition.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConvert(cmd.Context(), &f, args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.evidence, "evidence", "e", nil, "evidence file: UAI .evid for factor graphs; Alchemy .db for MLNs (repeatable)")
	fl.StringVar(&f.format, "format", "", "model format: uai, fg, cnf or mln (default: from the extension)")
	fl.StringVar(&f.colorMode, "color-mode", "auto", "colour passing: auto, positional, symmetric or cnf, as lifted compress")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress or warnings on stderr")
	f.mlnFlags.register(cmd)
	fl.StringVar(&f.to, "to", "edgelist", "output format: edgelist")
	fl.IntVar(&f.shards, "shards", 1, "number of shard files")
	fl.StringVarP(&f.output, "output", "o", "", "output directory (required; created if missing)")
	groupFlags(cmd, prefixed(cmd, "Flags of MLNs", "MLN:"))
	return cmd
}

func runConvert(ctx context.Context, f *convertFlags, path string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if f.to != "edgelist" {
		return usageError{fmt.Errorf("unknown --to %q (want edgelist)", f.to)}
	}
	if f.shards < 1 {
		return usageError{fmt.Errorf("--shards must be at least 1, got %d", f.shards)}
	}
	if f.output == "" {
		return usageError{fmt.Errorf("convert needs the output directory: -o DIR")}
	}
	if f.construction == engine.ConstructFirstOrder {
		return usageError{fmt.Errorf("convert writes the ground graph: --construction first-order does not apply")}
	}
	g, ev, opt, err := convertGraph(ctx, f, path)
	if err != nil {
		return err
	}
	glob, err := engine.WriteEdgeListFiles(f.output, f.shards, g, ev, opt)
	if errors.Is(err, engine.ErrShardsExist) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if !f.quiet {
		fmt.Fprintf(os.Stderr, "lifted: %d variables, %d factors, %d edges in %d shards %s\n",
			g.NumVars(), g.NumFactors(), g.NumEdges(), f.shards, glob)
	}
	return nil
}

// convertGraph reads (or grounds) the model and decides its colouring
// options, as lifted compress does.
func convertGraph(ctx context.Context, f *convertFlags, path string) (*fg.Graph, fg.Evidence, lift.Options, error) {
	prog := newProgress(f.quiet)
	defer prog.done()
	req := engine.Request{ColourMode: f.colorMode, Ground: f.mlnFlags.options(), Progress: prog.report}
	if err := engine.CheckOptions(req); err != nil {
		return nil, nil, lift.Options{}, cmdError(path, err)
	}
	m, err := loadModel(path, f.format, f.evidence, f.quiet)
	if err != nil {
		return nil, nil, lift.Options{}, err
	}
	g, ev, opt, err := m.GroundGraph(ctx, req)
	return g, ev, opt, cmdError(path, err)
}
