package svgplot

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"
)

// The SVG is well-formed XML, escapes its text, draws one polyline per
// series through its finite points (mapped into the frame), and puts the
// extreme points on the frame's edges.
func TestWrite(t *testing.T) {
	var b bytes.Buffer
	c := Chart{Title: "P(a<b) & c", XLabel: "t", YLabel: "p", YMin: 0, YMax: 1,
		Series: []Series{{Label: "A", X: []float64{0, 1, 2}, Y: []float64{0, 0.5, 1}}, {Label: "B", X: []float64{0, 2}, Y: []float64{math.NaN(), 0.25}}},
		VLines: []float64{1}}
	if err := Write(&b, c); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	polylines := 0
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "polyline" {
			polylines++
			for _, a := range se.Attr {
				if a.Name.Local == "points" && polylines == 1 && a.Value != "70.00,370.00 345.00,205.00 620.00,40.00" {
					t.Errorf("first series at %q", a.Value)
				}
				if a.Name.Local == "points" && polylines == 2 && a.Value != "620.00,287.50" {
					t.Errorf("second series (NaN skipped) at %q", a.Value)
				}
			}
		}
	}
	if polylines != 2 || !strings.Contains(b.String(), "P(a&lt;b) &amp; c") || !strings.Contains(b.String(), `stroke-dasharray`) {
		t.Errorf("%d polylines: %s", polylines, b.String())
	}
}
