package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/dynamic"
	"github.com/lifted-dev/lifted/engine"
)

// dynamicFlags are infer's flags for dynamic MLNs (--dynamic).
type dynamicFlags struct {
	on       bool
	horizon  int
	protocol string
	filter   bool
	smooth   bool
	plot     string
	plotFmt  string
	plotAtom []string
}

func (d *dynamicFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&d.on, "dynamic", false, "dynamic MLN: unroll over the time steps and run the factored frontier (FF, --method bp) or lifted FF (--method lbp, the default); evidence (.db files, or directories of per-step .db files) names steps as constants")
	fl.IntVar(&d.horizon, "horizon", -1, "dynamic: last time step T (steps 0..T; default: the declared range of the time type)")
	fl.StringVar(&d.protocol, "protocol", "fb", "dynamic: message protocol: fb (forwards-backwards, the factored frontier) or flood")
	fl.BoolVar(&d.filter, "filter", false, "dynamic: only the filtered marginals P(X_t | evidence of steps 0..t), step by step")
	fl.BoolVar(&d.smooth, "smooth", false, "dynamic: only the smoothed marginals (all evidence)")
	fl.StringVar(&d.plot, "plot", "", "dynamic: draw the marginals of the query fluents over time (.svg; .png and .pdf in a build with -tags plot)")
	fl.StringArrayVar(&d.plotAtom, "plot-atom", nil, "dynamic: atoms to draw, without the time argument, e.g. 'Cancer(A)' (repeatable; default: the first 8)")
}

// check validates the flags of a dynamic run; method auto is lbp there.
func (d *dynamicFlags) check(fl *pflag.FlagSet, f *inferFlags) error {
	if f.method == "auto" {
		f.method = "lbp"
	}
	for _, name := range []string{"max-product", "schedule"} {
		if fl.Lookup(name).Changed {
			return usageError{fmt.Errorf("--%s does not apply to --dynamic (--protocol sets BP's message order)", name)}
		}
	}
	switch d.protocol {
	case "fb", "flood":
	default:
		return usageError{fmt.Errorf("unknown --protocol %q (want fb or flood)", d.protocol)}
	}
	if f.method != "lbp" && f.method != "bp" && fl.Lookup("protocol").Changed {
		return usageError{fmt.Errorf("--protocol applies to --method lbp and bp only")}
	}
	return nil
}

// notDynamic refuses the dynamic flags (--plot, --horizon, --smooth, …)
// in a run without --dynamic, which would ignore them.
func notDynamic(fl *pflag.FlagSet) error {
	var err error
	fl.Visit(func(f *pflag.Flag) {
		if err == nil && f.Name != "dynamic" && strings.HasPrefix(f.Usage, "dynamic") {
			err = usageError{fmt.Errorf("--%s applies to dynamic MLNs only: add --dynamic (see 'lifted infer --help', \"Flags of dynamic MLNs\")", f.Name)}
		}
	})
	return err
}

// apply adds the dynamic options to the request.
func (d *dynamicFlags) apply(req *engine.Request, f *inferFlags) error {
	if d.filter && d.smooth {
		return usageError{fmt.Errorf("--filter and --smooth exclude each other (without either, both are printed)")}
	}
	if d.plot != "" {
		var err error
		if d.plotFmt, err = plotFormat(d.plot); err != nil {
			return err
		}
	}
	if len(f.query) == 0 && len(f.queryFiles) == 0 {
		return usageError{fmt.Errorf("--dynamic needs query fluents (-q), e.g. -q Cancer")}
	}
	req.Dynamic = &engine.Dynamic{Horizon: d.horizon, Protocol: d.protocol, Filter: d.filter, Smooth: d.smooth}
	return nil
}

// writePlot draws --plot.
func (d *dynamicFlags) writePlot(res *engine.Result, stdout io.Writer) error {
	if d.plot == "" {
		return nil
	}
	series, title, err := res.Series(d.plotAtom, 8)
	var ns *engine.NoSuchAtomError
	if errors.As(err, &ns) {
		return usageError{fmt.Errorf("--plot-atom %v", ns)}
	}
	if err != nil {
		return err
	}
	return writeOutput(d.plot, stdout, func(w io.Writer) error {
		if d.plotFmt == "svg" {
			return dynamic.WriteSVG(w, title, series)
		}
		return writeGonumPlot(w, d.plotFmt, title, series)
	})
}
