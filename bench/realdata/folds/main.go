// Command folds evaluates discriminative weight learning (learn.Discriminative,
// "lifted learn --method dn") on UW-CSE's five areas, leave one area out:
// learn on four, then predict the held-out area's Advisedby atoms given all
// its other atoms, with MC-SAT marginals on the ground network (package
// mcmc). It prints a markdown table: per held-out area the number of query
// atoms and true ones, the conditional log-likelihood (mean log P of the
// true value, probabilities clipped to [1e-4, 1-1e-4] as in Lowd and
// Domingos 2007), the area under the precision-recall curve (Davis and
// Goadrich's interpolation; both from package score), the same two for the all-weights-zero model (P = 1/2, the
// baseline), and the wall time of learning and of inference.
//
//	go run ./bench/realdata/folds -data /work/shared/data -iter 30
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"syscall"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer/mcmc"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/score"
)

func main() {
	data := flag.String("data", "/work/shared/data", "shared data directory")
	model := flag.String("mln", "bench/realdata/uwcse-folds.mln", "the MLN (weights to learn)")
	iter := flag.Int("iter", 40, "diagonal Newton iterations at most")
	samples := flag.Int("samples", 0, "MC-SAT samples per learning iteration and database (0: the learner's default, 50)")
	testSamples := flag.Int("test-samples", 2000, "MC-SAT samples for the test marginals")
	seed := flag.Uint64("seed", 1, "seed")
	verbose := flag.Bool("v", false, "print every learning iteration on stderr")
	only := flag.Int("fold", 0, "run only this held-out area (1..5); 0: all")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	dir := filepath.Join(*data, "mln/uwcse/forclift")
	var files []string
	for k := 1; k <= 5; k++ {
		files = append(files, filepath.Join(dir, fmt.Sprintf("uwcse_fold%d.db", k)))
	}
	fmt.Println("| held-out area | query atoms | true | CLL | AUC-PR | CLL (w=0) | AUC-PR (w=0) | iterations | converged | learn wall s | learn CPU s | infer wall s | infer CPU s |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	var sc, sa, sc0, sa0 float64
	nfold := 0
	for k := range files {
		if *only != 0 && k+1 != *only {
			continue
		}
		m, err := mlnfile.ParseFile(*model)
		if err != nil {
			fatal(err)
		}
		var train []*mln.DB
		var names []string
		var test *mln.DB
		for i, f := range files {
			db, err := mlnfile.ReadDBFiles(m, f)
			if err != nil {
				fatal(err)
			}
			if i == k {
				test = db
			} else {
				train = append(train, db)
				names = append(names, filepath.Base(f))
			}
		}
		t0, c0 := time.Now(), cpu()
		res, err := learn.Discriminative(context.Background(), m, train, names, learn.DiscOptions{NE: []string{"Advisedby"}, MaxIter: *iter, Samples: *samples, Seed: *seed,
			Progress: func(it int, step float64) {
				if *verbose {
					fmt.Fprintf(os.Stderr, "area %d: iteration %d, largest Newton step not converged %.3g (%.1f s)\n", k+1, it, step, time.Since(t0).Seconds())
				}
			}})
		if err != nil {
			fatal(err)
		}
		tl, cl := time.Since(t0).Seconds(), cpu()-c0
		t1, c1 := time.Now(), cpu()
		probs, labels, err := predict(m, res.Weights, test, *testSamples, *seed)
		if err != nil {
			fatal(err)
		}
		ti, ci := time.Since(t1).Seconds(), cpu()-c1
		half := make([]float64, len(probs))
		for i := range half {
			half[i] = 0.5
		}
		c, a := score.CLL(probs, labels, score.DefaultClip), score.AUCPR(probs, labels)
		cz, az := score.CLL(half, labels, score.DefaultClip), score.AUCPR(half, labels)
		sc, sa, sc0, sa0 = sc+c, sa+a, sc0+cz, sa0+az
		npos := 0
		for _, l := range labels {
			if l {
				npos++
			}
		}
		conv := "no"
		if res.Converged {
			conv = "yes"
		}
		fmt.Fprintf(os.Stderr, "area %d: %s\n", k+1, res.Status)
		fmt.Printf("| %d | %d | %d | %.4f | %.3f | %.4f | %.3f | %d | %s | %.1f | %.1f | %.1f | %.1f |\n", k+1, len(labels), npos, c, a, cz, az, res.Iterations, conv, tl, cl, ti, ci)
		nfold++
	}
	n := float64(nfold)
	fmt.Printf("| mean | | | %.4f | %.3f | %.4f | %.3f | | | | | | |\n", sc/n, sa/n, sc0/n, sa0/n)
}

// predict returns P(Advisedby(a,b)) for every pair of the test area's
// persons, and the true values, under weights w.
func predict(m *mln.MLN, w []float64, test *mln.DB, samples int, seed uint64) ([]float64, []bool, error) {
	for j, f := range m.Formulas {
		if !f.Hard {
			f.Weight, f.HasWeight = w[j], true
		}
	}
	ev, err := learn.WithoutPredicates(m, test, []string{"Advisedby"})
	if err != nil {
		return nil, nil, err
	}
	gr, err := ground.Ground(context.Background(), m, ev, ground.Options{Query: []string{"Advisedby"}, MaxGround: -1})
	if err != nil {
		return nil, nil, err
	}
	r, err := mcmc.Sample(context.Background(), gr.Graph, nil, mcmc.Config{Kernel: mcmc.MCSAT, Samples: samples, BurnIn: samples / 10, Chains: 2, Seed: seed})
	if err != nil {
		return nil, nil, err
	}
	pred := m.PredIndex("Advisedby")
	n := len(ev.Domain("person"))
	var probs []float64
	var labels []bool
	for a := range n {
		for b := range n {
			args := []int{a, b}
			v, t := gr.Var(pred, args)
			p := 0.5
			switch {
			case v >= 0:
				p = r.Mean[r.Off[v]+1]
			case t == mln.True:
				p = 1
			case t == mln.False:
				p = 0
			}
			tv, ok := test.Lookup(pred, args)
			probs = append(probs, p)
			labels = append(labels, ok && tv == mln.True)
		}
	}
	return probs, labels, nil
}

// cpu returns the process's CPU time (user and system) in seconds.
func cpu() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "folds:", err)
	os.Exit(1)
}
