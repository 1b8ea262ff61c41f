//go:build plot

package main

import (
	"io"

	"github.com/lifted-dev/lifted/dynamic"
	"github.com/lifted-dev/lifted/dynamic/dynplot"
	"github.com/lifted-dev/lifted/online"
	"github.com/lifted-dev/lifted/online/curveplot"
)

// gonumPlots: this build (-tags plot) draws PNG and PDF with gonum/plot.
const gonumPlots = true

func writeGonumPlot(w io.Writer, format, title string, series []dynamic.Series) error {
	return dynplot.WritePlot(w, format, title, series)
}

func writeGonumCurves(w io.Writer, format string, curves []*online.Curve) error {
	return curveplot.Write(w, format, curves)
}
