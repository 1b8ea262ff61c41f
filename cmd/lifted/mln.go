package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/pos"
)

// mlnFlags are the infer flags that only apply to Markov logic networks.
type mlnFlags struct {
	query           []string
	queryFiles      []string
	cw, ow          []string
	defaultWeight   optFloat
	maxGround       int64
	alchemyCNF      bool
	mergeDuplicates bool
	// lazy is --lazy: MAP by cutting planes on lazy groundings.
	lazy bool
	// construction is --construction: first-order (the default: lift
	// before grounding where lift/firstorder applies) or ground.
	construction string
	// dialect is --dialect: auto (detect), alchemy, tuffy, pracmln or lomrf.
	dialect string
}

func (f *mlnFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVarP(&f.query, "query", "q", nil, "MLN: query predicates or atoms, comma-separated, e.g. Smokes,Cancer or 'Friends(Anna,y)' (repeatable)")
	fl.StringArrayVar(&f.queryFiles, "query-file", nil, "MLN: file of query atoms, one per line or comma-separated (Alchemy's -f, Tuffy's -queryFile; repeatable)")
	fl.StringSliceVar(&f.cw, "cw", nil, "MLN: predicates to treat as closed-world")
	fl.StringSliceVar(&f.ow, "ow", nil, "MLN: predicates to treat as open-world")
	fl.Var(&f.defaultWeight, "default-weight", "MLN: weight for formulas written without one (otherwise they are an error)")
	fl.Int64Var(&f.maxGround, "max-ground", 0, "MLN: refuse groundings with more ground formulas or atoms than this (0: sized to the available memory; -1: no limit)")
	fl.BoolVar(&f.alchemyCNF, "alchemy-cnf", false, "MLN: reproduce Alchemy's clause weighting (a formula's weight split over its CNF clauses)")
	fl.StringVar(&f.construction, "construction", "", "MLN: how lifted BP's counted graph is made: first-order (from the MLN without grounding it, where that applies; otherwise grounded) or ground (ground, then colour passing); by default first-order where the evidence leaves most constants interchangeable")
	fl.StringVar(&f.dialect, "dialect", "auto", "MLN: the system whose syntax and semantics the model follows: alchemy, tuffy (only *-marked predicates closed-world), pracmln, lomrf, or auto (detected from the syntax, and reported)")
	fl.BoolVar(&f.lazy, "lazy", false, "MLN, map: ground only the ground formulas that the MAP worlds break, by cutting planes (Tuffy's and Alchemy's lazy grounding)")
	fl.BoolVar(&f.mergeDuplicates, "merge-duplicates", false, "MLN: combine ground formulas over the same atoms into one factor, as Alchemy does (default: one factor per ground formula)")
}

// notMLN refuses the MLN flags (-q, --cw, --max-ground, …) for a factor
// graph, which would ignore them.
func notMLN(fl *pflag.FlagSet, path string) error {
	var err error
	fl.Visit(func(f *pflag.Flag) {
		if err == nil && strings.HasPrefix(f.Usage, "MLN:") {
			err = usageError{fmt.Errorf("--%s applies to Markov logic networks (.mln) only; %s is a factor graph", f.Name, path)}
		}
	})
	return err
}

// options are the grounding options the flags set.
func (f *mlnFlags) options() engine.GroundOptions {
	o := engine.GroundOptions{ClosedWorld: f.cw, OpenWorld: f.ow, MaxGround: f.maxGround,
		AlchemyCNF: f.alchemyCNF, MergeDuplicates: f.mergeDuplicates, Construction: f.construction, Lazy: f.lazy}
	o.DefaultWeight = f.defaultWeight.value()
	return o
}

// optFloat is a float flag that remembers whether it was given.
type optFloat struct {
	v   float64
	set bool
}

// String prints the value, or "" when the flag was not given.
func (o *optFloat) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}

// Set parses a finite number.
func (o *optFloat) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("want a finite number, got %q", s)
	}
	o.v, o.set = v, true
	return nil
}

// value is the flag's value, nil when it was not given.
func (o *optFloat) value() *float64 {
	if !o.set {
		return nil
	}
	return &o.v
}

// Type names the flag's type in the help.
func (o *optFloat) Type() string { return "float" }

// warn prints parser warnings on stderr (at most ten).
func warn(quiet bool, ws []*pos.Error) {
	if quiet {
		return
	}
	for i, w := range ws {
		if i == 10 {
			fmt.Fprintf(os.Stderr, "lifted: warning: %d more warnings\n", len(ws)-10)
			break
		}
		fmt.Fprintf(os.Stderr, "lifted: warning: %v\n", w)
	}
}
