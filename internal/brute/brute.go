// Package brute computes exact answers on tiny factor graphs by enumerating
// every joint assignment. Tests use it as the independent truth.
package brute

import (
	"math"

	"github.com/lifted-dev/lifted/fg"
)

// Answer is the exact result of enumeration.
type Answer struct {
	LogZ      float64
	Marginals [][]float64
	MAP       []int32 // a most probable assignment (first found)
	MAPUnique bool    // whether no other assignment ties with it
	LogMAP    float64 // log of the unnormalised weight of MAP
}

// Solve enumerates all assignments of g consistent with ev (nil for none).
// It panics if the state space exceeds 1<<22: tests only.
func Solve(g *fg.Graph, ev fg.Evidence) Answer {
	n := g.NumVars()
	total := 1
	for _, c := range g.Card {
		total *= int(c)
		if total > 1<<22 {
			panic("brute: model too large")
		}
	}
	x := make([]int32, n)
	marg := make([][]float64, n)
	for v := range marg {
		marg[v] = make([]float64, g.Card[v])
	}
	var z float64
	best := -1.0
	ties := 0
	var mapx []int32
	// Accumulate weights relative to a scale to avoid overflow: use logs.
	logw := make([]float64, 0, total)
	assign := make([][]int32, 0, total)
	for k := 0; k < total; k++ {
		ok := true
		if ev != nil {
			for v := range x {
				if ev[v] >= 0 && x[v] != ev[v] {
					ok = false
					break
				}
			}
		}
		if ok {
			lw := 0.0
			for f := 0; f < g.NumFactors() && !math.IsInf(lw, -1); f++ {
				t := g.Table(f)
				i := 0
				for p, v := range g.Scope(f) {
					i = i*int(t.Dims[p]) + int(x[v])
				}
				lw += math.Log(t.Values[i])
			}
			if !math.IsInf(lw, -1) {
				logw = append(logw, lw)
				assign = append(assign, append([]int32(nil), x...))
			}
		}
		for v := n - 1; v >= 0; v-- {
			x[v]++
			if x[v] < g.Card[v] {
				break
			}
			x[v] = 0
		}
	}
	if len(logw) == 0 {
		return Answer{LogZ: math.Inf(-1), Marginals: marg}
	}
	m := math.Inf(-1)
	for _, l := range logw {
		m = math.Max(m, l)
	}
	for i, l := range logw {
		w := math.Exp(l - m)
		z += w
		for v, s := range assign[i] {
			marg[v][s] += w
		}
		switch {
		case mapx == nil || l > best+1e-12:
			best, mapx, ties = l, assign[i], 0
		case math.Abs(l-best) <= 1e-12:
			ties++
		}
	}
	for v := range marg {
		for s := range marg[v] {
			marg[v][s] /= z
		}
	}
	return Answer{LogZ: m + math.Log(z), Marginals: marg, MAP: mapx, MAPUnique: ties == 0, LogMAP: best}
}
