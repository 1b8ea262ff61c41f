// Command steps prints, per step of every trial of one BPCount or LBPCount
// run, the open variables, the chosen variable's clusternode size, the BP
// run's iterations, attempts and convergence, and the ground and lifted
// edges: where the trial's BP work goes (issue 26, fifth pass).
//
//	go run ./experiments/lbpcount/steps -seed 1 [-bpcount] [-slack 0.2]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/lifted-dev/lifted/count"
	"github.com/lifted-dev/lifted/format/dimacs"
)

func main() {
	def := count.DefaultBPCountOptions()
	path := flag.String("cnf", "../shared/data/cnf/2bitmax_6.cnf", "DIMACS file")
	ground := flag.Bool("bpcount", false, "BPCount instead of LBPCount")
	o := def
	flag.Uint64Var(&o.Seed, "seed", 1, "seed")
	flag.Float64Var(&o.ChoiceSlack, "slack", def.ChoiceSlack, "ChoiceSlack (LBPCount)")
	flag.Parse()
	f, err := os.Open(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c, err := dimacs.Read(f, *path)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	o.Lifted = !*ground
	r, err := count.BPCount(context.Background(), c, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("trial step open var nodesize marginal balance prob forced reused iters attempts conv edgesG edgesL clusternodes msgsG msgsL")
	for i, t := range r.Trials {
		for k, s := range t.Steps {
			fmt.Printf("%d %d %d %d %d %.3f %.3f %.3f %v %v %d %d %v %d %d %d %d %d\n", i, k, s.Open, s.Var, s.VarNodeSize, s.Marginal, s.Balance, s.Prob,
				s.Forced, s.Reused, s.Iterations, s.Attempts, s.Converged, s.EdgesGround, s.EdgesLifted, s.Clusternodes, s.MessagesGround, s.MessagesLifted)
		}
		fmt.Printf("# trial %d: estimate %.2f, probed %d, residual %d vars\n", i, t.EstimateLog10, t.Probed, t.ResidualVars)
	}
	fmt.Printf("# bound %.2f steps %d msgsG %d msgsL %d\n", r.LowerBoundLog10, r.Steps, r.MessagesGround, r.MessagesLifted)
}
