package curveplot

import (
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strings"

	"github.com/lifted-dev/lifted/online"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Format returns the gonum/plot format of a plot file name: png, svg or
// pdf by its extension; another extension is an error.
func Format(path string) (string, error) {
	switch ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), ".")); ext {
	case "png", "svg", "pdf":
		return ext, nil
	default:
		return "", fmt.Errorf("--plot %s: write .png, .svg or .pdf", path)
	}
}

// Write draws learning curves (test CMLL vs passes over the
// mega-example, one line per log) with gonum/plot, with a dashed vertical
// line at one pass as in the paper's figures. Logs without CMLL values are
// skipped; with none at all the plot says so in its title.
func Write(w io.Writer, format string, logs []*online.Curve) error {
	p := plot.New()
	p.Title.Text = "Learning curve"
	p.X.Label.Text = "passes over the mega-example"
	p.Y.Label.Text = "test CMLL"
	p.Legend.Top = false
	p.Add(plotter.NewGrid())
	lines := 0
	yMin, yMax := 0.0, 0.0
	for i, l := range logs {
		var xy plotter.XYs
		for _, pt := range l.Points {
			if pt.CMLL == nil {
				continue
			}
			if lines == 0 && len(xy) == 0 {
				yMin, yMax = *pt.CMLL, *pt.CMLL
			}
			yMin, yMax = min(yMin, *pt.CMLL), max(yMax, *pt.CMLL)
			xy = append(xy, plotter.XY{X: pt.Passes, Y: *pt.CMLL})
		}
		if len(xy) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		line.Width = vg.Points(1.5)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		label := l.Label
		if label == "" {
			label = l.Method
		}
		p.Legend.Add(label, line, points)
		lines++
	}
	if lines == 0 {
		p.Title.Text = "no test CMLL (run with --holdout)"
	} else {
		one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: yMin}, {X: 1, Y: yMax}})
		if err != nil {
			return err
		}
		one.Dashes = []vg.Length{vg.Points(4), vg.Points(4)}
		one.Color = color.Gray{Y: 120}
		p.Add(one)
	}
	wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, format)
	if err != nil {
		return err
	}
	_, err = wt.WriteTo(w)
	return err
}
