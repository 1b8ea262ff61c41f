// Package dynplot draws the marginals of a dynamic MLN over time with
// gonum/plot (PNG, SVG or PDF). It is apart from package dynamic so that
// programs that do not draw (the lifted command, built without -tags plot)
// do not pull gonum/plot's font, LaTeX and PDF modules; dynamic.WriteSVG
// draws SVG without them.
package dynplot

import (
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/lifted-dev/lifted/dynamic"
)

// WritePlot draws the series (a probability per step) with gonum/plot in the
// given format ("png", "svg" or "pdf").
func WritePlot(w io.Writer, format, title string, series []dynamic.Series) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "time step t"
	p.Y.Label.Text = "probability"
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	for i, s := range series {
		xy := make(plotter.XYs, len(s.Steps))
		for k := range s.Steps {
			xy[k] = plotter.XY{X: float64(s.Steps[k]), Y: s.P[k]}
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		line.Dashes = plotutil.Dashes(i / 7)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		p.Legend.Add(s.Label, line, points)
	}
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
