package online

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/mln"
)

const (
	smokersMLN = gen.LearnSmokersMLN
	smokersDB  = gen.LearnSmokersDB
)

func parse(t testing.TB, src, db string) (*mln.MLN, *mln.DB) {
	t.Helper()
	m, err := mlnfile.Parse("t.mln", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "t.db", m)
	if err != nil {
		t.Fatal(err)
	}
	return m, d
}

func weights(m *mln.MLN) []float64 {
	w := make([]float64, len(m.Formulas))
	for i, f := range m.Formulas {
		w[i] = f.Weight
	}
	return w
}

// exactBatch computes the batch gradient and loss by enumerating every
// piece's assignments (pieces are independent).
func exactBatch(md *Model, w []float64, p *Pieces, batch []int32, normalize bool) ([]float64, float64) {
	k := md.NumFormulas()
	exp, data, cnt := make([]float64, k), make([]float64, k), make([]float64, k)
	loss := 0.0
	for _, pi := range batch {
		cls := p.Piece(int(pi))
		var atoms []int32
		idx := map[int32]int{}
		for _, c := range cls {
			if !md.clauseHard(int(c)) {
				cnt[md.clForm[c]]++
			}
			for _, a := range md.ClauseAtoms(int(c)) {
				if _, ok := idx[a]; !ok {
					idx[a] = len(atoms)
					atoms = append(atoms, a)
				}
			}
		}
		n := len(atoms)
		var zf, zd float64
		ef, ed := make([]float64, k), make([]float64, k)
		for x := 0; x < 1<<n; x++ {
			val := func(a int32) int { return x >> idx[a] & 1 }
			consistent := true
			for _, a := range atoms {
				if md.Status[a] == Observed && val(a) != int(md.Value[a]) {
					consistent = false
				}
			}
			cnts := make([]float64, k)
			s := 0.0
			for _, c := range cls {
				j := 0
				for _, a := range md.ClauseAtoms(int(c)) {
					j = j<<1 | val(a)
				}
				v := float64(md.clauseFeat(int(c))[j])
				if md.clauseHard(int(c)) {
					if v == 0 {
						s = math.Inf(-1)
					}
					continue
				}
				cnts[md.clForm[c]] += v
				s += w[md.clForm[c]] * v
			}
			pr := math.Exp(s)
			zf += pr
			for f := range ef {
				ef[f] += pr * cnts[f]
			}
			if consistent {
				zd += pr
				for f := range ed {
					ed[f] += pr * cnts[f]
				}
			}
		}
		for f := range ef {
			exp[f] += ef[f] / zf
			data[f] += ed[f] / zd
		}
		loss += math.Log(zf) - math.Log(zd)
	}
	g := make([]float64, k)
	for f := range g {
		g[f] = exp[f] - data[f]
		if normalize && cnt[f] > 0 {
			g[f] /= cnt[f]
		}
	}
	return g, loss
}

func allPieces(p *Pieces) []int32 {
	b := make([]int32, p.Len())
	for i := range b {
		b[i] = int32(i)
	}
	return b
}

func TestGroundingMatchesCountDB(t *testing.T) {
	m, db := parse(t, smokersMLN, strings.ReplaceAll(smokersDB, "?Cancer(C)\n", ""))
	md, err := NewModel(m, db, []string{"Smokes", "Cancer", "Stress", "Friends"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := learn.CountDB(m, db, "t")
	if err != nil {
		t.Fatal(err)
	}
	got := append([]float64(nil), md.ConstTrue...)
	for c := 0; c < md.NumClauses(); c++ {
		v, ok := md.clauseObservedValue(c)
		if !ok {
			t.Fatal("hidden atom")
		}
		got[md.clForm[c]] += float64(v)
	}
	for f := range got {
		if got[f] != want.Counts[f] {
			t.Errorf("formula %d: %v true groundings, CountDB says %v", f, got[f], want.Counts[f])
		}
	}
}

// hardSmokersMLN adds hard and quantified formulas to smokersMLN; smokersDB
// satisfies the hard ones.
const hardSmokersMLN = smokersMLN + `
Cancer(x) => Smokes(x).
EXIST y Friends(x, y).
0.6 Smokes(x) => EXIST y Friends(x, y) ^ Smokes(y)
-0.4 FORALL y Friends(x, y) => Cancer(y)
`

// TestBatchGradientExactOnTrees checks that the BP gradient and loss of a
// mini-batch of factor or tree pieces, ground and lifted, equal the exact ones
// by enumeration (BP is exact on trees), with hidden atoms in the data, with
// and without hard and quantified formulas.
func TestBatchGradientExactOnTrees(t *testing.T) {
	for _, c := range []struct {
		src string
		ne  []string
	}{
		{smokersMLN, []string{"Smokes", "Cancer"}},
		{smokersMLN, []string{"Smokes", "Cancer", "Stress", "Friends"}},
		{hardSmokersMLN, []string{"Smokes", "Cancer"}},
		{hardSmokersMLN, []string{"Smokes", "Cancer", "Stress", "Friends"}},
	} {
		name := "smokers"
		if c.src == hardSmokersMLN {
			name = "hard"
		}
		t.Run(name, func(t *testing.T) {
			m, db := parse(t, c.src, smokersDB)
			ne := c.ne
			md, err := NewModel(m, db, ne)
			if err != nil {
				t.Fatal(err)
			}
			w := weights(m)
			for _, kind := range []string{"factor", "tree"} {
				var p *Pieces
				if kind == "factor" {
					p = FactorPieces(md)
				} else {
					p = TreePieces(md, 3, 0.9, rand.New(rand.NewPCG(1, 2)))
				}
				batch := allPieces(p)
				want, wantLoss := exactBatch(md, w, p, batch, true)
				for _, ground := range []bool{true, false} {
					opt := GradOptions{Ground: ground, BP: bp.Options{Tol: 1e-13, MaxIter: 1000}}
					r, err := md.BatchGradient(context.Background(), w, p, batch, opt)
					if err != nil {
						t.Fatal(err)
					}
					for f := range want {
						if math.Abs(r.Grad[f]-want[f]) > 1e-9 {
							t.Errorf("%v %s ground=%v formula %d: gradient %v, exact %v", ne, kind, ground, f, r.Grad[f], want[f])
						}
					}
					if math.Abs(r.Loss-wantLoss) > 1e-8*math.Max(1, math.Abs(wantLoss)) {
						t.Errorf("%v %s ground=%v: loss %v, exact %v", ne, kind, ground, r.Loss, wantLoss)
					}
					t.Logf("%v %s ground=%v: %d pieces, %d vars/%d factors -> %d/%d, hidden=%v", ne, kind, ground, p.Len(), r.GroundVars, r.GroundFactors, r.LiftedNodes, r.LiftedFactors, r.Hidden)
				}
			}
		})
	}
}

func TestCMLLExactOnTrees(t *testing.T) {
	md := synth(t, 3, 5)
	w := []float64{0.7, -1.2, 0.4}
	got, per, err := CMLL(context.Background(), md, w, rand.New(rand.NewPCG(9, 9)), GradOptions{BP: bp.Options{Tol: 1e-13, MaxIter: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	// Exact: enumerate the worlds of the 9 atoms.
	var obs []int32
	for a, s := range md.Status {
		if s == Observed {
			obs = append(obs, int32(a))
		}
	}
	group := make([]int, len(obs))
	for i, p := range rand.New(rand.NewPCG(9, 9)).Perm(len(obs)) {
		group[p] = i % 4
	}
	n := md.NumAtoms()
	weight := func(x int) float64 {
		s := 0.0
		for c := 0; c < md.NumClauses(); c++ {
			j := 0
			for _, a := range md.ClauseAtoms(c) {
				j = j<<1 | (x >> a & 1)
			}
			s += w[md.clForm[c]] * float64(md.clauseFeat(c)[j])
		}
		return math.Exp(s)
	}
	want := 0.0
	for g := range 4 {
		z := 0.0
		marg := make([]float64, n) // P(atom = data value, observed group)
		for x := 0; x < 1<<n; x++ {
			ok := true
			for i, a := range obs {
				if group[i] == g && x>>a&1 != int(md.Value[a]) {
					ok = false
				}
			}
			if !ok {
				continue
			}
			p := weight(x)
			z += p
			for a := range n {
				if x>>a&1 == int(md.Value[a]) {
					marg[a] += p
				}
			}
		}
		for i, a := range obs {
			if group[i] != g {
				want += math.Log(marg[a]/z) / 4
			}
		}
	}
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("CMLL %v, exact %v", got, want)
	}
	if per != float64(len(obs))*3/4 {
		t.Errorf("%v atoms scored per group, want %v", per, float64(len(obs))*3/4)
	}
}

// TestLoopyBatchGroundEqualsLifted checks, on loopy batch graphs where BP is
// not exact, that the lifted gradient equals the ground one (1e-9), and that
// computing a batch in shards (map/reduce) changes nothing.
func TestLoopyBatchGroundEqualsLifted(t *testing.T) {
	for _, src := range []string{smokersMLN, hardSmokersMLN} {
		loopyGroundEqualsLifted(t, src)
	}
}

func loopyGroundEqualsLifted(t *testing.T, src string) {
	m, db := parse(t, src, smokersDB)
	md, err := NewModel(m, db, []string{"Smokes", "Cancer", "Friends"})
	if err != nil {
		t.Fatal(err)
	}
	w := weights(m)
	p := WholePiece(md)
	// The whole mega-example and mini-batches of tree pieces, grown with
	// a high discount so that pieces overlap within a batch.
	tp := TreePieces(md, 4, 0.95, rand.New(rand.NewPCG(5, 6)))
	cases := []struct {
		p     *Pieces
		batch []int32
	}{{p, []int32{0}}, {tp, allPieces(tp)}, {tp, []int32{0, 3, 5, 7, 11, 13}}}
	for ci, c := range cases {
		opt := GradOptions{BP: bp.Options{Tol: 1e-13, MaxIter: 5000}}
		lifted, err := md.BatchGradient(context.Background(), w, c.p, c.batch, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Ground = true
		ground, err := md.BatchGradient(context.Background(), w, c.p, c.batch, opt)
		if err != nil {
			t.Fatal(err)
		}
		opt.Ground, opt.Shards = false, 3
		sharded, err := md.BatchGradient(context.Background(), w, c.p, c.batch, opt)
		if err != nil {
			t.Fatal(err)
		}
		for f := range ground.Grad {
			if math.Abs(sharded.Grad[f]-lifted.Grad[f]) > 1e-9 {
				t.Errorf("case %d formula %d: gradient from 3 shards %v, from one %v", ci, f, sharded.Grad[f], lifted.Grad[f])
			}
			if math.Abs(ground.Grad[f]-lifted.Grad[f]) > 1e-9 {
				t.Errorf("case %d formula %d: lifted gradient %v, ground %v", ci, f, lifted.Grad[f], ground.Grad[f])
			}
		}
		if math.Abs(ground.Loss-lifted.Loss) > 1e-9*math.Max(1, math.Abs(ground.Loss)) {
			t.Errorf("case %d: lifted loss %v, ground %v", ci, lifted.Loss, ground.Loss)
		}
		t.Logf("case %d: %d+%d ground -> %d+%d lifted", ci, ground.GroundVars, ground.GroundFactors, lifted.LiftedNodes, lifted.LiftedFactors)
	}
}

// TestTreePieces checks that every tree piece is a tree rooted at its own
// ground clause: connected, and each clause after the first shares exactly
// one atom with those before it; and that depth 0 or discount 0 gives the
// factor pieces.
func TestTreePieces(t *testing.T) {
	m, db := parse(t, smokersMLN, smokersDB)
	md, err := NewModel(m, db, []string{"Smokes", "Cancer", "Friends", "Stress"})
	if err != nil {
		t.Fatal(err)
	}
	for _, seed := range []uint64{1, 2, 3} {
		p := TreePieces(md, 3, 0.95, rand.New(rand.NewPCG(seed, 0)))
		if p.Len() != md.NumClauses() {
			t.Fatalf("%d pieces for %d ground clauses", p.Len(), md.NumClauses())
		}
		sizes := 0
		for i := range p.Len() {
			cls := p.Piece(i)
			if int(cls[0]) != i {
				t.Errorf("piece %d is rooted at clause %d", i, cls[0])
			}
			seen := map[int32]bool{}
			for j, c := range cls {
				shared := 0
				for _, a := range md.ClauseAtoms(int(c)) {
					if seen[a] {
						shared++
					}
				}
				if j > 0 && shared != 1 {
					t.Errorf("piece %d: clause %d shares %d atoms with the clauses before it", i, j, shared)
				}
				for _, a := range md.ClauseAtoms(int(c)) {
					seen[a] = true
				}
			}
			sizes += len(cls)
		}
		if sizes == p.Len() {
			t.Errorf("seed %d: every tree piece is a single clause", seed)
		}
	}
	for _, p := range []*Pieces{TreePieces(md, 0, 0.9, rand.New(rand.NewPCG(1, 0))), TreePieces(md, 3, 0, rand.New(rand.NewPCG(1, 0)))} {
		f := FactorPieces(md)
		if !slices.Equal(p.At, f.At) || !slices.Equal(p.Clauses, f.Clauses) {
			t.Errorf("depth 0 or discount 0 does not give the factor pieces")
		}
	}
}

// TestNeighbourhoodPieces checks depth-d neighbourhoods against a
// breadth-first search written out over atom sets.
func TestNeighbourhoodPieces(t *testing.T) {
	m, db := parse(t, smokersMLN, smokersDB)
	md, err := NewModel(m, db, []string{"Smokes", "Cancer", "Friends"})
	if err != nil {
		t.Fatal(err)
	}
	for depth := range 4 {
		p := NeighbourhoodPieces(md, depth)
		for c := 0; c < md.NumClauses(); c++ {
			want := map[int32]bool{int32(c): true}
			for range depth {
				atoms := map[int32]bool{}
				for d := range want {
					for _, a := range md.ClauseAtoms(int(d)) {
						atoms[a] = true
					}
				}
				for d := 0; d < md.NumClauses(); d++ {
					for _, a := range md.ClauseAtoms(d) {
						if atoms[a] {
							want[int32(d)] = true
						}
					}
				}
			}
			got := p.Piece(c)
			if len(got) != len(want) || got[0] != int32(c) {
				t.Fatalf("depth %d clause %d: piece %v, want the %d clauses %v", depth, c, got, len(want), want)
			}
			for _, d := range got {
				if !want[d] {
					t.Fatalf("depth %d clause %d: %d is not within reach", depth, c, d)
				}
			}
		}
	}
}
