package main

import (
	"fmt"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// plots draws, for each model, the average KL divergence against wall time
// of every method at the largest domain size measured (log-log; lifted BP
// is one point: it is not an anytime method).
func plots(dir string, rows []row) error {
	largest := map[string]int{}
	for _, r := range rows {
		if r.note == "" && r.n > largest[r.model] {
			largest[r.model] = r.n
		}
	}
	for model, n := range largest {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s, n = %d", model, n)
		p.X.Label.Text = "time (s)"
		p.Y.Label.Text = "average KL divergence"
		p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
		p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
		p.Add(plotter.NewGrid())
		byMethod := map[string]plotter.XYs{}
		var order []string
		for _, r := range rows {
			if r.model != model || r.n != n || r.note != "" {
				continue
			}
			if _, ok := byMethod[r.method]; !ok {
				order = append(order, r.method)
			}
			byMethod[r.method] = append(byMethod[r.method], plotter.XY{X: r.seconds, Y: math.Max(r.kl, 1e-9)})
		}
		for i, meth := range order {
			line, points, err := plotter.NewLinePoints(byMethod[meth])
			if err != nil {
				return err
			}
			line.Color = plotutil.Color(i)
			points.Color = plotutil.Color(i)
			points.Shape = plotutil.Shape(i)
			line.Width = vg.Points(1.5)
			p.Add(line, points)
			p.Legend.Add(meth, line, points)
		}
		// A log axis needs a range: one point alone gets a factor 2 around it.
		for _, ax := range []*plot.Axis{&p.X, &p.Y} {
			if ax.Min >= ax.Max {
				ax.Min, ax.Max = ax.Min/2, ax.Max*2
			}
		}
		if err := p.Save(6*vg.Inch, 4*vg.Inch, filepath.Join(dir, model+".png")); err != nil {
			return err
		}
	}
	return nil
}
