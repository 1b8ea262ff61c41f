package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"time"

	"github.com/lifted-dev/lifted/dynamic"
	"github.com/lifted-dev/lifted/internal/benchstat"
	"github.com/lifted-dev/lifted/lift"
)

// relift times dynamic.Relifter from scratch against incremental
// recolouring (lift.Recolourer) along a filtering run: 20 and 50 people,
// 10 steps, r = 0.5, medians of 11 (-parts relift).
func relift() {
	ctx := context.Background()
	for _, n := range []int{20, 50} {
		people := names(n)
		rng := rand.New(rand.NewPCG(3, 3))
		md := load(model(people, 10), evidence(rng, people, 10, 0.5))
		fmt.Printf("\n%d people, 10 steps, r = 0.5: %d ground variables\n\n", n, md.Grounding.Graph.NumVars())
		fmt.Println("| step | clamped | clusternodes | from scratch s | incremental s | incremental/scratch |")
		fmt.Println("|---|---|---|---|---|---|")
		T := md.Horizon + 1
		sec := [2][][]float64{make([][]float64, T), make([][]float64, T)}
		nodes := [2][]int{make([]int, T), make([]int, T)}
		for rep := 0; rep < 11; rep++ {
			for mode := 0; mode < 2; mode++ {
				rl := dynamic.NewRelifter(md.Grounding.Graph, lift.Options{})
				rl.Incremental = mode == 1
				for t := 0; t < T; t++ {
					var changed []int32
					for _, o := range md.Evidence[t] {
						changed = append(changed, o.Var)
					}
					ev := md.EvidenceUpTo(t)
					start := time.Now()
					c, err := rl.Lift(ctx, ev, changed)
					if err != nil {
						log.Fatal(err)
					}
					sec[mode][t] = append(sec[mode][t], time.Since(start).Seconds())
					nodes[mode][t] = c.NumNodes()
				}
			}
		}
		var ts, ti float64
		for t := 0; t < T; t++ {
			if nodes[0][t] != nodes[1][t] {
				log.Fatalf("step %d: %d vs %d clusternodes", t, nodes[0][t], nodes[1][t])
			}
			a, b := benchstat.Median(sec[0][t]), benchstat.Median(sec[1][t])
			ts, ti = ts+a, ti+b
			fmt.Printf("| %d | %d | %d | %.4f | %.4f | %.3f |\n", t, len(md.Evidence[t]), nodes[0][t], a, b, b/a)
		}
		fmt.Printf("| all | | | %.4f | %.4f | %.3f |\n", ts, ti, ti/ts)
	}
}
