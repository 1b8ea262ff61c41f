package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// writeCurveSVG draws learning curves (test CMLL vs passes over the
// mega-example, one line per log) as a self-contained SVG, with a dashed
// vertical line at one pass as in the paper's figures. Logs without CMLL
// values are skipped; with none at all the plot says so.
func writeCurveSVG(w io.Writer, logs []*curveLog) error {
	const W, H, left, right, top, bottom = 720.0, 450.0, 80.0, 200.0, 30.0, 55.0
	x0, x1 := 0.0, 1.0
	y0, y1 := math.Inf(1), math.Inf(-1)
	for _, l := range logs {
		for _, p := range l.Points {
			if p.CMLL == nil {
				continue
			}
			x1 = math.Max(x1, p.Passes)
			y0 = math.Min(y0, *p.CMLL)
			y1 = math.Max(y1, *p.CMLL)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" font-family="sans-serif" font-size="12">`+"\n", W, H)
	fmt.Fprintf(&b, `<rect width="%g" height="%g" fill="white"/>`+"\n", W, H)
	if math.IsInf(y0, 1) {
		fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">no test CMLL (run with --holdout)</text></svg>`+"\n", W/2, H/2)
		_, err := io.WriteString(w, b.String())
		return err
	}
	if y1-y0 < 1e-9 {
		y0, y1 = y0-1, y1+1
	}
	pad := (y1 - y0) * 0.05
	y0, y1 = y0-pad, y1+pad
	px := func(x float64) float64 { return left + (x-x0)/(x1-x0)*(W-left-right) }
	py := func(y float64) float64 { return H - bottom - (y-y0)/(y1-y0)*(H-top-bottom) }
	// axes and ticks
	fmt.Fprintf(&b, `<path d="M%g %g V%g H%g" fill="none" stroke="black"/>`+"\n", left, top, H-bottom, W-right)
	for _, t := range ticks(x0, x1) {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="black"/><text x="%.1f" y="%g" text-anchor="middle">%g</text>`+"\n",
			px(t), H-bottom, px(t), H-bottom+5, px(t), H-bottom+18, t)
	}
	for _, t := range ticks(y0, y1) {
		fmt.Fprintf(&b, `<line x1="%g" y1="%.1f" x2="%g" y2="%.1f" stroke="black"/><text x="%g" y="%.1f" text-anchor="end">%g</text>`+"\n",
			left-5, py(t), left, py(t), left-8, py(t)+4, t)
	}
	fmt.Fprintf(&b, `<text x="%g" y="%g" text-anchor="middle">passes over the mega-example</text>`+"\n", (left+W-right)/2, H-15)
	fmt.Fprintf(&b, `<text transform="translate(18 %g) rotate(-90)" text-anchor="middle">test CMLL</text>`+"\n", (top+H-bottom)/2)
	if x1 >= 1 {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%g" x2="%.1f" y2="%g" stroke="gray" stroke-dasharray="5,4"/>`+"\n", px(1), top, px(1), H-bottom)
	}
	colours := []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"}
	for i, l := range logs {
		c := colours[i%len(colours)]
		var d strings.Builder
		for _, p := range l.Points {
			if p.CMLL == nil {
				continue
			}
			cmd := "L"
			if d.Len() == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f %.1f ", cmd, px(p.Passes), py(*p.CMLL))
		}
		fmt.Fprintf(&b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.TrimSpace(d.String()), c)
		ly := top + 10 + float64(i)*18
		label := l.Label
		if label == "" {
			label = l.Method
		}
		fmt.Fprintf(&b, `<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="%s" stroke-width="2"/><text x="%g" y="%g">%s</text>`+"\n",
			W-right+15, ly, W-right+40, ly, c, W-right+45, ly+4, html.EscapeString(label))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// ticks returns about five round tick values in [lo, hi].
func ticks(lo, hi float64) []float64 {
	span := hi - lo
	step := math.Pow(10, math.Floor(math.Log10(span/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if span/(step*m) <= 6 {
			step *= m
			break
		}
	}
	var out []float64
	for t := math.Ceil(lo/step) * step; t <= hi+step*1e-9; t += step {
		out = append(out, math.Round(t/step)*step)
	}
	return out
}
