package dynamic

import (
	"io"

	"github.com/lifted-dev/lifted/internal/svgplot"
)

// Series is one curve of a plot over time steps.
type Series struct {
	Label string
	Steps []int
	P     []float64
}

// WriteSVG draws the series (a probability per step) as a self-contained
// SVG image (internal/svgplot: no plotting library). PNG and PDF are
// package dynplot's (gonum/plot).
func WriteSVG(w io.Writer, title string, series []Series) error {
	c := svgplot.Chart{Title: title, XLabel: "time step t", YLabel: "probability", YMin: 0, YMax: 1}
	for _, s := range series {
		x := make([]float64, len(s.Steps))
		for k, t := range s.Steps {
			x[k] = float64(t)
		}
		c.Series = append(c.Series, svgplot.Series{Label: s.Label, X: x, Y: s.P})
	}
	return svgplot.Write(w, c)
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
