package firstorder_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/lift/firstorder"
	"github.com/lifted-dev/lifted/mln"
)

// compareFirstOrder grounds m and compresses it, builds the first-order
// counted graph, and checks that they are the same up to renumbering:
// every ground atom in corresponding clusternodes, equal clusternode sizes,
// the same multiset of clusterfactors (size, table, slots with their
// clusternode, multiplicity and count), and the same BP marginals. It
// reports false when the first-order construction does not apply.
func compareFirstOrder(t *testing.T, name string, m *mln.MLN, db *mln.DB, gopt ground.Options, copt lift.Options) bool {
	t.Helper()
	ctx := context.Background()
	t0 := time.Now()
	gr, err := ground.Ground(ctx, m, db, gopt)
	if testing.Verbose() {
		t.Logf("%s: grounding %.2fs (%v)", name, time.Since(t0).Seconds(), err)
	}
	if errors.Is(err, ground.ErrTooLarge) {
		return false
	}
	if err != nil {
		fo, ferr := firstorder.Build(ctx, m, db, firstorder.Options{Ground: gopt, Colour: copt})
		if ferr == nil {
			t.Fatalf("%s: grounding fails (%v) but the first-order construction does not (%d nodes)", name, err, fo.NumNodes())
		}
		return false
	}
	c, _, err := lift.Compress(ctx, gr.Graph, nil, copt)
	if err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	fo, err := firstorder.Build(ctx, m, db, firstorder.Options{Ground: gopt, Colour: copt})
	if testing.Verbose() {
		t.Logf("%s: first-order %.2fs (%v)", name, time.Since(t0).Seconds(), err)
	}
	if errors.Is(err, firstorder.ErrNotApplicable) {
		return false
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if gr.Graph.NumVars() != gr.NumAtoms {
		t.Fatalf("%s: first-order construction accepted a grounding with auxiliary variables", name)
	}
	// Clusternodes: a bijection that maps every ground atom's clusternode
	// to the one Node finds for it.
	g2f := map[int32]int32{}
	f2g := map[int32]int32{}
	match := func(pi int, args []int, v int32, tr mln.Truth) {
		Y, ftr := fo.Node(pi, args)
		if (v < 0) != (Y < 0) || (v < 0 && tr != ftr) {
			t.Fatalf("%s: %s is variable %d (%v) in the grounding, clusternode %d (%v) first-order", name, gr.Name(pi, args), v, tr, Y, ftr)
		}
		if v < 0 {
			return
		}
		X := c.NodeOf[v]
		if y, ok := g2f[X]; ok && y != Y {
			t.Fatalf("%s: clusternode %d of the grounding splits (%s)", name, X, gr.Name(pi, args))
		}
		if x, ok := f2g[Y]; ok && x != X {
			t.Fatalf("%s: first-order clusternode %d merges two (%s)", name, Y, gr.Name(pi, args))
		}
		g2f[X], f2g[Y] = Y, X
	}
	for v := range int32(gr.NumAtoms) {
		pi, args, _ := gr.Atom(v)
		match(pi, args, v, mln.Unknown)
	}
	// Atoms that are not variables, where there are few enough to visit.
	for pi := range m.Preds {
		if gr.NumAtomsOf(pi) > 20000 {
			continue
		}
		gr.Each(pi, func(args []int) bool {
			v, tr := gr.Var(pi, args)
			match(pi, args, v, tr)
			return true
		})
	}
	if len(g2f) != c.NumNodes() || len(f2g) != fo.NumNodes() {
		t.Fatalf("%s: %d ground clusternodes, %d first-order, %d matched", name, c.NumNodes(), fo.NumNodes(), len(g2f))
	}
	for X, Y := range g2f {
		if c.NodeSize[X] != fo.NodeSize[Y] {
			t.Fatalf("%s: clusternode sizes %d and %d", name, c.NodeSize[X], fo.NodeSize[Y])
		}
	}
	if fo.Atoms != int64(gr.NumAtoms) {
		t.Fatalf("%s: %d atoms represented, %d ground", name, fo.Atoms, gr.NumAtoms)
	}
	// Clusterfactors.
	desc := func(cc *lift.Compressed, node func(int32) int32) []string {
		var out []string
		for F := range cc.NumFactors() {
			tb := cc.Table(F)
			vals := slices.Clone(tb.Values)
			slices.Sort(vals)
			var slots []string
			for _, s := range cc.Positions(F) {
				slots = append(slots, fmt.Sprintf("%d/%d/%d", node(cc.EdgeNode[s]), cc.EdgeMult[s], cc.EdgeCount[s]))
			}
			slices.Sort(slots)
			out = append(out, fmt.Sprintf("%d %v %v %v", cc.FactorSize[F], tb.Dims, vals, slots))
		}
		slices.Sort(out)
		return out
	}
	dg := desc(c, func(X int32) int32 { return g2f[X] })
	df := desc(fo.Compressed, func(Y int32) int32 { return Y })
	if !slices.Equal(dg, df) {
		t.Fatalf("%s: clusterfactors differ:\nground      %v\nfirst-order %v", name, dg, df)
	}
	// The evidence offset of log Z, where the reduced model is small
	// enough to enumerate every binding.
	var bindings float64
	for _, f := range gr.Formulas {
		bindings += f.Groundings
	}
	checkLogZ := bindings < 2e5
	var foz *firstorder.Network
	if checkLogZ {
		foz, err = firstorder.Build(ctx, m, db, firstorder.Options{Ground: gopt, Colour: copt, LogZ: true})
		if err != nil {
			t.Fatalf("%s: with LogZ: %v", name, err)
		}
		if d := math.Abs(foz.LogZOffset - gr.LogZOffset); d > 1e-9*math.Max(1, math.Abs(gr.LogZOffset)) {
			t.Fatalf("%s: log Z offset %v first-order, %v ground", name, foz.LogZOffset, gr.LogZOffset)
		}
	}
	// BP marginals.
	for _, opt := range []bp.Options{{MaxIter: 200, Tol: 1e-13}} {
		rg, err1 := bp.Run(ctx, c, opt)
		rf, err2 := bp.Run(ctx, fo.Compressed, opt)
		if err1 == nil && err2 == nil && checkLogZ {
			a, b := rg.LogZ+gr.LogZOffset, rf.LogZ+foz.LogZOffset
			if d := math.Abs(a - b); d > 1e-9*math.Max(1, math.Abs(a)) && !(math.IsInf(a, 0) && a == b) {
				t.Fatalf("%s: log Z %v ground, %v first-order", name, a, b)
			}
		}
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("%s: bp errors %v and %v", name, err1, err2)
		}
		if err1 != nil {
			continue
		}
		for X, Y := range g2f {
			a, b := rg.NodeBelief(int(X)), rf.NodeBelief(int(Y))
			for i := range a {
				if math.Abs(a[i]-b[i]) > 1e-12 {
					t.Fatalf("%s: marginals %v and %v", name, a, b)
				}
			}
		}
	}
	return true
}

func parseModel(t *testing.T, src, db string) (*mln.MLN, *mln.DB) {
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

func smokersSrc(n int) string {
	var b strings.Builder
	b.WriteString("person = {")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	return b.String()
}

func TestFirstOrderSmokers(t *testing.T) {
	for _, tc := range []struct {
		n  int
		db string
		cw []string
	}{
		{8, "", nil},
		{8, "Smokes(P0)\nSmokes(P1)\n!Smokes(P2)\n", nil},
		{9, "Smokes(P0)\nSmokes(P1)\nSmokes(P2)\n", nil},
		{9, "Smokes(P0)\nFriends(P0, P1)\n!Cancer(P3)\n", nil},
		{7, "Smokes(P0)\nFriends(P0, P1)\nFriends(P1, P2)\n", []string{"Friends"}},
		{7, "Smokes(P0)\nSmokes(P1)\nCancer(P0)\nCancer(P4)\n!Cancer(P5)\n?Smokes(P6)\n", nil},
	} {
		m, db := parseModel(t, smokersSrc(tc.n), tc.db)
		for _, mode := range []lift.Mode{lift.Positional, lift.CNF} {
			name := fmt.Sprintf("n=%d %q %v", tc.n, tc.db, mode)
			if !compareFirstOrder(t, name, m, db, ground.Options{Query: []string{"Smokes", "Cancer"}, ClosedWorld: tc.cw}, lift.Options{Mode: mode}) {
				t.Fatalf("%s: first-order construction refused", name)
			}
		}
	}
}

// Larger domains, compared in full; the network does not grow with the
// domain.
func TestFirstOrderSmokersLarge(t *testing.T) {
	nodes := -1
	for _, n := range []int{40, 300} {
		m, db := parseModel(t, smokersSrc(n), "Smokes(P0)\nSmokes(P1)\n!Smokes(P2)\nCancer(P3)\n")
		if !compareFirstOrder(t, fmt.Sprintf("n=%d", n), m, db, ground.Options{Query: []string{"Smokes", "Cancer"}}, lift.Options{}) {
			t.Fatal("refused")
		}
		net, err := firstorder.Build(context.Background(), m, db, firstorder.Options{Ground: ground.Options{Query: []string{"Smokes", "Cancer"}}})
		if err != nil {
			t.Fatal(err)
		}
		if nodes >= 0 && net.NumNodes() != nodes {
			t.Fatalf("n=%d: %d clusternodes, %d at the smaller n", n, net.NumNodes(), nodes)
		}
		nodes = net.NumNodes()
		if net.Reduced.NumAtoms > 100 {
			t.Fatalf("n=%d: the reduced model has %d ground atoms", n, net.Reduced.NumAtoms)
		}
	}
}

// Random small MLNs (internal/gen.SmallMLN), with their domains widened so
// that classes are reduced.
func TestFirstOrderRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	done, closed := 0, 0
	for i := range 150 {
		src, db := gen.SmallMLN(r, gen.MLNShape{Formulas: 3, HardOneIn: 5})
		if i%2 == 1 {
			src = strings.Replace(src, "t = {A, B", "t = {A, B, D, E, F", 1)
		}
		m, d := parseModel(t, src, db)
		for _, mode := range []lift.Mode{lift.Positional, lift.CNF} {
			if compareFirstOrder(t, fmt.Sprintf("random %d %v\n%s\n%s", i, mode, src, db), m, d, ground.Options{Query: []string{"P", "Q", "R"}}, lift.Options{Mode: mode}) {
				done++
			}
		}
		// P closed-world (its evidence fixes every P atom), Alchemy's
		// clause weighting, the exact auxiliary-variable representation.
		gopt := ground.Options{Query: []string{"Q", "R"}, AlchemyCNF: i%3 == 0, ExactMax: i%3 == 1}
		if compareFirstOrder(t, fmt.Sprintf("random %d closed P %+v\n%s\n%s", i, gopt, src, db), m, d, gopt, lift.Options{}) {
			closed++
		}
	}
	if done < 200 || closed < 100 {
		t.Fatalf("only %d of 300 random models compared, and %d of 150 with P closed-world", done, closed)
	}
}

// Every MLN of the repository's examples and test data that the
// construction accepts.
func TestFirstOrderRepoModels(t *testing.T) {
	files, _ := filepath.Glob("../../examples/mln/*.mln")
	more, _ := filepath.Glob("../../examples/mln/*/*.mln")
	files = append(files, more...)
	more, _ = filepath.Glob("../../cmd/lifted/testdata/*/*.mln")
	files = append(files, more...)
	accepted := 0
	for _, f := range files {
		m, err := mlnfile.ParseFile(f)
		if err != nil {
			continue
		}
		dbs := []string{""}
		base := strings.TrimSuffix(f, ".mln")
		if _, err := os.Stat(base + ".db"); err == nil {
			dbs = append(dbs, base+".db")
		}
		for _, dbf := range dbs {
			var db *mln.DB
			if dbf != "" {
				if db, err = mlnfile.ReadDBFiles(m, dbf); err != nil {
					continue
				}
			}
			var q []string
			for _, p := range m.Preds {
				q = append(q, p.Name)
			}
			if compareFirstOrder(t, f+" "+dbf, m, db, ground.Options{UseDefaultWeight: true, DefaultWeight: 1, MaxGround: 200000}, lift.Options{}) {
				accepted++
			}
			_ = q
		}
	}
	t.Logf("%d of %d models accepted", accepted, len(files))
	if accepted == 0 {
		t.Fatal("no repository model accepted")
	}
}

// The MLNs of ../shared/data/mln with each of their evidence files (and
// none), where the grounding is small enough for a test.
func TestFirstOrderSharedModels(t *testing.T) {
	root := shareddata.Need(t, "mln")
	var files []string
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".mln") {
			files = append(files, p)
		}
		return nil
	})
	accepted, tried := 0, 0
	for _, f := range files {
		m, err := mlnfile.ParseFile(f)
		if err != nil {
			continue
		}
		dbs, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "*.db"))
		if len(dbs) > 2 {
			dbs = dbs[:2]
		}
		for _, dbf := range append([]string{""}, dbs...) {
			var db *mln.DB
			if dbf != "" {
				if db, err = mlnfile.ReadDBFiles(m, dbf); err != nil {
					continue
				}
			}
			tried++
			start := time.Now()
			if compareFirstOrder(t, f+" "+dbf, m, db, ground.Options{UseDefaultWeight: true, DefaultWeight: 1, MaxGround: 100000}, lift.Options{}) {
				accepted++
			}
			t.Logf("%s %s: %.2fs", f, dbf, time.Since(start).Seconds())
		}
	}
	t.Logf("%d of %d (model, evidence) pairs compared", accepted, tried)
}

// Constants in formulas, two types, equality, a hard formula.
func TestFirstOrderConstantsAndTypes(t *testing.T) {
	src := `person = {A, B, C, D, E, F, G}
club = {K1, K2, K3, K4, K5}
Smokes(person)
Member(person, club)
Likes(person, person)
1.2 Smokes(x) ^ Member(x, c) => Smokes(A)
0.7 Likes(x, y) ^ x != y ^ Member(x, c) => Member(y, c)
-0.4 Likes(x, B) v Member(x, K2)
Member(x, K1) => Smokes(x).
`
	for _, db := range []string{"", "Smokes(C)\nSmokes(D)\nMember(E, K3)\n!Smokes(F)\n"} {
		m, d := parseModel(t, src, db)
		for _, mode := range []lift.Mode{lift.Positional, lift.CNF} {
			if !compareFirstOrder(t, fmt.Sprintf("%q %v", db, mode), m, d, ground.Options{Query: []string{"Smokes", "Member", "Likes"}}, lift.Options{Mode: mode}) {
				t.Fatal("refused")
			}
		}
	}
}

// A quantifier over a type whose constants are all told apart (here named
// by formulas) is expanded as the grounding does; one over a type with
// interchangeable constants is refused.
func TestFirstOrderQuantifiers(t *testing.T) {
	src := `person = {A, B, C, D, E, F, G, H}
club = {K1, K2}
Smokes(person)
Member(person, club)
Likes(person, person)
1.2 Member(x, K1) ^ Member(y, K2) => Likes(x, y)
0.8 Smokes(x) => EXIST c Member(x, c)
-0.5 FORALL c Member(x, c) => Smokes(x)
`
	m, d := parseModel(t, src, "Smokes(A)\n!Smokes(B)\n")
	if !compareFirstOrder(t, "quantified club", m, d, ground.Options{Query: []string{"Smokes", "Member", "Likes"}}, lift.Options{}) {
		t.Fatal("refused")
	}
	m, d = parseModel(t, src+"0.3 Smokes(x) ^ EXIST y Likes(x, y)\n", "Smokes(A)\n")
	_, err := firstorder.Build(context.Background(), m, d, firstorder.Options{Ground: ground.Options{Query: []string{"Smokes", "Member", "Likes"}}})
	if !errors.Is(err, firstorder.ErrNotApplicable) || !strings.Contains(err.Error(), "quantifies over type person") {
		t.Fatalf("EXIST over people: %v", err)
	}
}

// The reduced model is grounded under the caller's limit: where the
// evidence tells every constant apart (a chain of Friends) it is the full
// model, and a limit below its size refuses it before it is built, with
// the size, as grounding the full model does; a model whose classes
// reduce stays under the same limit.
func TestFirstOrderReducedModelLimit(t *testing.T) {
	const n = 30
	var chain strings.Builder
	for i := 0; i+1 < n; i++ {
		fmt.Fprintf(&chain, "Friends(P%d, P%d)\n", i, i+1)
	}
	m, db := parseModel(t, smokersSrc(n), chain.String())
	opt := firstorder.Options{Ground: ground.Options{Query: []string{"Smokes", "Cancer"}, OpenWorld: []string{"Friends"}, MaxGround: 500}}
	_, err := firstorder.Build(context.Background(), m, db, opt)
	if !errors.Is(err, ground.ErrTooLarge) || !errors.Is(err, firstorder.ErrNotApplicable) || !strings.Contains(err.Error(), "raise --max-ground") {
		t.Fatalf("the full-size reduced model under a limit of 500 ground formulas: %v", err)
	}
	opt.Ground.MaxGround = -1
	if _, err := firstorder.Build(context.Background(), m, db, opt); err != nil {
		t.Fatalf("without a limit: %v", err)
	}
	m, db = parseModel(t, smokersSrc(n), "Smokes(P0)\n")
	opt.Ground.MaxGround = 500
	if _, err := firstorder.Build(context.Background(), m, db, opt); err != nil {
		t.Fatalf("a reduced model under the limit: %v", err)
	}
}
