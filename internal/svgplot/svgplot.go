// Package svgplot draws line charts as self-contained SVG images, without
// a plotting library: the plots the command line writes by default
// (lifted infer --dynamic --plot F.svg, lifted learn --plot F.svg), so
// that the main binary does not pull plotting, font, LaTeX and PDF
// modules (PNG and PDF need a build with -tags plot: gonum/plot).
package svgplot

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"math"
	"strconv"
)

// Series is one labelled line: points (X[i], Y[i]).
type Series struct {
	Label string
	X, Y  []float64
}

// Chart is a line chart. The axes span the data, or [XMin, XMax] when
// XMax > XMin and [YMin, YMax] when YMax > YMin; VLines are dashed
// vertical lines at those x.
type Chart struct {
	Title, XLabel, YLabel string
	XMin, XMax            float64
	YMin, YMax            float64
	Series                []Series
	VLines                []float64
}

// colours are the lines' colours, in turn.
var colours = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}

// Write draws c as SVG: a frame with five ticks per axis, the lines with
// their points, a legend with each line's label. Non-finite points are
// skipped.
func Write(w io.Writer, c Chart) error {
	const (
		W, H         = 640, 420
		left, right  = 70, 20
		top, bottom  = 40, 50
		plotW, plotH = W - left - right, H - top - bottom
		lh           = 16
	)
	x0, x1 := math.Inf(1), math.Inf(-1)
	y0, y1 := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for i := range s.X {
			if finite(s.X[i]) && finite(s.Y[i]) {
				x0, x1 = min(x0, s.X[i]), max(x1, s.X[i])
				y0, y1 = min(y0, s.Y[i]), max(y1, s.Y[i])
			}
		}
	}
	for _, v := range c.VLines {
		x0, x1 = min(x0, v), max(x1, v)
	}
	if c.XMax > c.XMin {
		x0, x1 = c.XMin, c.XMax
	}
	if c.YMax > c.YMin {
		y0, y1 = c.YMin, c.YMax
	}
	if !(x1 >= x0) {
		x0, x1 = 0, 1
	}
	if !(y1 >= y0) {
		y0, y1 = 0, 1
	}
	if x1 == x0 {
		x0, x1 = x0-0.5, x1+0.5
	}
	if y1 == y0 {
		y0, y1 = y0-0.5, y1+0.5
	}
	px := func(v float64) float64 { return left + (v-x0)/(x1-x0)*plotW }
	py := func(v float64) float64 { return top + (1-(v-y0)/(y1-y0))*plotH }
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(bw, `<text x="%d" y="22" text-anchor="middle" font-size="14">%s</text>`+"\n", W/2, html.EscapeString(c.Title))
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>`+"\n", left, top, plotW, plotH)
	for i := 0; i <= 5; i++ {
		xv, yv := x0+float64(i)/5*(x1-x0), y0+float64(i)/5*(y1-y0)
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", px(xv), top+plotH, px(xv), top+plotH+5, px(xv), top+plotH+18, num(xv))
		fmt.Fprintf(bw, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/><text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-5, py(yv), left, py(yv), left-8, py(yv)+4, num(yv))
	}
	fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="middle">%s</text>`+"\n", left+plotW/2, H-12, html.EscapeString(c.XLabel))
	fmt.Fprintf(bw, `<text x="16" y="%d" text-anchor="middle" transform="rotate(-90 16 %d)">%s</text>`+"\n", top+plotH/2, top+plotH/2, html.EscapeString(c.YLabel))
	for _, v := range c.VLines {
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="gray" stroke-dasharray="4,4"/>`+"\n", px(v), top, px(v), top+plotH)
	}
	for i, s := range c.Series {
		col := colours[i%len(colours)]
		fmt.Fprintf(bw, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="`, col)
		first := true
		for k := range s.X {
			if !finite(s.X[k]) || !finite(s.Y[k]) {
				continue
			}
			if !first {
				bw.WriteByte(' ')
			}
			first = false
			fmt.Fprintf(bw, "%.2f,%.2f", px(s.X[k]), py(s.Y[k]))
		}
		bw.WriteString(`"/>` + "\n")
		for k := range s.X {
			if finite(s.X[k]) && finite(s.Y[k]) {
				fmt.Fprintf(bw, `<circle cx="%.2f" cy="%.2f" r="2.5" fill="%s"/>`+"\n", px(s.X[k]), py(s.Y[k]), col)
			}
		}
		ly := top + 14 + i*lh
		fmt.Fprintf(bw, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d" text-anchor="end">%s</text>`+"\n",
			left+plotW-28, ly-4, left+plotW-4, ly-4, col, left+plotW-32, ly, html.EscapeString(s.Label))
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
