package maplp

import (
	"context"
	"math"
)

// PDLP is restarted primal–dual hybrid gradient for LPs (Applegate et al.,
// "Practical large-scale linear programming using primal-dual hybrid
// gradient", 2021): Ruiz equilibration and Pock–Chambolle diagonal
// preconditioning, a constant step 0.9/‖K‖₂ split by the primal weight ω,
// and adaptive restarts to the average or the current iterate on the
// relative KKT error (the criterion of cuPDLP), with ω re-balanced at
// every restart. It needs only sparse matrix–vector products, so it scales
// to LPs of 10⁵–10⁶ variables where the dense simplex cannot.
//
// It stops when the relative primal residual, dual residual and duality gap
// are all at most Tol (default 1e-7):
//
//	‖q − Kx‖ ≤ Tol(1+‖q‖), ‖c − Kᵀy − λ‖ ≤ Tol(1+‖c‖), |cᵀx − dual| ≤ Tol(1+|cᵀx|+|dual|)
//
// or after MaxIter iterations (default 200000; Status Stopped).
type PDLP struct {
	Tol     float64
	MaxIter int
}

// Name names the PDLP solver as the solver property takes it.
func (PDLP) Name() string { return "pdlp" }

// Solve minimises −Obj·x subject to the rows, written as Kx (=, ≥) q: an
// Eq row a·x = b as it is, an Le row a·x ≤ b as −a·x ≥ −b (dual y ≥ 0).
func (s PDLP) Solve(ctx context.Context, p *LP) (*Solution, error) {
	tol, maxIter := s.Tol, s.MaxIter
	if tol <= 0 {
		tol = 1e-7
	}
	if maxIter <= 0 {
		maxIter = 200000
	}
	m, n := p.NumRows(), p.NumCols()
	// K in CSR (rows) and CSC (columns), scaled in place.
	rs := append([]int(nil), p.RowStart...)
	if len(rs) == 0 {
		rs = []int{0}
	}
	rc := p.RowCol
	rv := make([]float64, len(p.RowVal))
	q := make([]float64, m)
	ineq := make([]bool, m)
	for i := 0; i < m; i++ {
		sg := 1.0
		if p.Sense[i] == Le {
			sg, ineq[i] = -1, true
		}
		for k := rs[i]; k < rs[i+1]; k++ {
			rv[k] = sg * p.RowVal[k]
		}
		q[i] = sg * p.RHS[i]
	}
	c := make([]float64, n)
	for j := range c {
		c[j] = -p.Obj[j]
	}
	cs := make([]int, n+1)
	for _, j := range rc {
		cs[j+1]++
	}
	for j := 0; j < n; j++ {
		cs[j+1] += cs[j]
	}
	cr := make([]int32, len(rc))
	cpos := make([]int, len(rc)) // CSC entry → CSR entry
	fill := append([]int(nil), cs[:n]...)
	for i := 0; i < m; i++ {
		for k := rs[i]; k < rs[i+1]; k++ {
			j := rc[k]
			cr[fill[j]], cpos[fill[j]] = int32(i), k
			fill[j]++
		}
	}
	// Preconditioning: D1 (rows), D2 (columns); K̃ = D1 K D2.
	d1, d2 := ones(m), ones(n)
	rmax, cmax := make([]float64, m), make([]float64, n)
	// scale divides row i by √rmax[i] and column j by √cmax[j] (zeros
	// left alone), in K and in D1, D2.
	scale := func() {
		for i := 0; i < m; i++ {
			if rmax[i] > 0 {
				f := 1 / math.Sqrt(rmax[i])
				d1[i] *= f
				for k := rs[i]; k < rs[i+1]; k++ {
					rv[k] *= f
				}
			}
		}
		for i := 0; i < m; i++ {
			for k := rs[i]; k < rs[i+1]; k++ {
				if a := cmax[rc[k]]; a > 0 {
					rv[k] /= math.Sqrt(a)
				}
			}
		}
		for j := 0; j < n; j++ {
			if cmax[j] > 0 {
				d2[j] /= math.Sqrt(cmax[j])
			}
		}
	}
	for it := 0; it < 10; it++ { // Ruiz: by the largest entry of each row and column
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		clear(rmax)
		clear(cmax)
		for i := 0; i < m; i++ {
			for k := rs[i]; k < rs[i+1]; k++ {
				a := math.Abs(rv[k])
				rmax[i] = math.Max(rmax[i], a)
				cmax[rc[k]] = math.Max(cmax[rc[k]], a)
			}
		}
		scale()
	}
	// Pock–Chambolle, α = 1: by the sum of each row and column.
	clear(rmax)
	clear(cmax)
	for i := 0; i < m; i++ {
		for k := rs[i]; k < rs[i+1]; k++ {
			a := math.Abs(rv[k])
			rmax[i] += a
			cmax[rc[k]] += a
		}
	}
	scale()
	cv := make([]float64, len(rc))
	for k, pk := range cpos {
		cv[k] = rv[pk]
	}
	ct, qt, ut := make([]float64, n), make([]float64, m), make([]float64, n)
	for j := range ct {
		ct[j] = c[j] * d2[j]
		ut[j] = p.Upper[j] / d2[j]
	}
	for i := range qt {
		qt[i] = q[i] * d1[i]
	}
	Kx := func(x, out []float64) {
		for i := 0; i < m; i++ {
			s := 0.0
			for k := rs[i]; k < rs[i+1]; k++ {
				s += rv[k] * x[rc[k]]
			}
			out[i] = s
		}
	}
	KTy := func(y, out []float64) {
		for j := 0; j < n; j++ {
			s := 0.0
			for k := cs[j]; k < cs[j+1]; k++ {
				s += cv[k] * y[cr[k]]
			}
			out[j] = s
		}
	}
	// ‖K̃‖₂ by power iteration on K̃ᵀK̃.
	v, w, u := ones(n), make([]float64, m), make([]float64, n)
	norm := 1.0
	for it := 0; it < 60; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		nv := math.Sqrt(dot(v, v))
		if nv == 0 {
			break
		}
		for j := range v {
			v[j] /= nv
		}
		Kx(v, w)
		KTy(w, u)
		norm = math.Sqrt(math.Sqrt(dot(u, u)))
		v, u = u, v
	}
	eta := 0.9 / math.Max(norm, 1e-12)
	omega := 1.0
	if nc, nq := math.Sqrt(dot(ct, ct)), math.Sqrt(dot(qt, qt)); nc > 1e-10 && nq > 1e-10 {
		omega = nc / nq
	}

	x, y := make([]float64, n), make([]float64, m)
	xn, yn := make([]float64, n), make([]float64, m)
	xs, ys := make([]float64, n), make([]float64, m) // sums since restart
	x0, y0 := make([]float64, n), make([]float64, m) // last restart point
	kty, kx := make([]float64, n), make([]float64, m)
	xbar := make([]float64, n)
	xa, ya := make([]float64, n), make([]float64, m)
	// Scratch for the KKT error on the original scale.
	xo, yo, ro, ko := make([]float64, n), make([]float64, m), make([]float64, n), make([]float64, m)
	nq, nc := 0.0, 0.0
	for i := range q {
		nq += q[i] * q[i]
	}
	for j := range c {
		nc += c[j] * c[j]
	}
	nq, nc = math.Sqrt(nq), math.Sqrt(nc)
	// kkt is the relative KKT error of the scaled iterate (xx, yy) measured
	// on the original problem; done says it meets the tolerance.
	kkt := func(xx, yy []float64) (float64, bool) {
		for j := range xo {
			xo[j] = xx[j] * d2[j]
		}
		for i := range yo {
			yo[i] = yy[i] * d1[i]
		}
		// K x and Kᵀy on the original scale: K = D1⁻¹ K̃ D2⁻¹.
		Kx(xx, ko)
		pr := 0.0
		for i := range ko {
			r := q[i] - ko[i]/d1[i]
			if ineq[i] {
				r = math.Max(r, 0)
			}
			pr += r * r
		}
		KTy(yy, ro)
		dr, dual, pobj := 0.0, 0.0, 0.0
		for i := range q {
			dual += q[i] * yo[i]
		}
		for j := range ro {
			r := c[j] - ro[j]/d2[j]
			if math.IsInf(p.Upper[j], 1) {
				if r < 0 {
					dr += r * r
				}
			} else {
				dual += p.Upper[j] * math.Min(r, 0)
			}
			pobj += c[j] * xo[j]
		}
		pr, dr = math.Sqrt(pr), math.Sqrt(dr)
		gap := math.Abs(pobj - dual)
		e := math.Max(pr/(1+nq), math.Max(dr/(1+nc), gap/(1+math.Abs(pobj)+math.Abs(dual))))
		return e, pr <= tol*(1+nq) && dr <= tol*(1+nc) && gap <= tol*(1+math.Abs(pobj)+math.Abs(dual))
	}
	out := func(xx []float64, st Status, it int) *Solution {
		X := make([]float64, n)
		for j := range X {
			X[j] = math.Min(math.Max(xx[j]*d2[j], 0), p.Upper[j])
		}
		return &Solution{X: X, Value: p.Value(X), Status: st, Iterations: it}
	}
	restartKKT, _ := kkt(x, y)
	prevCand := math.Inf(1)
	count, sinceRestart := 0, 0
	KTy(y, kty)
	for it := 1; it <= maxIter; it++ {
		tau, sigma := eta/omega, eta*omega
		for j := range x {
			z := x[j] - tau*(ct[j]-kty[j])
			xn[j] = math.Min(math.Max(z, 0), ut[j])
			xbar[j] = 2*xn[j] - x[j]
		}
		Kx(xbar, kx)
		for i := range y {
			z := y[i] + sigma*(qt[i]-kx[i])
			if ineq[i] && z < 0 {
				z = 0
			}
			yn[i] = z
		}
		x, xn = xn, x
		y, yn = yn, y
		KTy(y, kty)
		for j := range x {
			xs[j] += x[j]
		}
		for i := range y {
			ys[i] += y[i]
		}
		count++
		sinceRestart++
		// Every iteration (two products with K, milliseconds on a large
		// LP): Ctrl-C stops within one.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if it%64 != 0 {
			continue
		}
		for j := range xa {
			xa[j] = xs[j] / float64(count)
		}
		for i := range ya {
			ya[i] = ys[i] / float64(count)
		}
		ec, okc := kkt(x, y)
		if okc {
			return out(x, Optimal, it), nil
		}
		ea, oka := kkt(xa, ya)
		if oka {
			return out(xa, Optimal, it), nil
		}
		candX, candY, cand := x, y, ec
		useAvg := ea < ec
		if useAvg {
			candX, candY, cand = xa, ya, ea
		}
		if cand <= 0.2*restartKKT || (cand <= 0.8*restartKKT && cand > prevCand) || sinceRestart >= int(0.36*float64(it)) {
			// Primal weight update from the movement since the last restart.
			dx, dy := 0.0, 0.0
			for j := range x0 {
				d := candX[j] - x0[j]
				dx += d * d
			}
			for i := range y0 {
				d := candY[i] - y0[i]
				dy += d * d
			}
			dx, dy = math.Sqrt(dx), math.Sqrt(dy)
			if dx > 1e-10 && dy > 1e-10 {
				omega = math.Exp(0.5*math.Log(dy/dx) + 0.5*math.Log(omega))
			}
			if useAvg {
				copy(x, xa)
				copy(y, ya)
			}
			copy(x0, x)
			copy(y0, y)
			KTy(y, kty)
			clear(xs)
			clear(ys)
			count, sinceRestart = 0, 0
			restartKKT, prevCand = cand, math.Inf(1)
		} else {
			prevCand = cand
		}
	}
	return out(x, Stopped, maxIter), nil
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}
