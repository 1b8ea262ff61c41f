package jtree_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/jtree"
)

// blockConditional enumerates the joint states of the block vars given
// the rest of x (mixed radix, vars[0] slowest): their log weights under
// every factor of g.
func blockConditional(g *fg.Graph, vars []int32, x []int32) []float64 {
	y := append([]int32(nil), x...)
	ns := 1
	for _, v := range vars {
		ns *= int(g.Card[v])
	}
	lw := make([]float64, ns)
	for j := range ns {
		r := j
		for i := len(vars) - 1; i >= 0; i-- {
			c := int(g.Card[vars[i]])
			y[vars[i]] = int32(r % c)
			r /= c
		}
		lw[j] = logScore(g, y)
	}
	return lw
}

// TestBlockDrawsExactConditional: on random graphs (zeros, 2–4 states,
// factors of arity up to 4, entries up to e^±400 in the second round)
// and random blocks, Draw's normaliser is the enumerated one (less the
// factors without a block variable) and its draws follow the enumerated
// conditional: a chi-square test per model at level 1e-4, and no draw of
// a state of weight zero. A block with no positive state is ErrNoWorld
// and leaves x as it was.
func TestBlockDrawsExactConditional(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	const draws = 3000
	tested, refused := 0, 0
	for it := range 120 {
		scale := 2.0
		if it >= 90 {
			scale = 400
		}
		g := randomGraph(r, scale)
		n := g.NumVars()
		perm := r.Perm(n)
		vars := make([]int32, 1+r.IntN(n))
		for i := range vars {
			vars[i] = int32(perm[i])
		}
		x := make([]int32, n)
		for v := range x {
			x[v] = int32(r.IntN(int(g.Card[v])))
		}
		b, err := jtree.NewBlock(context.Background(), g, vars, 0)
		if err != nil {
			t.Fatal(err)
		}
		lw := blockConditional(g, b.Vars(), x)
		mx := math.Inf(-1)
		for _, l := range lw {
			mx = max(mx, l)
		}
		d := b.Drawer()
		before := append([]int32(nil), x...)
		logZ, err := d.Draw(rand.New(rand.NewPCG(uint64(it), 1)), x)
		if math.IsInf(mx, -1) {
			// Either the block's own factors are zero at every state, or
			// a factor without a block variable zeroes every world.
			if err == nil {
				y := append([]int32(nil), before...)
				copy(y, x)
				for _, v := range b.Vars() {
					y[v] = x[v]
				}
				if !math.IsInf(outsideScore(g, b.Vars(), before), -1) {
					t.Fatalf("model %d: a draw from a block with no positive state", it)
				}
			} else if !errors.Is(err, jtree.ErrNoWorld) {
				t.Fatalf("model %d: %v", it, err)
			}
			if err != nil && !equal(x, before) {
				t.Fatalf("model %d: a refused draw changed x", it)
			}
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("model %d: %v", it, err)
		}
		out := outsideScore(g, b.Vars(), before)
		total := 0.0
		for _, l := range lw {
			total += math.Exp(l - mx)
		}
		want := mx + math.Log(total) - out
		if math.Abs(logZ-want) > 1e-9*max(1, math.Abs(want)) {
			t.Fatalf("model %d: log normaliser %v, enumerated %v", it, logZ, want)
		}
		// chi-square of draws against the conditional
		count := make([]float64, len(lw))
		rng := rand.New(rand.NewPCG(uint64(it), 2))
		for range draws {
			if _, err := d.Draw(rng, x); err != nil {
				t.Fatal(err)
			}
			j := 0
			for _, v := range b.Vars() {
				j = j*int(g.Card[v]) + int(x[v])
			}
			count[j]++
			for v := range x {
				if !inBlock(b.Vars(), int32(v)) && x[v] != before[v] {
					t.Fatalf("model %d: Draw changed variable %d outside the block", it, v)
				}
			}
		}
		chi, df := 0.0, -1
		for j, l := range lw {
			p := math.Exp(l-mx) / total
			if p == 0 {
				if count[j] > 0 {
					t.Fatalf("model %d: drew a state of weight zero", it)
				}
				continue
			}
			df++
			e := p * draws
			chi += (count[j] - e) * (count[j] - e) / e
		}
		if df > 0 && chi > chiQuantile(df, 3.719) { // z = 3.719: upper 1e-4
			t.Errorf("model %d: chi-square %.1f on %d degrees of freedom", it, chi, df)
		}
		tested++
	}
	if tested < 60 || refused == 0 {
		t.Fatalf("only %d models tested, %d refused", tested, refused)
	}
}

// chiQuantile is the Wilson–Hilferty approximation of the chi-square
// quantile with df degrees of freedom at the normal quantile z.
func chiQuantile(df int, z float64) float64 {
	k := float64(df)
	a := 2 / (9 * k)
	c := 1 - a + z*math.Sqrt(a)
	return k * c * c * c
}

// outsideScore is the log score of the factors of x with no block variable.
func outsideScore(g *fg.Graph, vars []int32, x []int32) float64 {
	s := 0.0
	for f := range g.NumFactors() {
		touch := false
		for _, v := range g.Scope(f) {
			touch = touch || inBlock(vars, v)
		}
		if touch {
			continue
		}
		tb := g.Table(f)
		k := 0
		for p, v := range g.Scope(f) {
			k = k*int(tb.Dims[p]) + int(x[v])
		}
		s += math.Log(tb.Values[k])
	}
	return s
}

func inBlock(vars []int32, v int32) bool {
	for _, u := range vars {
		if u == v {
			return true
		}
	}
	return false
}

func equal(a, b []int32) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// TestBlockTooLarge: a block whose junction tree's largest table exceeds
// the limit is refused with a *TooLargeError.
func TestBlockTooLarge(t *testing.T) {
	b := fg.NewBuilder()
	for range 6 {
		b.AddVar(2)
	}
	for i := range int32(6) {
		for j := i + 1; j < 6; j++ {
			mustAdd(t, b, []int32{i, j}, []float64{1, 2, 2, 1})
		}
	}
	g := b.Build()
	all := []int32{0, 1, 2, 3, 4, 5}
	var tl *jtree.TooLargeError
	if _, err := jtree.NewBlock(context.Background(), g, all, 32); !errors.As(err, &tl) {
		t.Fatalf("a 6-clique (64 entries) under a limit of 32: %v", err)
	}
	if _, err := jtree.NewBlock(context.Background(), g, all, 64); err != nil {
		t.Fatal(err)
	}
	if _, err := jtree.NewBlock(context.Background(), g, []int32{0, 0}, 0); err == nil {
		t.Fatal("a variable listed twice is accepted")
	}
}
