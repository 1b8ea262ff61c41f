package lbg_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/lbg"
)

// The paper's R, S, T example: Algorithm 2 builds the paper's clustering
// {R,S}, {T}, both lifted; a sweep costs O(n²) for the n³ ground formulas. Averaging the
// conditionals a sweep reports estimates the marginals.
func Example() {
	m, err := mlnfile.Parse("rst.mln", []byte(`t = {A, B, C, D, E, F, G, H}
R(t, t)
S(t, t)
T(t, t)
0.7 R(x, y) v S(y, z)
-0.2 S(y, z) v T(z, u)
`))
	if err != nil {
		panic(err)
	}
	w := []float64{0.7, -0.2}
	md, err := lbg.Compile(context.Background(), m, nil, nil, w, lbg.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(md.Describe())
	rng := rand.New(rand.NewPCG(1, 1))
	ch, err := md.NewChain(rng)
	if err != nil {
		panic(err)
	}
	cond := make([]float64, md.NumAtoms())
	sum := 0.0
	i, _ := md.Index("S(A,B)")
	for step := range 2000 {
		if err := ch.Sweep(rng, cond); err != nil {
			panic(err)
		}
		if step >= 200 {
			sum += cond[i]
		}
	}
	fmt.Printf("P(S(A,B)) ≈ %.2f\n", sum/1800)
	// Output:
	// {R,S} lifted; {T} lifted
	// P(S(A,B)) ≈ 0.26
}
