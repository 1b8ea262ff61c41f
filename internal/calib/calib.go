// Package calib checks that the samplers' claims are calibrated: on small
// models whose exact marginals enumeration gives (random frustrated Ising
// grids, random MLNs with hard formulas), every run that a sampler labels
// mixed should have its marginals within a few of its stated standard
// errors of the truth, and runs that cannot mix should be refused. The
// calibration test and experiments/sampling/calibration share it.
package calib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	_ "github.com/lifted-dev/lifted/infer/jtree" // exact marginals of the larger grids
	_ "github.com/lifted-dev/lifted/infer/mcmc"  // the samplers
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

// Model is a test model and its exact marginals.
type Model struct {
	Family string
	Index  int
	Graph  *fg.Graph
	Exact  [][]float64
	// MLN is the first-order model (for lbg), nil for a factor graph.
	MLN *infer.Model
}

// Grids returns count random n×n frustrated Ising grids (couplings
// |J| ∈ [2, 2.5] of random sign, fields in [−0.5, 0.5]; gen.FrustratedGrid)
// from seed.
func Grids(seed uint64, n, count int) []Model {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	var out []Model
	for i := range count {
		g := gen.FrustratedGrid(r, n, 2, 2.5, 0.5)
		out = append(out, Model{Family: fmt.Sprintf("grid%dx%d", n, n), Index: i, Graph: g, Exact: brute.Solve(g, nil).Marginals})
	}
	return out
}

// JTreeGrids returns count random n×n frustrated Ising grids as Grids
// does, with exact marginals by the junction tree (grids too large to
// enumerate: 6×6 and up).
func JTreeGrids(seed uint64, n, count int) ([]Model, error) {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	alg, _, err := infer.New("jtree", nil)
	if err != nil {
		return nil, err
	}
	var out []Model
	for i := range count {
		g := gen.FrustratedGrid(r, n, 2, 2.5, 0.5)
		c, err := lift.Ground(g, nil)
		if err != nil {
			return nil, err
		}
		ans, err := alg.Run(context.Background(), c, infer.Query{Task: infer.Marginals})
		if err != nil {
			return nil, fmt.Errorf("calib: jtree on grid %d×%d %d: %w", n, n, i, err)
		}
		out = append(out, Model{Family: fmt.Sprintf("grid%dx%d", n, n), Index: i, Graph: g, Exact: ans.Marginals()})
	}
	return out, nil
}

// MLNs returns count random small MLNs (gen.SmallMLN, the first formula
// hard, about a third of the others) whose grounding has 2 to 14
// variables and some world of positive weight, from seed.
func MLNs(seed uint64, count int) ([]Model, error) {
	r := rand.New(rand.NewPCG(seed, 99))
	var out []Model
	for len(out) < count {
		src, db := gen.SmallMLN(r, gen.MLNShape{Formulas: 3, HardOneIn: 3, FirstHard: true})
		m, err := mlnfile.Parse("r.mln", []byte(src))
		if err != nil {
			return nil, err
		}
		d, err := mlnfile.ReadDB(strings.NewReader(db), "r.db", m)
		if err != nil {
			return nil, err
		}
		var preds []string
		for _, p := range m.Preds {
			preds = append(preds, p.Name)
		}
		gr, err := ground.Ground(context.Background(), m, d, ground.Options{Query: preds})
		if errors.Is(err, ground.ErrContradiction) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%v\n%s", err, src)
		}
		g := gr.Graph
		if g.NumVars() < 2 || g.NumVars() > 14 {
			continue
		}
		ex := brute.Solve(g, nil)
		if math.IsInf(ex.LogZ, -1) || math.IsNaN(ex.LogZ) {
			continue
		}
		md := &infer.Model{MLN: m, DB: d, Closed: gr.Closed, Graph: g, Weights: make([]float64, len(m.Formulas)), Grounding: gr}
		for j, f := range m.Formulas {
			md.Weights[j] = f.Weight
		}
		for v := range gr.NumAtoms { // every ground atom (not the auxiliary variables) is queried
			md.Queries = append(md.Queries, infer.QueryAtom{Name: gr.AtomName(int32(v)), Var: int32(v)})
		}
		out = append(out, Model{Family: "mln-hard", Index: len(out), Graph: g, Exact: ex.Marginals, MLN: md})
	}
	return out, nil
}

// mlnModel parses and grounds an MLN (no evidence: db may be "") and
// returns it as a Model of family whose exact marginals are exact(name of
// the atom) for every ground atom, or, with exact nil, enumeration's
// (at most 22 variables). ok is false when the grounding is contradictory.
func mlnModel(family string, index int, src, db string, exact func(atom string) float64) (Model, bool, error) {
	return mlnModelOpt(family, index, src, db, exact, ground.Options{})
}

// mlnModelOpt is mlnModel with grounding options opt (its Query, when
// empty, is every predicate).
func mlnModelOpt(family string, index int, src, db string, exact func(atom string) float64, opt ground.Options) (Model, bool, error) {
	m, err := mlnfile.Parse(family+".mln", []byte(src))
	if err != nil {
		return Model{}, false, err
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), family+".db", m)
	if err != nil {
		return Model{}, false, err
	}
	var preds []string
	for _, p := range m.Preds {
		preds = append(preds, p.Name)
	}
	if len(opt.Query) == 0 {
		opt.Query = preds
	}
	gr, err := ground.Ground(context.Background(), m, d, opt)
	if errors.Is(err, ground.ErrContradiction) {
		return Model{}, false, nil
	}
	if err != nil {
		return Model{}, false, fmt.Errorf("%v\n%s", err, src)
	}
	g := gr.Graph
	md := &infer.Model{MLN: m, DB: d, Closed: gr.Closed, Graph: g, Weights: make([]float64, len(m.Formulas)), Grounding: gr}
	for j, f := range m.Formulas {
		md.Weights[j] = f.Weight
	}
	for v := range gr.NumAtoms {
		md.Queries = append(md.Queries, infer.QueryAtom{Name: gr.AtomName(int32(v)), Var: int32(v)})
	}
	var ex [][]float64
	if exact == nil && g.NumVars() > 22 {
		// beyond enumeration: the junction tree (tested against it)
		alg, _, err := infer.New("jtree", nil)
		if err != nil {
			return Model{}, false, err
		}
		c, err := lift.Ground(g, nil)
		if err != nil {
			return Model{}, false, err
		}
		ans, err := alg.Run(context.Background(), c, infer.Query{Task: infer.Marginals})
		if err != nil {
			return Model{}, false, fmt.Errorf("calib: jtree on %s %d (%d variables): %w", family, index, g.NumVars(), err)
		}
		ex = ans.Marginals()
	} else if exact == nil {
		sol := brute.Solve(g, nil)
		if math.IsInf(sol.LogZ, -1) || math.IsNaN(sol.LogZ) {
			return Model{}, false, nil
		}
		ex = sol.Marginals
	} else {
		ex = make([][]float64, g.NumVars())
		for v := range ex {
			ex[v] = make([]float64, g.Card[v])
			for s := range ex[v] {
				ex[v][s] = math.NaN() // auxiliary variables: not compared
			}
			if v < gr.NumAtoms {
				p := exact(gr.AtomName(int32(v)))
				ex[v][0], ex[v][1] = 1-p, p
			}
		}
	}
	return Model{Family: family, Index: index, Graph: g, Exact: ex, MLN: md}, true, nil
}

// Matchings returns the perfect-matching models gen.Deskmate(n, w) for
// each n (even), with their closed-form marginals
// (gen.DeskmateMarginal): hard constraints whose solutions single flips
// never leave.
func Matchings(w float64, ns ...int) ([]Model, error) {
	var out []Model
	for i, n := range ns {
		m, ok, err := mlnModel(fmt.Sprintf("matching%d", n), i, gen.Deskmate(n, w), "", func(a string) float64 { return gen.DeskmateMarginal(n, w, a) })
		if err != nil || !ok {
			return nil, fmt.Errorf("calib: matching %d: %v", n, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// Permutations returns count random permutation models on n×n atoms
// p(r,c) (exactly one true per row and per column: n! worlds), each atom
// with a random soft weight in [−1, 1], from seed; exact by enumeration
// (n ≤ 4).
func Permutations(seed uint64, n, count int) ([]Model, error) {
	r := rand.New(rand.NewPCG(seed, 35))
	var out []Model
	for i := range count {
		var b strings.Builder
		b.WriteString("row = {")
		for j := range n {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "R%d", j+1)
		}
		b.WriteString("}\ncol = {")
		for j := range n {
			if j > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, "C%d", j+1)
		}
		b.WriteString("}\np(row, col)\n\nEXIST c p(x,c).\nEXIST x p(x,c).\np(x,c) ^ p(x,d) => c = d.\np(x,c) ^ p(y,c) => x = y.\n")
		for a := range n {
			for c := range n {
				fmt.Fprintf(&b, "%.3f p(R%d,C%d)\n", 2*r.Float64()-1, a+1, c+1)
			}
		}
		m, ok, err := mlnModel(fmt.Sprintf("perm%d", n), i, b.String(), "", nil)
		if err != nil || !ok {
			return nil, fmt.Errorf("calib: permutation model: %v", err)
		}
		out = append(out, m)
	}
	return out, nil
}

// SymmetricPairs returns count UW-CSE-style models with symmetric pairs:
// three people, advisedBy at most one adviser each (hard), advisedBy(x,y)
// => student(x) ^ professor(y) and unit formulas with random weights, and
// no evidence, so that people are interchangeable and the modes (who
// advises whom) are images of one another under renaming; exact by
// enumeration (15 atoms).
func SymmetricPairs(seed uint64, count int) ([]Model, error) {
	r := rand.New(rand.NewPCG(seed, 36))
	var out []Model
	for i := range count {
		src := fmt.Sprintf("person = {P1,P2,P3}\nadvisedBy(person, person)\nstudent(person)\nprofessor(person)\n\n!advisedBy(x,x).\nadvisedBy(x,y) ^ advisedBy(x,z) => y = z.\n%.3f advisedBy(x,y) => student(x) ^ professor(y)\n%.3f student(x) ^ professor(x)\n%.3f advisedBy(x,y)\n%.3f student(x)\n%.3f advisedBy(x,y) => !advisedBy(y,x)\n",
			2+r.Float64(), -2-r.Float64(), 1+r.Float64(), r.Float64()-0.5, 2+r.Float64())
		m, ok, err := mlnModel("sympairs", i, src, "", nil)
		if err != nil || !ok {
			return nil, fmt.Errorf("calib: symmetric pairs: %v", err)
		}
		out = append(out, m)
	}
	return out, nil
}

// UWCSELike returns count small models with UW-CSE's features (issue 35),
// exact by enumeration: four people (two students, two professors, by
// evidence), advisedBy open, the hard !advisedBy(x,x), a negative-weight
// EXIST per student and per professor grounded, as UW-CSE's 68-atom
// clauses are, with a star auxiliary variable whose pair factors are hard
// (MaxArity 2), co-authors that want one of advisedBy(a,b),
// advisedBy(b,a) true but not both (strong, random weights 2.5 to 4), a
// soft "at most one adviser", and UW-CSE's unit weight near −2.9.
func UWCSELike(seed uint64, count int) ([]Model, error) {
	r := rand.New(rand.NewPCG(seed, 35))
	db := "student(P1)\nstudent(P2)\nprofessor(P3)\nprofessor(P4)\ncoauthor(P1,P3)\ncoauthor(P3,P1)\ncoauthor(P2,P4)\ncoauthor(P4,P2)\ncoauthor(P1,P2)\ncoauthor(P2,P1)\n"
	var out []Model
	for i := range count {
		src := fmt.Sprintf("person = {P1,P2,P3,P4}\nadvisedBy(person, person)\nstudent(person)\nprofessor(person)\ncoauthor(person, person)\n\n"+
			"!advisedBy(x,x).\n%.3f EXIST y !student(x) v advisedBy(x,y)\n%.3f EXIST x !professor(y) v advisedBy(x,y)\n"+
			"%.3f advisedBy(x,y) => student(x) ^ professor(y)\n%.3f coauthor(x,y) => advisedBy(x,y) v advisedBy(y,x)\n"+
			"%.3f !advisedBy(x,y) v !advisedBy(y,x)\n%.3f !advisedBy(s,p) v !advisedBy(s,q) v p = q\n%.3f advisedBy(x,y)\n",
			-2-r.Float64(), -1-r.Float64(), 1+r.Float64(), 2.5+1.5*r.Float64(), 2.5+1.5*r.Float64(), 0.4+0.4*r.Float64(), -2.5-r.Float64())
		m, ok, err := mlnModelOpt("uwcse-like", i, src, db, nil, ground.Options{MaxArity: 2, Query: []string{"advisedBy"}})
		if err != nil || !ok {
			return nil, fmt.Errorf("calib: UW-CSE-like: %v", err)
		}
		out = append(out, m)
	}
	return out, nil
}

// EventCalculus returns count Yale-shooting theories in the discrete event
// calculus, LoMRF's theory_cnf.mln (issue 35: "lbg ... marginals 0.6–0.7
// from exact") with horizon time points 0..T−1: hard frame axioms
// (DEC7: a fluent holds after it is initiated or held and not terminated,
// and not otherwise), hard necessary conditions and initial state, and
// the four soft effect axioms of Load and Shoot with random weights in
// [1, 3]; a random narrative (Load or Shoot at each time point 1..T−2
// with probability 0.3 each) as evidence, Next and Happens closed.
// HoldsAt, InitiatedAt and TerminatedAt are open. Worlds differ by whole
// runs of atoms along time that the hard axioms tie together, which
// single-site and pair moves cannot change; exact by the junction tree
// (a chain in time).
func EventCalculus(seed uint64, T, count int) ([]Model, error) {
	r := rand.New(rand.NewPCG(seed, 37))
	var out []Model
	for i := 0; len(out) < count; i++ {
		if i > 20*count {
			return nil, fmt.Errorf("calib: no satisfiable event-calculus narrative")
		}
		var b, db strings.Builder
		b.WriteString("time = {")
		for t := range T {
			if t > 0 {
				b.WriteString(",")
			}
			fmt.Fprint(&b, t)
		}
		b.WriteString("}\nevent = {Load,Shoot}\nfluent = {Loaded,Alive,Dead}\n")
		b.WriteString("Happens(event,time)\nNext(time,time)\nHoldsAt(fluent,time)\nInitiatedAt(fluent,time)\nTerminatedAt(fluent,time)\n\n")
		b.WriteString("!Next(t1,t0) v !InitiatedAt(f,t0) v HoldsAt(f,t1).\n!Next(t1,t0) v !TerminatedAt(f,t0) v !HoldsAt(f,t1).\n" +
			"!Next(t1,t0) v !HoldsAt(f,t0) v TerminatedAt(f,t0) v HoldsAt(f,t1).\n!Next(t1,t0) v HoldsAt(f,t0) v InitiatedAt(f,t0) v !HoldsAt(f,t1).\n")
		fmt.Fprintf(&b, "%.3f !Happens(Load,t) v InitiatedAt(Loaded,t)\n!InitiatedAt(Loaded,t) v Happens(Load,t).\n", 1+2*r.Float64())
		fmt.Fprintf(&b, "%.3f !Happens(Shoot,t) v !HoldsAt(Loaded,t) v TerminatedAt(Loaded,t)\n!TerminatedAt(Loaded,t) v Happens(Shoot,t).\n!TerminatedAt(Loaded,t) v HoldsAt(Loaded,t).\n", 1+2*r.Float64())
		fmt.Fprintf(&b, "%.3f !Happens(Shoot,t) v !HoldsAt(Loaded,t) v InitiatedAt(Dead,t)\n!InitiatedAt(Dead,t) v Happens(Shoot,t).\n!InitiatedAt(Dead,t) v HoldsAt(Loaded,t).\n", 1+2*r.Float64())
		fmt.Fprintf(&b, "%.3f !Happens(Shoot,t) v !HoldsAt(Loaded,t) v TerminatedAt(Alive,t)\n!TerminatedAt(Alive,t) v Happens(Shoot,t).\n!TerminatedAt(Alive,t) v HoldsAt(Loaded,t).\n", 1+2*r.Float64())
		b.WriteString("!TerminatedAt(Dead,t).\n!InitiatedAt(Alive,t).\nHoldsAt(Alive,0).\n!HoldsAt(Dead,0).\n!HoldsAt(Loaded,0).\n!InitiatedAt(f,0).\n!TerminatedAt(f,0).\n")
		for t := 1; t < T; t++ {
			fmt.Fprintf(&db, "Next(%d,%d)\n", t, t-1)
		}
		events := 0
		for t := 1; t < T-1; t++ {
			switch u := r.Float64(); {
			case u < 0.3:
				fmt.Fprintf(&db, "Happens(Load,%d)\n", t)
				events++
			case u < 0.6:
				fmt.Fprintf(&db, "Happens(Shoot,%d)\n", t)
				events++
			}
		}
		if events == 0 {
			continue
		}
		m, ok, err := mlnModelOpt("eventcalc", len(out), b.String(), db.String(), nil,
			ground.Options{Query: []string{"HoldsAt", "InitiatedAt", "TerminatedAt"}})
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, nil
}

// Run is one sampler run on one model and its comparison with the truth.
type Run struct {
	Family, Method string
	Model          int
	Seed           uint64
	// Err is the run's error (a start that found no world, a method that
	// does not apply); Mixed says the sampler labelled the run mixed
	// (Answer.Converged), else it was refused.
	Err   error
	Mixed bool
	// MaxErr is the largest |belief − exact| over the compared entries;
	// Pairs the compared entries (one per binary variable, every state
	// of others; variables the answer gives no belief skipped) and Within
	// those within K standard errors plus 1/N of the truth.
	MaxErr        float64
	Pairs, Within int
	Samples       int
	RHat          float64
	Seconds       float64
}

// K is the number of stated standard errors a marginal may be off.
const K = 4

// Do runs method (with props) on m under seed and compares it with the
// truth.
func Do(ctx context.Context, m Model, method string, props infer.Properties, seed uint64) Run {
	run := Run{Family: m.Family, Method: method, Model: m.Index, Seed: seed}
	alg, _, err := infer.New(method, props)
	if err != nil {
		run.Err = err
		return run
	}
	q := infer.Query{Task: infer.Marginals, Seed: seed}
	start := time.Now()
	var ans *infer.Answer
	if fo, ok := alg.(infer.FirstOrder); ok {
		if m.MLN == nil {
			run.Err = errors.New(method + " needs an MLN")
			return run
		}
		ans, err = fo.RunModel(ctx, m.MLN, q)
	} else {
		var c *lift.Compressed
		if c, err = lift.Ground(m.Graph, nil); err == nil {
			ans, err = alg.Run(ctx, c, q)
		}
	}
	run.Seconds = time.Since(start).Seconds()
	if err != nil {
		run.Err = err
		return run
	}
	run.Mixed = ans.Converged
	run.Samples, run.RHat = ans.Stats.Samples, ans.Stats.RHat
	n := float64(max(ans.Stats.Samples, 1))
	for v := range m.Graph.NumVars() {
		b := ans.Marginal(v)
		lo := ans.NodeOff[ans.Graph.NodeOf[v]]
		states := []int{1}
		if len(b) != 2 {
			states = states[:0]
			for s := range b {
				states = append(states, s)
			}
		}
		for _, s := range states {
			if math.IsNaN(b[s]) || math.IsNaN(m.Exact[v][s]) {
				continue
			}
			d := math.Abs(b[s] - m.Exact[v][s])
			run.MaxErr = max(run.MaxErr, d)
			run.Pairs++
			se := math.Inf(1)
			if ans.StdErr != nil {
				se = ans.StdErr[lo+s]
			}
			if d <= K*se+1/n {
				run.Within++
			}
		}
	}
	return run
}

// Tally is the summary of runs of one family and method.
type Tally struct {
	Family, Method string
	Runs, Errors   int
	Mixed          int // runs labelled mixed
	MixedWithin    int // of them, every compared entry within its error
	Pairs, Within  int // (run, entry) pairs of mixed runs, and those within
	MaxErr         float64
	MaxErrMixed    float64
}

// Add counts a run.
func (t *Tally) Add(r Run) {
	t.Family, t.Method = r.Family, r.Method
	t.Runs++
	if r.Err != nil {
		t.Errors++
		return
	}
	t.MaxErr = max(t.MaxErr, r.MaxErr)
	if !r.Mixed {
		return
	}
	t.Mixed++
	t.MaxErrMixed = max(t.MaxErrMixed, r.MaxErr)
	t.Pairs += r.Pairs
	t.Within += r.Within
	if r.Within == r.Pairs {
		t.MixedWithin++
	}
}

// Fraction is the share of the mixed runs' (run, entry) pairs within their
// error (1 when there are none).
func (t *Tally) Fraction() float64 {
	if t.Pairs == 0 {
		return 1
	}
	return float64(t.Within) / float64(t.Pairs)
}
