package online

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/lifted-dev/lifted/mln"
)

// CurvePoint is one evaluation of a learning curve.
type CurvePoint struct {
	Passes      float64   `json:"passes"`
	Seconds     float64   `json:"seconds"`
	CMLL        *float64  `json:"cmll,omitempty"`
	CMLLPerAtom *float64  `json:"cmll_per_atom,omitempty"`
	Weights     []float64 `json:"weights"`
}

// Curve is the learning curve of one run, as JSON ("lifted learn --log").
type Curve struct {
	Method   string       `json:"method"`
	Label    string       `json:"label"`
	Pieces   string       `json:"pieces,omitempty"`
	Train    []string     `json:"train"`
	Holdout  []string     `json:"holdout,omitempty"`
	Formulas []string     `json:"formulas"`
	Points   []CurvePoint `json:"points"`
	Seconds  float64      `json:"seconds"`
	// TestLogLik is the exact log-likelihood of each holdout database under
	// the learned weights (closed world, by WFOMC), where that applies.
	TestLogLik []*float64 `json:"test_loglik,omitempty"`
}

// NewCurve starts the curve of a run of method (smd, sgd, scg or
// lbfgs-bp; pieces is the kind of pieces of smd and sgd) that learns the
// weights of m's formulas from the named training and holdout databases.
func NewCurve(method, pieces string, m *mln.MLN, train, holdout []string) *Curve {
	c := &Curve{Method: method, Label: method, Train: train, Holdout: holdout}
	if method == "smd" || method == "sgd" {
		c.Pieces = pieces
		c.Label = method + " (" + pieces + " pieces)"
	}
	for _, f := range m.Formulas {
		c.Formulas = append(c.Formulas, f.Text)
	}
	return c
}

// Add records the weights w after passes (at seconds since the start).
func (c *Curve) Add(passes, seconds float64, w []float64) {
	c.Points = append(c.Points, CurvePoint{Passes: passes, Seconds: seconds, Weights: append([]float64(nil), w...)})
}

// AddTest records the weights w after passes (at seconds since the
// start) with their test CMLL and CMLL per atom. A non-finite value (a
// test atom given probability 0) is recorded as nil: JSON has no -Inf.
func (c *Curve) AddTest(passes, seconds float64, w []float64, cmll, perAtom float64) {
	c.Add(passes, seconds, w)
	pt := &c.Points[len(c.Points)-1]
	pt.CMLL, pt.CMLLPerAtom = FinitePtr(cmll), FinitePtr(perAtom)
}

// LastCMLL is the test CMLL of the last point, or nil.
func (c *Curve) LastCMLL() *float64 {
	if n := len(c.Points); n > 0 {
		return c.Points[n-1].CMLL
	}
	return nil
}

// FinitePtr returns &x, or nil when x is NaN or infinite.
func FinitePtr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Holdout evaluates weights on test mega-examples.
type Holdout struct {
	Tests []*Model
	Seed  uint64 // the random groups of CMLL
	Grad  GradOptions
}

// Len is the number of test examples (0 for a nil Holdout).
func (h *Holdout) Len() int {
	if h == nil {
		return 0
	}
	return len(h.Tests)
}

// CMLL returns the mean over the test examples of their CMLL under w, and
// the mean of their CMLL per atom. The i-th example's groups are drawn
// from PCG(Seed, 0xc3+i): the same four groups at every evaluation.
func (h *Holdout) CMLL(ctx context.Context, w []float64) (cmll, perAtom float64, err error) {
	for i, test := range h.Tests {
		ci, n, err := CMLL(ctx, test, w, rand.New(rand.NewPCG(h.Seed, 0xc3+uint64(i))), h.Grad)
		if err != nil {
			return 0, 0, err
		}
		cmll += ci / float64(len(h.Tests))
		perAtom += ci / math.Max(n, 1) / float64(len(h.Tests))
	}
	return cmll, perAtom, nil
}

// NewPieces shatters md into pieces of a kind: "factor" (FactorPieces),
// "tree" (TreePieces of depth and discount, drawn with rng) or
// "neighbourhood" (NeighbourhoodPieces of depth).
func NewPieces(md *Model, kind string, depth int, discount float64, rng *rand.Rand) (*Pieces, error) {
	switch kind {
	case "factor":
		return FactorPieces(md), nil
	case "tree":
		return TreePieces(md, depth, discount, rng), nil
	case "neighbourhood":
		return NeighbourhoodPieces(md, depth), nil
	}
	return nil, fmt.Errorf("online: unknown kind of pieces %q (want factor, tree or neighbourhood)", kind)
}
