package learn

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/mln"
)

// DiscOptions configure Discriminative.
type DiscOptions struct {
	// NE names the non-evidence (query) predicates; all others are
	// evidence (closed world). Required.
	NE []string
	// PriorMean and PriorStdDev define a Gaussian prior N(mean, sd²) on
	// every learned weight; PriorStdDev 0 means 2 (Alchemy's
	// discriminative default), negative means no prior.
	PriorMean, PriorStdDev float64
	// MaxIter bounds the diagonal Newton iterations (default 100).
	MaxIter int
	// Samples and BurnIn are the MC-SAT steps kept and discarded per
	// iteration and database (defaults 100 and 20); Chains is the number
	// of chains (default 1), each its own burn-in.
	Samples, BurnIn, Chains int
	// ExactVars: when a database's ground network has at most this many
	// variables the expected counts are computed exactly by enumeration
	// instead of MC-SAT (default 16; negative: never).
	ExactVars int
	// GradTol stops when every component of the gradient, divided by the
	// number of the formula's ground formulas that the evidence leaves
	// open (at least 1), is below it (default 1e-3).
	GradTol float64
	// Lambda is the initial trust-region parameter (default 1).
	Lambda float64
	// MaxStep bounds the change of any weight in one iteration (default 2).
	MaxStep float64
	// Init gives starting weights (one per formula); nil starts from the
	// weights written in the MLN, or 0.
	Init []float64
	Seed uint64
	// Progress, if set, is called after every iteration with the largest
	// scaled gradient component.
	Progress func(iter int, maxGrad float64)
}

func (o DiscOptions) defaults() DiscOptions {
	if o.PriorStdDev == 0 {
		o.PriorStdDev = 2
	}
	if o.MaxIter == 0 {
		o.MaxIter = 100
	}
	if o.Samples <= 0 {
		o.Samples = 100
	}
	if o.BurnIn <= 0 {
		o.BurnIn = 20
	}
	if o.Chains <= 0 {
		o.Chains = 1
	}
	if o.ExactVars == 0 {
		o.ExactVars = 16
	}
	if o.GradTol <= 0 {
		o.GradTol = 1e-3
	}
	if o.Lambda <= 0 {
		o.Lambda = 1
	}
	if o.MaxStep <= 0 {
		o.MaxStep = 2
	}
	return o
}

// Discriminative learns the weights of m's soft formulas by maximising the
// conditional log-likelihood of the non-evidence predicates' atoms given
// the evidence predicates' atoms, log P(y | x) summed over the databases
// (closed world: atoms a database does not list are false), plus the log
// prior. This is the setting of Alchemy's and Tuffy's discriminative
// learners (Singla and Domingos 2005; Lowd and Domingos 2007), and, like
// theirs, it needs no bound on the size of a ground clause: the ground
// network is built by package ground (large clauses get an auxiliary
// variable) and the expected counts come from MC-SAT on it (package gibbs),
// or from enumeration when it is small.
//
// The gradient of the conditional log-likelihood with respect to w_j is
// n_j(x, y) − E_w[n_j | x], the true groundings of formula j in the data
// minus their expectation given the evidence; only the ground formulas
// that the evidence leaves open contribute, so those are the ones counted.
// The optimiser is Lowd and Domingos's diagonal Newton method with a trust
// region: direction d_j = g_j / H_jj with H_jj = Var_w[n_j | x] + 1/σ²
// (the diagonal of the Hessian of the negative objective, estimated from
// the same samples), step α = d·g / (dᵀHd + λ d·d) with dᵀHd = Var_w[d·n]
// + |d|²/σ², λ halved when the improvement estimated from the new gradient
// (the trapezoid rule, s·(g + g′)/2 for the step s) exceeds 3/4 of the
// one the quadratic model predicts and quadrupled when it falls below 1/4;
// a step that makes it negative is undone. Each weight moves by at most
// MaxStep per iteration (the step is clipped per component).
//
// The databases are each ground twice per iteration at most: once with
// every learned weight 1 (the counting network, made once), and once with
// the current weights (the sampling network). Functions are not supported
// (an error).
func Discriminative(ctx context.Context, m *mln.MLN, dbs []*mln.DB, names []string, opt DiscOptions) (*Result, error) {
	start := time.Now()
	if ctx == nil {
		ctx = context.Background()
	}
	o := opt.defaults()
	if len(o.NE) == 0 {
		return nil, errors.New("discriminative learning needs the non-evidence predicates")
	}
	for _, n := range o.NE {
		if m.PredIndex(n) < 0 {
			return nil, fmt.Errorf("unknown non-evidence predicate %q", n)
		}
	}
	if len(m.Funcs) > 0 {
		return nil, errors.New("discriminative learning does not support functions")
	}
	if len(dbs) == 0 {
		return nil, errors.New("no training databases")
	}
	w, err := initialWeights(m, o.Init)
	if err != nil {
		return nil, err
	}
	learn := learnable(m)
	var probs []*discProblem
	for i, db := range dbs {
		name := fmt.Sprintf("database %d", i+1)
		if i < len(names) {
			name = names[i]
		}
		p, err := newDiscProblem(ctx, m, db, o.NE, learn)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		probs = append(probs, p)
	}
	nf := len(m.Formulas)
	open := make([]float64, nf)
	data := make([]float64, nf)
	for _, p := range probs {
		for j := range nf {
			open[j] += p.open[j]
			data[j] += p.data[j]
		}
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x64697363))
	inv := 0.0
	if o.PriorStdDev > 0 {
		inv = 1 / (o.PriorStdDev * o.PriorStdDev)
	}
	// gradient at w: data − E[n] − prior; samples of n for the Hessian.
	eval := func(w []float64) ([]float64, momentSet, error) {
		var mo momentSet
		for _, p := range probs {
			mp := &moments{}
			if err := p.expect(ctx, m, w, o, rng, mp); err != nil {
				return nil, nil, err
			}
			mo = append(mo, mp)
		}
		g := make([]float64, nf)
		for _, j := range learn {
			g[j] = data[j] - mo.mean(j) - inv*(w[j]-o.PriorMean)
		}
		return g, mo, nil
	}
	g, mo, err := eval(w)
	if err != nil {
		return nil, err
	}
	lambda := o.Lambda
	res := &Result{Evaluations: 1}
	scaled := func(g []float64) float64 {
		mx := 0.0
		for _, j := range learn {
			mx = max(mx, math.Abs(g[j])/max(open[j], 1))
		}
		return mx
	}
	res.Status = "iteration limit"
	for it := 1; it <= o.MaxIter; it++ {
		if scaled(g) < o.GradTol {
			res.Status = "converged (gradient below tolerance)"
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Iterations = it
		d := make([]float64, nf)
		dg, dd := 0.0, 0.0
		for _, j := range learn {
			h := mo.variance(j) + inv
			d[j] = g[j] / max(h, 1e-6)
			dg += d[j] * g[j]
			dd += d[j] * d[j]
		}
		dHd := mo.varianceAlong(d) + inv*dd
		alpha := dg / (dHd + lambda*dd)
		step := make([]float64, nf)
		ss := 0.0
		for _, j := range learn {
			step[j] = max(-o.MaxStep, min(o.MaxStep, alpha*d[j]))
			ss += step[j] * step[j]
		}
		// the improvement the quadratic model predicts for the step
		pred := dotv(step, g) - 0.5*(mo.varianceAlong(step)+inv*ss)
		nw := slices.Clone(w)
		for _, j := range learn {
			nw[j] += step[j]
		}
		ng, nmo, err := eval(nw)
		if err != nil {
			return nil, err
		}
		res.Evaluations++
		act := 0.0
		for _, j := range learn {
			act += step[j] * (g[j] + ng[j]) / 2
		}
		if act < 0 {
			lambda *= 4 // overshoot: undo the step
		} else {
			switch r := act / pred; {
			case r > 0.75:
				lambda /= 2
			case r < 0.25:
				lambda *= 4
			}
			w, g, mo = nw, ng, nmo
		}
		lambda = min(max(lambda, 1e-8), 1e8)
		if o.Progress != nil {
			o.Progress(it, scaled(g))
		}
	}
	res.Weights = w
	res.Objective, res.LogLik = math.NaN(), math.NaN()
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}

// momentSet holds the moments of the count vectors of several databases,
// which are independent: the moments of their sum are the sums.
type momentSet []*moments

func (ms momentSet) mean(j int) float64 {
	s := 0.0
	for _, m := range ms {
		s += m.mean(j)
	}
	return s
}

func (ms momentSet) variance(j int) float64 {
	s := 0.0
	for _, m := range ms {
		s += m.variance(j)
	}
	return s
}

func (ms momentSet) varianceAlong(d []float64) float64 {
	s := 0.0
	for _, m := range ms {
		s += m.varianceAlong(d)
	}
	return s
}

// moments accumulates count vectors (weighted samples) for their means,
// variances and the variance along a direction.
type moments struct {
	wsum float64
	ws   []float64   // weight per sample
	n    [][]float64 // count vector per sample
}

// add adds a sample with weight wt.
func (mo *moments) add(wt float64, n []float64) {
	mo.wsum += wt
	mo.ws = append(mo.ws, wt)
	mo.n = append(mo.n, n)
}

func (mo *moments) mean(j int) float64 {
	s := 0.0
	for i, n := range mo.n {
		s += mo.ws[i] * n[j]
	}
	return s / mo.wsum
}

func (mo *moments) variance(j int) float64 {
	mu := mo.mean(j)
	s := 0.0
	for i, n := range mo.n {
		s += mo.ws[i] * (n[j] - mu) * (n[j] - mu)
	}
	return s / mo.wsum
}

// varianceAlong returns the variance of d·n.
func (mo *moments) varianceAlong(d []float64) float64 {
	mu, s := 0.0, 0.0
	for i, n := range mo.n {
		mu += mo.ws[i] * dotv(d, n)
	}
	mu /= mo.wsum
	for i, n := range mo.n {
		x := dotv(d, n) - mu
		s += mo.ws[i] * x * x
	}
	return s / mo.wsum
}

func dotv(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// discProblem is one training database ready for discriminative learning:
// the counting network (every learned weight 1), its ground formulas by
// formula, and the counts of the data.
type discProblem struct {
	db    *mln.DB // the training data (closed world)
	ev    *mln.DB // the evidence: the data without the non-evidence atoms
	ne    []string
	count *ground.Grounding
	// table factors of learned formulas in the counting network: a ground
	// formula is true where its table (weight 1) has its largest entry 1
	tabFactor []int32
	tabForm   []int32
	// ground formulas with an auxiliary variable: evaluated by formula
	starForm []int32
	starBind [][]int32
	forms    map[int]*ground.Eval
	open     []float64 // per formula: ground formulas the evidence leaves open
	data     []float64 // per formula: of those, the ones true in the data
	// the training data's value of every atom variable of count
	truth []int32
}

// WithoutPredicates returns a copy of db in which the atoms of the named
// predicates are unknown ("?P(A)"; the domains keep every constant, in the
// same order): the evidence of a discriminative task whose data db is.
func WithoutPredicates(m *mln.MLN, db *mln.DB, preds []string) (*mln.DB, error) {
	isNE := make([]bool, len(m.Preds))
	for _, n := range preds {
		p := m.PredIndex(n)
		if p < 0 {
			return nil, fmt.Errorf("unknown predicate %q", n)
		}
		isNE[p] = true
	}
	ev := mln.NewDB(m)
	args := []string{}
	for _, a := range db.Atoms {
		d := m.Preds[a.Pred]
		args = args[:0]
		for p, c := range a.Args {
			args = append(args, db.Domain(m.Types[d.TypeIdx[p]].Name)[c])
		}
		t := a.Truth
		if isNE[a.Pred] {
			t = mln.Unknown // keeps the constant in the domain, in order
		}
		if err := ev.AddAtom(d.Name, args, t); err != nil {
			return nil, err
		}
	}
	return ev, nil
}

// newDiscProblem builds the evidence database and the counting network.
func newDiscProblem(ctx context.Context, m *mln.MLN, db *mln.DB, ne []string, learn []int) (*discProblem, error) {
	ev, err := WithoutPredicates(m, db, ne)
	if err != nil {
		return nil, err
	}
	p := &discProblem{db: db, ev: ev, ne: ne, forms: map[int]*ground.Eval{}}
	saved := saveWeights(m)
	defer restoreWeights(m, saved)
	for _, j := range learn {
		m.Formulas[j].Weight, m.Formulas[j].HasWeight = 1, true
	}
	type rec struct {
		fi     int
		bind   []int32
		factor int32
	}
	var recs []rec
	r := &ground.Restriction{OnFactor: func(fi int, _ []int, b []int32, factor int32) {
		recs = append(recs, rec{fi, slices.Clone(b), factor})
	}}
	gr, err := ground.Ground(ctx, m, ev, ground.Options{Query: ne, MaxGround: -1, Restrict: r})
	if err != nil {
		return nil, err
	}
	p.count = gr
	isLearned := make([]bool, len(m.Formulas))
	for _, j := range learn {
		isLearned[j] = true
	}
	p.open = make([]float64, len(m.Formulas))
	dom := ground.Domains(m, ev)
	for _, rc := range recs {
		j := gr.CompiledFormula(rc.fi)
		if j < 0 || !isLearned[j] {
			continue
		}
		p.open[j]++
		if rc.factor >= 0 {
			p.tabFactor = append(p.tabFactor, rc.factor)
			p.tabForm = append(p.tabForm, int32(j))
			continue
		}
		if p.forms[j] == nil {
			f, err := ground.Compile(m, dom, j, ground.CompileOptions{})
			if err != nil {
				return nil, err
			}
			p.forms[j] = f.NewEval()
		}
		p.starForm = append(p.starForm, int32(j))
		p.starBind = append(p.starBind, rc.bind)
	}
	p.truth = make([]int32, gr.Graph.NumVars())
	iargs := []int{}
	for v := range gr.NumAtoms {
		pred, a, _ := gr.Atom(int32(v))
		iargs = append(iargs[:0], a...)
		if t, ok := db.Lookup(pred, iargs); ok && t == mln.True {
			p.truth[v] = 1
		}
	}
	p.data = p.counts(p.truth, make([]float64, len(m.Formulas)))
	return p, nil
}

func saveWeights(m *mln.MLN) [][2]float64 {
	s := make([][2]float64, len(m.Formulas))
	for j, f := range m.Formulas {
		h := 0.0
		if f.HasWeight {
			h = 1
		}
		s[j] = [2]float64{f.Weight, h}
	}
	return s
}

func restoreWeights(m *mln.MLN, s [][2]float64) {
	for j, f := range m.Formulas {
		f.Weight, f.HasWeight = s[j][0], s[j][1] == 1
	}
}

// counts writes into out (zeroed first) the number of true ground formulas
// of every learned formula among those the evidence leaves open, in the
// world x of the counting network's atom variables.
func (p *discProblem) counts(x []int32, out []float64) []float64 {
	clear(out)
	g := p.count.Graph
	for i, f := range p.tabFactor {
		t := g.Table(int(f))
		idx, stride := 0, 1
		sc := g.Scope(int(f))
		for q := len(sc) - 1; q >= 0; q-- {
			idx += int(x[sc[q]]) * stride
			stride *= int(t.Dims[q])
		}
		if t.Values[idx] == 1 {
			out[p.tabForm[i]]++
		}
	}
	if len(p.starForm) > 0 {
		iargs := []int{}
		truth := func(pred int, args []int32) bool {
			iargs = iargs[:0]
			for _, a := range args {
				iargs = append(iargs, int(a))
			}
			v, t := p.count.Var(pred, iargs)
			if v >= 0 {
				return x[v] == 1
			}
			return t == mln.True
		}
		for i, j := range p.starForm {
			if p.forms[int(j)].Truth(p.starBind[i], truth) {
				out[j]++
			}
		}
	}
	return out
}

// expect adds to mo the count vectors of samples of the non-evidence atoms
// given the evidence under weights w (MC-SAT), or every world with its
// probability when the network is small.
func (p *discProblem) expect(ctx context.Context, m *mln.MLN, w []float64, o DiscOptions, rng *rand.Rand, mo *moments) error {
	saved := saveWeights(m)
	for j, f := range m.Formulas {
		if !f.Hard {
			f.Weight, f.HasWeight = w[j], true
		}
	}
	gr, err := ground.Ground(ctx, m, p.ev, ground.Options{Query: p.ne, MaxGround: -1})
	restoreWeights(m, saved)
	if err != nil {
		return err
	}
	// map the counting network's atom variables to the sampling network's
	cv := make([]int32, p.count.NumAtoms)    // sampling variable, or -1
	fixed := make([]int32, p.count.NumAtoms) // value when cv is -1
	iargs := []int{}
	for v := range p.count.NumAtoms {
		pred, a, _ := p.count.Atom(int32(v))
		iargs = append(iargs[:0], a...)
		sv, t := gr.Var(pred, iargs)
		cv[v] = sv
		if t == mln.True {
			fixed[v] = 1
		}
	}
	g := gr.Graph
	nv := g.NumVars()
	x := make([]int32, len(p.truth))
	project := func(s []int32) []int32 {
		for v := range cv {
			if cv[v] >= 0 {
				x[v] = s[cv[v]]
			} else {
				x[v] = fixed[v]
			}
		}
		return x
	}
	nf := len(m.Formulas)
	if o.ExactVars > 0 && nv <= o.ExactVars {
		return p.enumerate(g, project, nf, mo)
	}
	per := max(1, o.Samples/o.Chains)
	for range o.Chains {
		s := make([]int32, nv)
		if err := gibbs.Start(g, nil, s, rng); err != nil {
			return err
		}
		ch, err := gibbs.NewChain(g, nil, s)
		if err != nil {
			return err
		}
		for i := range o.BurnIn + per {
			if i&15 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			ch.MCSAT(rng, 1, 0.1)
			if i >= o.BurnIn {
				mo.add(1, p.counts(project(ch.State()), make([]float64, nf)))
			}
		}
	}
	return nil
}

// enumerate adds every world of g with its probability.
func (p *discProblem) enumerate(g *fg.Graph, project func([]int32) []int32, nf int, mo *moments) error {
	nv := g.NumVars()
	s := make([]int32, nv)
	var ws []float64
	var ns [][]float64
	mx := math.Inf(-1)
	for {
		lw := 0.0
		for f := range g.NumFactors() {
			t := g.Table(f)
			idx, stride := 0, 1
			sc := g.Scope(f)
			for q := len(sc) - 1; q >= 0; q-- {
				idx += int(s[sc[q]]) * stride
				stride *= int(t.Dims[q])
			}
			lw += math.Log(t.Values[idx])
		}
		if !math.IsInf(lw, -1) {
			ws = append(ws, lw)
			mx = max(mx, lw)
			ns = append(ns, p.counts(project(s), make([]float64, nf)))
		}
		v := nv - 1
		for ; v >= 0; v-- {
			s[v]++
			if s[v] < g.Card[v] {
				break
			}
			s[v] = 0
		}
		if v < 0 {
			break
		}
	}
	if len(ws) == 0 {
		return fg.ErrContradiction
	}
	for i := range ws {
		mo.add(math.Exp(ws[i]-mx), ns[i])
	}
	return nil
}

// DiscFiles reads one training database per path (each its own mega-
// example), expands m's types over them, and runs Discriminative: what
// "lifted learn --method dn" does. It returns the expanded MLN, whose
// formulas the weights are for.
func DiscFiles(ctx context.Context, m *mln.MLN, train []string, opt DiscOptions) (*mln.MLN, *Result, error) {
	sets := make([][]string, len(train))
	for i, path := range train {
		sets[i] = []string{path}
	}
	m, dbs, err := mln.ExpandForData(m, mlnfile.ReadDBSets(sets))
	if err != nil {
		return nil, nil, err
	}
	res, err := Discriminative(ctx, m, dbs, train, opt)
	return m, res, err
}
