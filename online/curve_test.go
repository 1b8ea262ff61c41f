package online

import (
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestCurve(t *testing.T) {
	m, db := parse(t, smokersMLN, smokersDB)
	md, err := NewModel(m, db, []string{"Smokes", "Cancer"})
	if err != nil {
		t.Fatal(err)
	}
	c := NewCurve("smd", "tree", m, []string{"train.db"}, []string{"a.db", "b.db"})
	if c.Label != "smd (tree pieces)" || c.Pieces != "tree" || len(c.Formulas) != len(m.Formulas) || c.Formulas[0] != m.Formulas[0].Text {
		t.Errorf("curve %+v", c)
	}
	if b := NewCurve("scg", "tree", m, nil, nil); b.Label != "scg" || b.Pieces != "" {
		t.Errorf("scg curve: label %q, pieces %q", b.Label, b.Pieces)
	}

	// Two copies of the training example: the mean is one's CMLL, with
	// the groups of the first seed stream.
	h := &Holdout{Tests: []*Model{md, md}, Seed: 7}
	w := weights(m)
	got, per, err := h.CMLL(context.Background(), w)
	if err != nil {
		t.Fatal(err)
	}
	c0, n0, _ := CMLL(context.Background(), md, w, rand.New(rand.NewPCG(7, 0xc3)), GradOptions{})
	c1, n1, _ := CMLL(context.Background(), md, w, rand.New(rand.NewPCG(7, 0xc4)), GradOptions{})
	if want := c0/2 + c1/2; math.Abs(got-want) > 1e-12 || math.Abs(per-(c0/n0/2+c1/n1/2)) > 1e-12 {
		t.Errorf("mean CMLL %v, per atom %v; want %v, %v", got, per, want, c0/n0/2+c1/n1/2)
	}
	if (&Holdout{}).Len() != 0 || (*Holdout)(nil).Len() != 0 || h.Len() != 2 {
		t.Error("Len")
	}

	c.Add(0, 0.5, w)
	c.AddTest(1, 1, w, got, math.Inf(-1))
	w[0] = 99 // the points keep their own copy
	if c.Points[0].CMLL != nil || c.Points[1].CMLL == nil || *c.Points[1].CMLL != got || c.Points[1].CMLLPerAtom != nil ||
		c.Points[0].Weights[0] == 99 || c.LastCMLL() != c.Points[1].CMLL {
		t.Errorf("points %+v", c.Points)
	}
	b, err := json.Marshal(c.Points[0])
	if err != nil || string(b) != `{"passes":0,"seconds":0.5,"weights":[1.5,1.1,0.8,-0.5]}` {
		t.Errorf("point JSON %s, %v", b, err)
	}

	for kind, want := range map[string]*Pieces{"factor": FactorPieces(md), "neighbourhood": NeighbourhoodPieces(md, 1)} {
		p, err := NewPieces(md, kind, 1, 0.9, nil)
		if err != nil || !reflect.DeepEqual(p, want) {
			t.Errorf("%s pieces differ (%v)", kind, err)
		}
	}
	if p, err := NewPieces(md, "tree", 1, 0.9, rand.New(rand.NewPCG(1, 2))); err != nil || !reflect.DeepEqual(p, TreePieces(md, 1, 0.9, rand.New(rand.NewPCG(1, 2)))) {
		t.Errorf("tree pieces differ (%v)", err)
	}
	if _, err := NewPieces(md, "leaf", 1, 0.9, nil); err == nil {
		t.Error("unknown kind accepted")
	}
}
