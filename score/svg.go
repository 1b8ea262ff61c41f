package score

import (
	"bufio"
	"fmt"
	"html"
	"io"
)

// Curve is a labelled precision-recall curve for WritePRCurveSVG.
type Curve struct {
	Label  string
	Points []PRPoint
}

// WritePRCurveSVG draws precision against recall, one line per curve, as
// a self-contained SVG image (no plotting library): axes from 0 to 1 with
// ticks every 0.2, a legend with each curve's label.
func WritePRCurveSVG(w io.Writer, title string, curves []Curve) error {
	const (
		W, H           = 480, 400
		left, right    = 60, 20
		top, bottom    = 40, 50
		plotW, plotH   = W - left - right, H - top - bottom
		legendLine, lh = 24, 16
	)
	x := func(r float64) float64 { return left + r*plotW }
	y := func(p float64) float64 { return top + (1-p)*plotH }
	colours := []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(bw, `<rect width="%d" height="%d" fill="white"/>`+"\n", W, H)
	fmt.Fprintf(bw, `<text x="%d" y="20" text-anchor="middle" font-size="14">%s</text>`+"\n", W/2, html.EscapeString(title))
	fmt.Fprintf(bw, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="black"/>`+"\n", left, top, plotW, plotH)
	for i := 0; i <= 5; i++ {
		v := float64(i) / 5
		fmt.Fprintf(bw, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="black"/><text x="%.1f" y="%d" text-anchor="middle">%.1f</text>`+"\n", x(v), top+plotH, x(v), top+plotH+5, x(v), top+plotH+18, v)
		fmt.Fprintf(bw, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="black"/><text x="%d" y="%.1f" text-anchor="end">%.1f</text>`+"\n", left-5, y(v), left, y(v), left-8, y(v)+4, v)
	}
	fmt.Fprintf(bw, `<text x="%d" y="%d" text-anchor="middle">recall</text>`+"\n", left+plotW/2, H-12)
	fmt.Fprintf(bw, `<text x="16" y="%d" text-anchor="middle" transform="rotate(-90 16 %d)">precision</text>`+"\n", top+plotH/2, top+plotH/2)
	for i, c := range curves {
		col := colours[i%len(colours)]
		fmt.Fprintf(bw, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="`, col)
		for k, p := range c.Points {
			if k > 0 {
				bw.WriteByte(' ')
			}
			fmt.Fprintf(bw, "%.2f,%.2f", x(p.Recall), y(p.Precision))
		}
		bw.WriteString(`"/>` + "\n")
		ly := top + 12 + i*lh
		fmt.Fprintf(bw, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d" text-anchor="end">%s</text>`+"\n",
			left+plotW-legendLine-4, ly-4, left+plotW-4, ly-4, col, left+plotW-legendLine-8, ly, html.EscapeString(c.Label))
	}
	bw.WriteString("</svg>\n")
	return bw.Flush()
}
