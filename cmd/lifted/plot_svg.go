//go:build !plot

package main

import (
	"errors"
	"io"

	"github.com/lifted-dev/lifted/dynamic"
	"github.com/lifted-dev/lifted/online"
)

// gonumPlots: this build draws SVG only (internal/svgplot), so that the
// lifted command does not pull gonum/plot's font, LaTeX and PDF modules (a
// first "go run ./cmd/lifted" downloads them otherwise); -tags plot adds
// PNG and PDF (plot_gonum.go).
const gonumPlots = false

var errNoGonum = errors.New("PNG and PDF plots need a build with -tags plot")

func writeGonumPlot(io.Writer, string, string, []dynamic.Series) error { return errNoGonum }

func writeGonumCurves(io.Writer, string, []*online.Curve) error { return errNoGonum }
