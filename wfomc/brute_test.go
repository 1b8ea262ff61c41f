package wfomc

import (
	"fmt"
	"math"
	"math/big"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// The brute force below is independent of the engine: it grounds the MLN
// syntax tree directly (quantifiers expanded over the domain), enumerates
// every world and sums exp(Σ w_j n_j) with float64 log-sum-exp.

type bruteWorld struct {
	m      *mln.MLN
	dom    [][]string     // per type: its elements
	atomID map[string]int // "P(a,b)" → bit
	atoms  []string
}

func bruteDomains(m *mln.MLN, sizes map[string]int64) [][]string {
	dom := make([][]string, len(m.Types))
	for i, t := range m.Types {
		n := int64(len(t.Constants))
		if s, ok := sizes[t.Name]; ok {
			n = s
		}
		var d []string
		for _, c := range t.Constants {
			if int64(len(d)) < n {
				d = append(d, c)
			}
		}
		for k := 1; int64(len(d)) < n; k++ {
			d = append(d, fmt.Sprintf("E%d_%s", k, t.Name))
		}
		dom[i] = d
	}
	return dom
}

func newBruteWorld(m *mln.MLN, sizes map[string]int64) *bruteWorld {
	w := &bruteWorld{m: m, dom: bruteDomains(m, sizes), atomID: map[string]int{}}
	for _, p := range m.Preds {
		var rec func(i int, args []string)
		rec = func(i int, args []string) {
			if i == len(p.TypeIdx) {
				k := atomKey(p.Name, args)
				w.atomID[k] = len(w.atoms)
				w.atoms = append(w.atoms, k)
				return
			}
			for _, c := range w.dom[p.TypeIdx[i]] {
				rec(i+1, append(args, c))
			}
		}
		rec(0, nil)
	}
	return w
}

func atomKey(p string, args []string) string {
	if len(args) == 0 {
		return p
	}
	s := p + "("
	for i, a := range args {
		if i > 0 {
			s += ","
		}
		s += a
	}
	return s + ")"
}

type bfn func(world uint64) bool

// compile grounds e under env.
func (w *bruteWorld) compile(e mln.Expr, env map[string]string) bfn {
	val := func(t mln.Term) string {
		if t.IsVar {
			return env[t.Name]
		}
		return t.Name
	}
	switch e := e.(type) {
	case *mln.Atom:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = val(a)
		}
		id, ok := w.atomID[atomKey(e.Pred, args)]
		if !ok {
			panic("brute: unknown atom " + atomKey(e.Pred, args))
		}
		return func(x uint64) bool { return x>>id&1 == 1 }
	case *mln.Equal:
		r := val(e.L) == val(e.R)
		return func(uint64) bool { return r }
	case *mln.Not:
		k := w.compile(e.X, env)
		return func(x uint64) bool { return !k(x) }
	case *mln.And:
		a, b := w.compile(e.L, env), w.compile(e.R, env)
		return func(x uint64) bool { return a(x) && b(x) }
	case *mln.Or:
		a, b := w.compile(e.L, env), w.compile(e.R, env)
		return func(x uint64) bool { return a(x) || b(x) }
	case *mln.Implies:
		a, b := w.compile(e.L, env), w.compile(e.R, env)
		return func(x uint64) bool { return !a(x) || b(x) }
	case *mln.Iff:
		a, b := w.compile(e.L, env), w.compile(e.R, env)
		return func(x uint64) bool { return a(x) == b(x) }
	case *mln.Exists, *mln.Forall:
		var vars []*mln.Var
		var body mln.Expr
		exists := false
		if q, ok := e.(*mln.Exists); ok {
			vars, body, exists = q.Vars, q.Body, true
		} else {
			q := e.(*mln.Forall)
			vars, body = q.Vars, q.Body
		}
		var ks []bfn
		var rec func(i int)
		rec = func(i int) {
			if i == len(vars) {
				ks = append(ks, w.compile(body, env))
				return
			}
			v := vars[i]
			old, had := env[v.Name]
			for _, c := range w.dom[w.m.TypeIndex(v.Type)] {
				env[v.Name] = c
				rec(i + 1)
			}
			if had {
				env[v.Name] = old
			} else {
				delete(env, v.Name)
			}
		}
		rec(0)
		if q, ok := e.(*mln.Exists); ok && q.Cmp != "" {
			return func(x uint64) bool {
				n := 0
				for _, k := range ks {
					if k(x) {
						n++
					}
				}
				return q.Counts(n)
			}
		}
		return func(x uint64) bool {
			for _, k := range ks {
				if k(x) == exists {
					return exists
				}
			}
			return !exists
		}
	case *mln.Cardinality:
		// Σ a_i·|P_i|: the true atoms of each predicate, counted.
		var ids [][]int
		for _, t := range e.Terms {
			d := w.m.Pred(t.Pred)
			var own []int
			var rec func(args []string)
			rec = func(args []string) {
				if len(args) == len(d.ArgTypes) {
					own = append(own, w.atomID[atomKey(t.Pred, args)])
					return
				}
				for _, c := range w.dom[d.TypeIdx[len(args)]] {
					rec(append(args, c))
				}
			}
			rec(nil)
			ids = append(ids, own)
		}
		return func(x uint64) bool {
			s := int64(0)
			for i, t := range e.Terms {
				for _, id := range ids[i] {
					s += int64(t.Coef) * int64(x>>id&1)
				}
			}
			return e.Holds(s)
		}
	}
	panic(fmt.Sprintf("brute: %T", e))
}

// groundings returns the ground instances of a formula (free variables
// bound in every way).
func (w *bruteWorld) groundings(f *mln.Formula) []bfn {
	var out []bfn
	env := map[string]string{}
	var rec func(i int)
	rec = func(i int) {
		if i == len(f.Vars) {
			out = append(out, w.compile(f.Expr, env))
			return
		}
		v := f.Vars[i]
		for _, c := range w.dom[w.m.TypeIndex(v.Type)] {
			env[v.Name] = c
			rec(i + 1)
		}
		delete(env, v.Name)
	}
	rec(0)
	return out
}

type bruteResult struct {
	logZ     float64
	counts   []float64
	marginal []float64
}

// brute computes log Z, the expected counts and the query marginals by
// enumerating all worlds. keep filters worlds (evidence).
func brute(m *mln.MLN, weights []float64, sizes map[string]int64, ev []Literal, queries []string, keep func(w *bruteWorld, x uint64) bool) bruteResult {
	w := newBruteWorld(m, sizes)
	if len(w.atoms) > 64 || len(w.atoms)-len(ev) > 26 {
		panic(fmt.Sprintf("brute: %d atoms, %d of them evidence", len(w.atoms), len(ev)))
	}
	gr := make([][]bfn, len(m.Formulas))
	for j, f := range m.Formulas {
		gr[j] = w.groundings(f)
	}
	var qs []bfn
	for _, q := range queries {
		qm, err := mlnfile.Parse("q", []byte(m.String()+q+".\n"))
		if err != nil {
			panic(err)
		}
		qs = append(qs, w.compile(qm.Formulas[len(qm.Formulas)-1].Expr, map[string]string{}))
	}
	var evMask, evVal uint64
	for _, l := range ev {
		id := w.atomID[atomKey(l.Pred, l.Args)]
		evMask |= 1 << id
		if l.Value {
			evVal |= 1 << id
		}
	}
	maxL := math.Inf(-1)
	type wt struct {
		l      float64
		counts []float64
		q      []bool
	}
	var all []wt
	// Only the atoms evidence leaves open are enumerated.
	var open []uint
	for i := range w.atoms {
		if evMask>>i&1 == 0 {
			open = append(open, uint(i))
		}
	}
	for y := uint64(0); y < 1<<len(open); y++ {
		x := evVal
		for i, b := range open {
			x |= (y >> i & 1) << b
		}
		if keep != nil && !keep(w, x) {
			continue
		}
		l := 0.0
		counts := make([]float64, len(m.Formulas))
		ok := true
		for j, f := range m.Formulas {
			c := 0
			for _, g := range gr[j] {
				if g(x) {
					c++
				}
			}
			counts[j] = float64(c)
			if f.Hard {
				if c != len(gr[j]) {
					ok = false
					break
				}
			} else {
				l += weights[j] * float64(c)
			}
		}
		if !ok {
			continue
		}
		q := make([]bool, len(qs))
		for i, f := range qs {
			q[i] = f(x)
		}
		all = append(all, wt{l, counts, q})
		maxL = math.Max(maxL, l)
	}
	// With huge weights Σ_j w_j·n_j rounds away the small weights: the
	// log weights relative to the largest are then computed exactly.
	var rel []float64
	for j, f := range m.Formulas {
		if !f.Hard && math.Abs(weights[j]) > 1e6 && len(all) > 0 {
			rel, maxL = exactRelLogs(m, weights, func(i int) []float64 { return all[i].counts }, len(all))
			break
		}
	}
	res := bruteResult{counts: make([]float64, len(m.Formulas)), marginal: make([]float64, len(qs))}
	z := 0.0
	for i, a := range all {
		p := math.Exp(a.l - maxL)
		if rel != nil {
			p = math.Exp(rel[i])
		}
		z += p
		for j := range a.counts {
			res.counts[j] += p * a.counts[j]
		}
		for i, b := range a.q {
			if b {
				res.marginal[i] += p
			}
		}
	}
	res.logZ = maxL + math.Log(z)
	for j := range res.counts {
		res.counts[j] /= z
	}
	for i := range res.marginal {
		res.marginal[i] /= z
	}
	return res
}

// close reports whether a and b agree to tol, relatively (absolutely below 1).
func near(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// checkAgainstBrute compiles and evaluates m and compares with brute force.
func checkAgainstBrute(t *testing.T, name string, m *mln.MLN, weights []float64, sizes map[string]int64, ev []Literal, queries []string, opt *Options) {
	t.Helper()
	if opt == nil {
		opt = &Options{}
	}
	opt.Evidence = ev
	opt.Queries = nil
	for _, q := range queries {
		pq, err := ParseQuery(m, q)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		opt.Queries = append(opt.Queries, pq)
	}
	mod, err := Compile(m, opt)
	if err != nil {
		t.Fatalf("%s: compile: %v\n%s", name, err, m)
	}
	got, err := mod.Evaluate(weights, sizes)
	if err != nil {
		t.Fatalf("%s: evaluate: %v\n%s", name, err, m)
	}
	compareBrute(t, name, m, got, brute(m, weights, sizes, ev, queries, nil), queries)
}

// compareBrute compares wfomc's result with brute force's, to 1e-9.
func compareBrute(t *testing.T, name string, m *mln.MLN, got *Result, want bruteResult, queries []string) {
	t.Helper()
	const tol = 1e-9
	if !near(got.LogZ, want.logZ, tol) || !got.Exact() {
		t.Errorf("%s: log Z = %.15g, brute force %.15g\n%s", name, got.LogZ, want.logZ, m)
	}
	for j := range want.counts {
		if !near(got.ExpectedCounts[j], want.counts[j], tol) {
			t.Errorf("%s: E[n_%d] (%s) = %.15g, brute force %.15g\n%s", name, j+1, m.Formulas[j].Text, got.ExpectedCounts[j], want.counts[j], m)
		}
	}
	for i := range want.marginal {
		if math.Abs(got.Marginals[i]-want.marginal[i]) > tol {
			t.Errorf("%s: P(%s) = %.15g, brute force %.15g\n%s", name, queries[i], got.Marginals[i], want.marginal[i], m)
		}
	}
}

func weightsOf(m *mln.MLN) []float64 {
	w := make([]float64, len(m.Formulas))
	for j, f := range m.Formulas {
		w[j] = f.Weight
	}
	return w
}

func mustParse(t *testing.T, src string) *mln.MLN {
	t.Helper()
	m, err := mlnfile.Parse("test.mln", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return m
}

// exactRelLogs returns, for each of k worlds with formula counts
// counts(i), its log weight Σ_j w_j·n_j minus the largest one, computed
// exactly (big.Float) and then rounded, and the largest, rounded.
func exactRelLogs(m *mln.MLN, weights []float64, counts func(i int) []float64, k int) ([]float64, float64) {
	const prec = 2400 // 10^±308 times counts below 2^64, to the last bit
	ls := make([]*big.Float, k)
	var mx *big.Float
	for i := range k {
		l := new(big.Float).SetPrec(prec)
		for j, f := range m.Formulas {
			if f.Hard {
				continue
			}
			t := new(big.Float).SetPrec(prec).SetFloat64(weights[j])
			t.Mul(t, new(big.Float).SetPrec(prec).SetFloat64(counts(i)[j]))
			l.Add(l, t)
		}
		ls[i] = l
		if mx == nil || l.Cmp(mx) > 0 {
			mx = l
		}
	}
	out := make([]float64, k)
	for i, l := range ls {
		d := new(big.Float).SetPrec(prec).Sub(l, mx)
		out[i], _ = d.Float64()
	}
	top, _ := mx.Float64()
	return out, top
}
