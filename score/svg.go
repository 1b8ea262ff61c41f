package score

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/lifted-dev/lifted/internal/svgplot"
	"github.com/lifted-dev/lifted/mln"
)

// Curve is a labelled precision-recall curve for WritePRCurveSVG.
type Curve struct {
	Label  string
	Points []PRPoint
}

// WritePRCurveSVG draws precision against recall, one line per curve, as
// a self-contained SVG image (internal/svgplot, no plotting library): both
// axes from 0 to 1, a legend with each curve's label.
func WritePRCurveSVG(w io.Writer, title string, curves []Curve) error {
	c := svgplot.Chart{Title: title, XLabel: "recall", YLabel: "precision", XMin: 0, XMax: 1, YMin: 0, YMax: 1}
	for _, cv := range curves {
		s := svgplot.Series{Label: cv.Label, X: make([]float64, len(cv.Points)), Y: make([]float64, len(cv.Points))}
		for i, p := range cv.Points {
			s.X[i], s.Y[i] = p.Recall, p.Precision
		}
		c.Series = append(c.Series, s)
	}
	return svgplot.Write(w, c)
}

// PRCurves are the precision-recall curves of a scoring run r (Score with
// KeepPredictions): the overall one and, with several predicates, one per
// predicate (scored again alone, with opt).
func PRCurves(m *mln.MLN, truth, ev *mln.DB, ans *Answer, r *Report, opt Options) ([]Curve, error) {
	curves := []Curve{{Label: fmt.Sprintf("overall (AUC-PR %.3f)", r.Overall.AUCPR), Points: PRCurve(r.Probs, r.Truth)}}
	if len(r.PerPred) > 1 {
		for _, p := range r.PerPred {
			o := opt
			o.Preds, o.KeepPredictions = []string{p.Pred}, true
			rp, err := Score(m, truth, ev, ans, o)
			if err != nil {
				return nil, err
			}
			curves = append(curves, Curve{Label: fmt.Sprintf("%s (%.3f)", p.Pred, p.AUCPR), Points: PRCurve(rp.Probs, rp.Truth)})
		}
	}
	return curves, nil
}

// PRCurveTitle is the title of the curves of the answer named name.
func PRCurveTitle(name string) string { return "precision-recall: " + filepath.Base(name) }
