package main

import (
	"encoding/json"
	"fmt"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"io"
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"
)

type loglikFlags struct {
	outFormat     string
	output        string
	defaultWeight unsetFloat
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
	f.defaultWeight = unsetFloat(math.NaN())
	fl.Var(&f.defaultWeight, "default-weight", "weight for formulas written without one (otherwise they are an error)")
	fl.BoolVar(&f.quiet, "quiet", false, "no warnings on stderr")
	return cmd
}

type loglikRow struct {
	DB       string    `json:"db"`
	LogLik   any       `json:"log_likelihood"`
	LogZ     any       `json:"log_z"`
	Counts   []float64 `json:"counts"`
	Violated string    `json:"violated,omitempty"`
	ll       float64
}

func runLoglik(f *loglikFlags, model string, dbs []string, stdout io.Writer) error {
	if f.outFormat != "text" && f.outFormat != "json" {
		return usageError{fmt.Errorf("unknown --output-format %q (want text or json)", f.outFormat)}
	}
	start := time.Now()
	m0, err := readMLNQuiet(model, f.quiet)
	if err != nil {
		return err
	}
	weights0, err := wfomc.Weights(m0, f.defaultWeight.value())
	if err != nil {
		return cmdError(model, err)
	}
	mod0, err := wfomc.Compile(m0, nil)
	if err != nil && !mln.NeedsExpansion(m0) {
		return err
	}
	var rows []loglikRow
	total := 0.0
	for _, path := range dbs {
		// Per-constant formulas ("+x") stand for one formula per constant of
		// this database (all with the formula's weight).
		m, dbl, err := mln.ExpandForData(m0, mlnfile.ReadDBSets([][]string{{path}}))
		if err != nil {
			return err
		}
		db, mod, weights := dbl[0], mod0, weights0
		if m != m0 {
			if weights, err = wfomc.Weights(m, f.defaultWeight.value()); err != nil {
				return cmdError(model, err)
			}
			if mod, err = wfomc.Compile(m, nil); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		d, err := learn.CountDB(m, db, path)
		if err != nil {
			return err
		}
		row := loglikRow{DB: path, Counts: d.Counts}
		res, err := mod.Evaluate(weights, d.Sizes)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		row.LogZ = res.LogZ
		row.ll = -res.LogZ
		for j, fm := range m.Formulas {
			if fm.Hard {
				g := 1.0
				for _, v := range fm.Vars {
					g *= float64(d.Sizes[v.Type])
				}
				if d.Counts[j] != g && row.Violated == "" {
					row.Violated = fmt.Sprintf("formula %d (%s)", j+1, fm.Text)
				}
				continue
			}
			row.ll += weights[j] * d.Counts[j]
		}
		if row.Violated != "" {
			row.ll = math.Inf(-1)
			if !f.quiet {
				fmt.Fprintf(os.Stderr, "lifted: warning: %s violates hard %s: log-likelihood -Inf\n", path, row.Violated)
			}
		}
		row.LogLik = finite(row.ll)
		total += row.ll
		rows = append(rows, row)
	}
	return writeOutput(f.output, stdout, func(w io.Writer) error {
		if f.outFormat == "json" {
			return json.NewEncoder(w).Encode(map[string]any{
				"databases":      rows,
				"log_likelihood": finite(total),
				"seconds":        time.Since(start).Seconds(),
			})
		}
		for _, r := range rows {
			fmt.Fprintf(w, "%s\t%s\n", fmtFloat(r.ll), r.DB)
		}
		if len(rows) > 1 {
			fmt.Fprintf(w, "%s\ttotal\n", fmtFloat(total))
		}
		return nil
	})
}
