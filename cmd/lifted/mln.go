package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
)

// mlnFlags are the infer flags that only apply to Markov logic networks.
type mlnFlags struct {
	query         []string
	cw, ow        []string
	defaultWeight float64
	maxGround     int64
	alchemyCNF    bool
}

func (f *mlnFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringSliceVarP(&f.query, "query", "q", nil, "MLN: query predicates, comma-separated")
	fl.StringSliceVar(&f.cw, "cw", nil, "MLN: predicates to treat as closed-world")
	fl.StringSliceVar(&f.ow, "ow", nil, "MLN: predicates to treat as open-world")
	fl.Float64Var(&f.defaultWeight, "default-weight", 0, "MLN: weight for formulas written without one (otherwise they are an error)")
	fl.Int64Var(&f.maxGround, "max-ground", 0, "MLN: refuse groundings with more ground formulas than this (0: sized to memory)")
	fl.BoolVar(&f.alchemyCNF, "alchemy-cnf", false, "MLN: reproduce Alchemy's clause weighting (a formula's weight split over its CNF clauses)")
}

// isMLN reports whether the model is a Markov logic network.
func isMLN(path, format string) bool {
	return format == "mln" || (format == "" && strings.EqualFold(filepath.Ext(path), ".mln"))
}

func runInferMLN(ctx context.Context, f *inferFlags, path string, stdout io.Writer) error {
	return errors.New("MLN inference is not implemented yet")
}
