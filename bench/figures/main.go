// Command figures measures the core engine's figures side by side in one run
// and prints them as markdown tables: per shared UAI/fg model, ground vs
// lifted BP (seconds, messages, ratios); colour passing on square grids;
// ground BP seconds per iteration on selected models. Every time is the
// median of -runs runs.
//
//	go run ./bench/figures -data ../shared/data -runs 5
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/libdai"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

func main() {
	data := flag.String("data", "../shared/data", "shared data directory")
	runs := flag.Int("runs", 3, "runs per measurement (the median is reported)")
	maxGrid := flag.Int("max-grid", 500, "largest grid side for colour passing")
	only := flag.String("only", "models,grids,periter", "which tables")
	libdaiBin := flag.String("libdai", "", "optional: a program that runs libDAI BP, called as PROG FILE.fg ITERATIONS and printing seconds per iteration first; adds a side-by-side column")
	flag.Parse()
	if strings.Contains(*only, "models") {
		models(*data, *runs)
	}
	if strings.Contains(*only, "grids") {
		grids(*runs, *maxGrid)
	}
	if strings.Contains(*only, "periter") {
		perIteration(*data, *runs, *libdaiBin)
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

type model struct {
	name string
	g    *fg.Graph
	ev   fg.Evidence
}

func loadModels(data string) []model {
	var ms []model
	uais, _ := filepath.Glob(filepath.Join(data, "uai", "*.uai"))
	for _, p := range uais {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		m, err := uai.Read(f, p)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			continue
		}
		var ev fg.Evidence
		if ef, err := os.Open(p + ".evid"); err == nil {
			ev, err = uai.ReadEvidence(ef, p+".evid", m.Graph)
			ef.Close()
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				continue
			}
		}
		ms = append(ms, model{filepath.Base(p), m.Graph, ev})
	}
	fgs, _ := filepath.Glob(filepath.Join(data, "fg", "*.fg"))
	for _, p := range fgs {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		m, err := libdai.Read(f, p)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			continue
		}
		ms = append(ms, model{filepath.Base(p), m.Graph, nil})
	}
	return ms
}

// measure runs ground or lifted BP runs times and returns the result of the
// last run with the median seconds.
func measure(m model, lifted bool, runs int) (*infer.Answer, float64, error) {
	opt := infer.Options{Lifted: lifted}
	bo := bp.DefaultOptions()
	if strings.HasSuffix(m.name, ".cnf.uai") || strings.HasSuffix(m.name, ".cnf.fg") {
		opt.Colour.Mode = lift.CNF
		bo.Damping = 0.5 // clause tables need damping (as in BPCount)
	}
	var secs []float64
	var res *infer.Answer
	for i := 0; i < runs; i++ {
		t := time.Now()
		r, err := infer.Run(context.Background(), bp.New(bo), m.g, m.ev, opt)
		if err != nil {
			return nil, 0, err
		}
		secs = append(secs, time.Since(t).Seconds())
		res = r
	}
	return res, median(secs), nil
}

func models(data string, runs int) {
	ms := loadModels(data)
	if len(ms) == 0 {
		fmt.Printf("no models under %s\n\n", data)
		return
	}
	fmt.Printf("## Ground vs lifted BP per shared model (flooding, tol 1e-8, ≤ 1000 iterations; median of %d runs)\n\n", runs)
	fmt.Println("| model | variables | factors | clusternodes | clusterfactors | ground s | lifted s | time ratio lifted/ground | ground messages | lifted messages | message ratio | iterations | converged |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, m := range ms {
		gr, gs, err := measure(m, false, runs)
		if err != nil {
			fmt.Printf("| %s | %d | %d | | | error: %v |\n", m.name, m.g.NumVars(), m.g.NumFactors(), err)
			continue
		}
		lr, ls, err := measure(m, true, runs)
		if err != nil {
			fmt.Printf("| %s | error: %v |\n", m.name, err)
			continue
		}
		fmt.Printf("| %s | %d | %d | %d | %d | %.4f | %.4f | %.3f | %d | %d | %.4f | %d | %v |\n",
			m.name, m.g.NumVars(), m.g.NumFactors(), lr.Stats.Clusternodes, lr.Stats.Clusterfactors,
			gs, ls, ls/gs, gr.Stats.Messages, lr.Stats.Messages,
			float64(lr.Stats.Messages)/float64(gr.Stats.Messages), gr.Stats.BPIterations, gr.Stats.Converged)
	}
	fmt.Println()
}

func grids(runs, maxSide int) {
	fmt.Printf("## Colour passing on n×n grids, identical potentials, one evidence node in a corner (median of %d runs)\n\n", runs)
	fmt.Println("| grid | variables | edges | rounds | clusternodes | seconds | µs per edge per round |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, n := range []int{5, 10, 25, 50, 100, 250, 500} {
		if n > maxSide {
			break
		}
		g := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), n)
		ev := fg.NoEvidence(n * n)
		ev[0] = 1
		var secs []float64
		var c *lift.Compressed
		var st lift.Stats
		r := runs
		if n >= 250 {
			r = min(runs, 3)
		}
		for i := 0; i < r; i++ {
			var err error
			c, st, err = lift.Compress(context.Background(), g, ev, lift.Options{})
			if err != nil {
				panic(err)
			}
			secs = append(secs, st.Seconds)
		}
		s := median(secs)
		fmt.Printf("| %dx%d | %d | %d | %d | %d | %.4f | %.3f |\n", n, n, g.NumVars(), g.NumEdges(), st.Iterations,
			c.NumNodes(), s, s/float64(st.Iterations)/float64(g.NumEdges())*1e6)
	}
	fmt.Println()
}

func perIteration(data string, runs int, libdaiBin string) {
	fmt.Printf("## Ground BP seconds per iteration (flooding, 100 iterations, no evidence, no convergence test; median of %d runs)\n\n", runs)
	fmt.Println("| model | edges | ours s/iteration | ours messages/s | libDAI s/iteration | libDAI/ours |")
	fmt.Println("|---|---|---|---|---|---|")
	all := loadModels(data)
	for _, name := range []string{"Promedus_11.uai", "relational_4.uai", "linkage_11.uai"} {
		var m *model
		for i := range all {
			if all[i].name == name {
				m = &all[i]
			}
		}
		if m == nil {
			continue
		}
		c, err := lift.Ground(m.g, nil)
		if err != nil {
			panic(err)
		}
		var secs, dai []float64
		for i := 0; i < runs; i++ {
			res, err := bp.Run(context.Background(), c, bp.Options{Tol: 0, MaxIter: 100})
			if err != nil {
				fmt.Printf("| %s | error: %v |\n", name, err)
				break
			}
			secs = append(secs, res.Seconds/float64(res.Iterations))
			if libdaiBin != "" {
				if s, err := runLibDAI(libdaiBin, m.g, 100); err == nil {
					dai = append(dai, s)
				} else {
					fmt.Fprintln(os.Stderr, "libDAI:", err)
				}
			}
		}
		if len(secs) == 0 {
			continue
		}
		s := median(secs)
		daiCol, ratio := "", ""
		if len(dai) > 0 {
			d := median(dai)
			daiCol, ratio = fmt.Sprintf("%.6f", d), fmt.Sprintf("%.2f", d/s)
		}
		fmt.Printf("| %s | %d | %.6f | %.3g | %s | %s |\n", name, m.g.NumEdges(), s, float64(2*m.g.NumEdges())/s, daiCol, ratio)
	}
	fmt.Println()
}

// runLibDAI writes g as a libDAI file and times the external program on it.
func runLibDAI(bin string, g *fg.Graph, iters int) (float64, error) {
	f, err := os.CreateTemp("", "figures-*.fg")
	if err != nil {
		return 0, err
	}
	defer os.Remove(f.Name())
	if err := libdai.Write(f, &libdai.Model{Graph: g}); err != nil {
		return 0, err
	}
	f.Close()
	out, err := exec.Command(bin, f.Name(), fmt.Sprint(iters)).Output()
	if err != nil {
		return 0, err
	}
	var s float64
	_, err = fmt.Sscan(string(out), &s)
	return s, err
}
