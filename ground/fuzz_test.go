package ground

import (
	"context"
	"math"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// FuzzGround grounds whatever MLN text parses, with small limits: it must
// not panic, and a grounding that succeeds must be a valid graph with a
// finite offset.
func FuzzGround(f *testing.F) {
	f.Add("t = {A, B}\nP(t)\nQ(t, t)\n1.5 P(x) => Q(x, y)\nQ(x, x).\n", "P(A)\n!Q(A, B)\n")
	f.Add("p = {1,...,4}\nF(p, p)\nS(p)\n-1 EXIST y F(x, y) ^ x != y\n0.5 *S(x) v S(+y)\n", "?S(2)\n")
	f.Add("c = {R, G}\nH(c!)\nL\n2 H(R) <=> L\nFORALL x H(x) v L.\n", "H(G)\n")
	f.Fuzz(func(t *testing.T, src, ev string) {
		m, err := mlnfile.Parse("fuzz.mln", []byte(src))
		if err != nil {
			return
		}
		for _, ty := range m.Types {
			if len(ty.Constants) > 20 {
				return
			}
		}
		db, err := mlnfile.ReadDB(strings.NewReader(ev), "fuzz.db", m)
		if err != nil {
			return
		}
		var names []string
		for _, p := range m.Preds {
			names = append(names, p.Name)
		}
		for _, opt := range []Options{
			{MaxGround: 2000, DefaultWeight: 1, UseDefaultWeight: true},
			{MaxGround: 2000, DefaultWeight: -1, UseDefaultWeight: true, Query: names, MaxArity: 2, MergeDuplicates: true},
			{MaxGround: 2000, DefaultWeight: 1, UseDefaultWeight: true, OpenWorld: names, AlchemyCNF: true},
		} {
			gr, err := Ground(context.Background(), m, db, opt)
			if err != nil {
				if strings.Contains(err.Error(), "%!") {
					t.Fatalf("badly formatted error: %v", err)
				}
				continue
			}
			if err := gr.Graph.Validate(); err != nil {
				t.Fatal(err)
			}
			if math.IsNaN(gr.LogZOffset) {
				t.Fatalf("offset %v", gr.LogZOffset)
			}
			for v := 0; v < gr.NumAtoms; v++ {
				_ = gr.AtomName(int32(v))
			}
		}
	})
}
