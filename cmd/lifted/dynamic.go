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

// check checks --plot's format before any work (engine.Named.Resolve
// checks the other dynamic options).
func (d *dynamicFlags) check() error {
	if d.plot == "" {
		return nil
	}
	var err error
	d.plotFmt, err = plotFormat(d.plot)
	return err
}

// options are the dynamic options of the request; the protocol only when
// given (engine.Named: "" is fb, and a protocol given to a method without
// one is refused).
func (d *dynamicFlags) options(fl *pflag.FlagSet) *engine.Dynamic {
	o := &engine.Dynamic{Horizon: d.horizon, Filter: d.filter, Smooth: d.smooth}
	if fl.Changed("protocol") {
		o.Protocol = d.protocol
	}
	return o
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
