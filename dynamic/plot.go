package dynamic

import (
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one curve of a plot over time steps.
type Series struct {
	Label string
	Steps []int
	P     []float64
}

// WritePlot draws the series (a probability per step) with gonum/plot in the
// given format ("png", "svg" or "pdf").
func WritePlot(w io.Writer, format, title string, series []Series) error {
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

// SeriesOf groups the query atoms by their atom without the time argument
// ("Cancer(A)" for Cancer(A,0), Cancer(A,1), …) and returns one series per
// group, in query order, with p[i] the probability of Model.Queries[i].
func (md *Model) SeriesOf(p map[int]float64) []Series {
	var out []Series
	at := map[string]int{}
	for i, q := range md.Queries {
		v, ok := p[i]
		if !ok {
			continue
		}
		key := md.atomWithoutTime(q.Var)
		k, ok := at[key]
		if !ok {
			k = len(out)
			at[key] = k
			out = append(out, Series{Label: key})
		}
		out[k].Steps = append(out[k].Steps, q.Step)
		out[k].P = append(out[k].P, v)
	}
	return out
}

// atomWithoutTime names a fluent atom without its time argument.
func (md *Model) atomWithoutTime(v int32) string {
	gr := md.Grounding
	p, args, _ := gr.Atom(v)
	d := md.Static.Preds[p]
	s := d.Name
	if len(args) > 1 {
		s += "("
		for i, a := range args[:len(args)-1] {
			if i > 0 {
				s += ","
			}
			s += gr.Domain(md.Static.TypeIndex(d.ArgTypes[i]))[a]
		}
		s += ")"
	}
	return s
}
