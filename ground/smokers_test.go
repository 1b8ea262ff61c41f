package ground

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/mln"
)

// smokersMLN returns the paper's friends-and-smokers MLN (Table 2) over n
// people P0..P(n-1).
func smokersMLN(t testing.TB, n int) *mln.MLN {
	t.Helper()
	var b strings.Builder
	b.WriteString("person = {")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n")
	b.WriteString("1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	m, err := mlnfile.Parse("smokers.mln", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// smokesP1 grounds friends-and-smokers with n people and evidence
// Smokes(P0), runs flooding BP lifted and ground, checks that they agree on
// every variable, and returns P(Smokes(P1)) and the lifted run's statistics.
func smokesP1(t *testing.T, n int) (float64, infer.Stats) {
	m := smokersMLN(t, n)
	db := mln.NewDB(m)
	if err := db.AddAtom("Smokes", []string{"P0"}, mln.True); err != nil {
		t.Fatal(err)
	}
	gr, err := Ground(context.Background(), m, db, Options{Query: []string{"Smokes"}})
	if err != nil {
		t.Fatal(err)
	}
	var res [2]*infer.Answer
	for i, lifted := range []bool{false, true} {
		if res[i], err = infer.Run(context.Background(), bp.New(bp.DefaultOptions()), gr.Graph, nil, infer.Options{Lifted: lifted}); err != nil {
			t.Fatal(err)
		}
		if !res[i].Stats.Converged {
			t.Fatalf("n=%d lifted=%v: BP did not converge", n, lifted)
		}
	}
	for v := 0; v < gr.Graph.NumVars(); v++ {
		if d := math.Abs(res[0].Marginal(v)[1] - res[1].Marginal(v)[1]); d > 1e-9 {
			t.Fatalf("n=%d: %s ground %v lifted %v", n, gr.AtomName(int32(v)), res[0].Marginal(v), res[1].Marginal(v))
		}
	}
	v, _ := gr.Var(m.PredIndex("Smokes"), []int{1})
	return res[1].Marginal(int(v))[1], res[1].Stats
}

// TestSmokersAlchemyRegression is the case Alchemy's default lifted BP gets
// wrong (it prints 0.418662 for P(Smokes(P1)) whatever the number of
// people): lifted and ground BP agree for 3 to 200 people. Alchemy's ground
// BP values 0.466, 0.421 and 0.030, reported for "n = 3, 5, 10", are the
// BP values for domains of 4, 6 and 11 constants: P0 plus n others.
func TestSmokersAlchemyRegression(t *testing.T) {
	alchemyGround := map[int]float64{4: 0.466, 6: 0.421, 11: 0.030}
	prev := -1.0
	for _, n := range []int{3, 4, 5, 6, 10, 11, 20, 50, 100, 200} {
		p, st := smokesP1(t, n)
		if want, ok := alchemyGround[n]; ok && math.Abs(p-want) > 0.0005 {
			t.Errorf("n=%d: P(Smokes(P1)) = %.6f, Alchemy's ground BP %.3f", n, p, want)
		}
		if math.Abs(p-0.418662) < 1e-3 {
			t.Errorf("n=%d: P(Smokes(P1)) = %.6f is Alchemy's lifted answer", n, p)
		}
		if p == prev {
			t.Errorf("n=%d: same answer as before", n)
		}
		prev = p
		// P0, the others; Cancer(P0), other Cancer; Friends(P0,y),
		// Friends(x,P0), Friends(x,x), other Friends
		if st.Clusternodes > 8 {
			t.Errorf("n=%d: %d clusternodes", n, st.Clusternodes)
		}
		t.Logf("n=%3d P(Smokes(P1)) = %.6f  clusternodes %d of %d variables", n, p, st.Clusternodes, st.Variables)
	}
}

// UW-CSE (Tuffy's program and evidence): the grounding's figures, and the
// join estimate within a factor of ten of the result.
func TestUWCSE(t *testing.T) {
	dir := shareddata.Need(t, "mln", "uwcse", "tuffy-cse") + "/"
	m, err := mlnfile.ParseFile(dir + "prog.mln")
	if err != nil {
		t.Fatal(err)
	}
	db, err := mlnfile.ReadDBFiles(m, dir+"evidence.db")
	if err != nil {
		t.Fatal(err)
	}
	opt := Options{Query: []string{"advisedBy"}}
	sz, err := Estimate(m, db, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, merge := range []bool{false, true} {
		opt.MergeDuplicates = merge
		gr, err := Ground(context.Background(), m, db, opt)
		if err != nil {
			t.Fatal(err)
		}
		factors := 361162 // 357286 ground formulas; EXIST formulas with an auxiliary variable
		if merge {
			factors = 165739
		}
		if gr.NumAtoms != 68*68 || gr.NumFormulas != 357286 || gr.Graph.NumFactors() != factors {
			t.Fatalf("merge %v: %d atoms, %d ground formulas, %d factors", merge, gr.NumAtoms, gr.NumFormulas, gr.Graph.NumFactors())
		}
		for _, st := range gr.Formulas {
			if float64(st.Kept)+st.TrueByEv+st.FalseByEv != st.Groundings {
				t.Fatalf("formula %d: %d + %v + %v != %v", st.Formula+1, st.Kept, st.TrueByEv, st.FalseByEv, st.Groundings)
			}
		}
		if r := sz.Estimate / float64(gr.NumFormulas); r < 0.1 || r > 10 {
			t.Errorf("estimate %v for %d ground formulas", sz.Estimate, gr.NumFormulas)
		}
	}
}
