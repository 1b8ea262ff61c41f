package main

import (
	"context"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/lifted-dev/lifted/lbg"
)

// sweepEvidenceFigure is LBG's cost per sweep on the R,S,T MLN with 10% of
// the ground atoms as random evidence (seeded), the clusters {R,S}
// (lifted) and {T} beside one atom per cluster: evidence on R and S makes
// the sub-problems of {R,S} differ, so each is computed (and Algorithm 2,
// whose cost model counts them, keeps one atom per cluster).
func sweepEvidenceFigure() {
	ns := []int{16, 24, 32, 48, 64, 96, 128}
	fmt.Println("| n | evidence atoms | LBG {R,S},{T} CPU s/sweep | LBG {R},{S},{T} CPU s/sweep | ratio |")
	fmt.Println("|---|---|---|---|---|")
	var lnN, lnM, lnS []float64
	for _, n := range ns {
		r := rand.New(rand.NewPCG(uint64(n), 5))
		var db strings.Builder
		ev := 0
		for _, p := range []string{"R", "S", "T"} {
			for i := range n {
				for j := range n {
					if r.IntN(10) == 0 {
						fmt.Fprintf(&db, "%s%s(C%d, C%d)\n", []string{"", "!"}[r.IntN(2)], p, i, j)
						ev++
					}
				}
			}
		}
		m, d, w := parse(fmt.Sprintf(rstSrc, domain(n)), db.String())
		var tm, ts []float64
		for rep := range 3 {
			rng := rand.New(rand.NewPCG(uint64(rep), 2))
			for _, opt := range []lbg.Options{{Clusters: [][]string{{"R", "S"}}}, {NoMerge: true}} {
				md, err := lbg.Compile(context.Background(), m, d, nil, w, opt)
				if err != nil {
					log.Fatal(err)
				}
				if rep == 0 && n == ns[0] {
					fmt.Fprintln(os.Stderr, "LBG clusters:", md.Describe())
					if a2, err := lbg.Compile(context.Background(), m, d, nil, w, lbg.Options{}); err == nil {
						fmt.Fprintln(os.Stderr, "Algorithm 2's clusters:", a2.Describe())
					}
				}
				x := lbgSweep(md, rng)
				if opt.NoMerge {
					ts = append(ts, x)
				} else {
					tm = append(tm, x)
				}
			}
		}
		a, b := median(tm), median(ts)
		fmt.Printf("| %d | %d | %.3g | %.3g | %.2f |\n", n, ev, a, b, a/b)
		lnN = append(lnN, math.Log(float64(n)))
		lnM = append(lnM, math.Log(a))
		lnS = append(lnS, math.Log(b))
	}
	_, em := stat.LinearRegression(lnN, lnM, nil, false)
	_, es := stat.LinearRegression(lnN, lnS, nil, false)
	fmt.Printf("\nfitted exponents (n = %d..%d): LBG {R,S},{T} %.2f, LBG {R},{S},{T} %.2f\n", ns[0], ns[len(ns)-1], em, es)
}
