// Command relift times dynamic.Relifter from scratch against incremental
// recolouring (lift.Recolourer, branch colourcore) along a filtering run.
// Run it from the repository root (see ../RESULTS.md):
//
//	go run ./experiments/dynamic/relift
package main

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/dynamic"
	mlnfile "github.com/lifted-dev/lifted/format/mln"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/mln"
)

const weights = `
-1.5 Smokes(x, 0)
-2.5 Cancer(x, 0)
-1 Friends(x, y, 0)
1.5 Smokes(x, t) => Cancer(x, t)
1.1 Friends(x, y, t) ^ Smokes(x, t) => Smokes(y, t)
2 Smokes(x, t) => Smokes(x, succ(t))
2 Friends(x, y, t) => Friends(x, y, succ(t))
`

func model(people []string, steps int) string {
	return fmt.Sprintf("person = {%s}\ntime = {0,...,%d}\nSmokes(person, time)\nCancer(person, time)\nFriends(person, person, time)\n%s",
		strings.Join(people, ", "), steps-1, weights)
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("P%d", i)
	}
	return out
}

// evidence observes a fraction r of the people, as in the paper: for each
// observed person a random step, whether they smoke, and 5 of their friends.
func evidence(rng *rand.Rand, people []string, steps int, r float64) string {
	var b strings.Builder
	n := int(r*float64(len(people)) + 0.5)
	for _, i := range rng.Perm(len(people))[:n] {
		p := people[i]
		t := rng.IntN(steps)
		if rng.IntN(2) == 0 {
			b.WriteString("!")
		}
		fmt.Fprintf(&b, "Smokes(%s, %d)\n", p, t)
		k := 0
		for _, j := range rng.Perm(len(people)) {
			if j == i || k == 5 {
				continue
			}
			fmt.Fprintf(&b, "Friends(%s, %s, %d)\n", p, people[j], t)
			k++
		}
	}
	return b.String()
}

func load(src, db string) *dynamic.Model {
	m, err := mlnfile.Parse("social.mln", []byte(src))
	if err != nil {
		log.Fatal(err)
	}
	read := func(s *mln.MLN) (*mln.DB, error) { return mlnfile.ReadDB(strings.NewReader(db), "ev.db", s) }
	md, err := dynamic.Unroll(context.Background(), m, read, dynamic.Options{Horizon: -1, Query: []string{"Cancer"}})
	if err != nil {
		log.Fatal(err)
	}
	return md
}

func median(x []float64) float64 { y := slices.Clone(x); slices.Sort(y); return y[len(y)/2] }

func main() {
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
			a, b := median(sec[0][t]), median(sec[1][t])
			ts, ti = ts+a, ti+b
			fmt.Printf("| %d | %d | %d | %.4f | %.4f | %.3f |\n", t, len(md.Evidence[t]), nodes[0][t], a, b, b/a)
		}
		fmt.Printf("| all | | | %.4f | %.4f | %.3f |\n", ts, ti, ti/ts)
	}
}
