package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/learn"
)

type loglikFlags struct {
	outFormat     string
	output        string
	defaultWeight optFloat
	quiet         bool
}

func newLoglikCmd() *cobra.Command {
	var f loglikFlags
	cmd := &cobra.Command{
		Use:   "loglik [flags] MODEL.mln TEST.db [MORE.db…]",
		Short: "Exact test-set log-likelihood of databases under an MLN",
		Long: `loglik prints the exact log-likelihood of each database under MODEL.mln,
Σᵢ wᵢ·nᵢ(db) − log Z, where nᵢ(db) is the number of true groundings of
formula i in the database (closed world: atoms it does not list are false)
and Z is the partition function over the database's domain, computed by
weighted first-order model counting. With several databases each is
evaluated on its own domain and the total is printed last. A database that
violates a hard formula has log-likelihood -Inf.`,
		Example: `  lifted loglik learned.mln smoking-test.db
  lifted loglik learned.mln fold1.db fold2.db --output-format json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 2 {
				return usageError{fmt.Errorf("loglik takes a model and at least one database, got %d argument(s)", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLoglik(&f, args[0], args[1:], cmd.OutOrStdout())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.outFormat, "output-format", "text", "text or json")
	fl.StringVarP(&f.output, "output", "o", "", "output file (default stdout)")
	fl.Var(&f.defaultWeight, "default-weight", "weight for formulas written without one (otherwise they are an error)")
	fl.BoolVar(&f.quiet, "quiet", false, "no warnings on stderr")
	return cmd
}

func runLoglik(f *loglikFlags, model string, dbs []string, stdout io.Writer) error {
	if f.outFormat != "text" && f.outFormat != "json" {
		return usageError{fmt.Errorf("unknown --output-format %q (want text or json)", f.outFormat)}
	}
	m, err := readMLNQuiet(model, f.quiet)
	if err != nil {
		return err
	}
	res, err := learn.TestLogLikelihoods(m, dbs, f.defaultWeight.value())
	if err != nil {
		return cmdError(model, err)
	}
	rows := res.Databases
	for _, r := range rows {
		if r.Violated != "" && !f.quiet {
			fmt.Fprintf(os.Stderr, "lifted: warning: %s violates hard %s: log-likelihood -Inf\n", r.DB, r.Violated)
		}
	}
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return json.NewEncoder(w).Encode(res)
		}
		for _, r := range rows {
			fmt.Fprintf(w, "%s\t%s\n", fmtFloat(r.Value), r.DB)
		}
		if len(rows) > 1 {
			fmt.Fprintf(w, "%s\ttotal\n", fmtFloat(res.Total))
		}
		return nil
	})
}
