// Command approx measures approximate lifting (lifted infer --tolerance,
// issue 38) on the real MLN datasets and prints a markdown table: per
// dataset, ground BP, exact lifted BP and every setting of
// infer.Approximations, with the factor compression (ground factors /
// clusterfactors), the CPU seconds of colour passing plus BP (median of
// -runs runs, process CPU time), the CPU seconds of the error estimate,
// the estimated mean and largest |marginal − ground BP| (bp.EstimateError),
// the check (bp.CheckError as --tolerance runs it: BP on the exact
// compression from the lifted messages, the other fixed points from two
// leaning starts, each atom's basin; the warm run stopped at a tenth of
// -tolerance) and its CPU seconds (one run), whether it holds (at least
// the actual mean), and the actual ones against ground BP run with the
// same options to convergence; and which setting --tolerance picks.
// RESULTS.md holds a run.
//
//	go run ./bench/approx -data ../shared/data -runs 3
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/benchstat"
	"github.com/lifted-dev/lifted/lift"
)

type dataset struct {
	name, mln, db, query string
	damping              float64
	defaultWeight        bool
}

func main() {
	data := flag.String("data", "../shared/data", "shared data directory")
	runs := flag.Int("runs", 3, "runs per CPU measurement (the median is reported)")
	only := flag.String("only", "", "comma-separated dataset names to run (default all)")
	tol := flag.Float64("tolerance", 0.01, "the tolerance whose choice is reported")
	flag.Parse()
	d := filepath.Join(*data, "mln")
	sets := []dataset{
		{"UW-CSE", d + "/uwcse/tuffy-cse/prog.mln", d + "/uwcse/tuffy-cse/evidence.db", "advisedBy", 0.9, false},
		{"Cora", d + "/cora-class/tuffy-class/prog.mln", d + "/cora-class/tuffy-class/evidence.db", "category", 0.5, false},
		{"WebKB", d + "/webkb/forclift/webkb.mln", d + "/webkb/forclift/corn.db", "PageClassCourse", 0.5, true},
		{"IMDB", "examples/mln/datasets/imdb.mln", d + "/imdb/lsm/imdb1.db", "workedUnder", 0.5, false},
	}
	fmt.Println("| dataset | lifting | clusterfactors | compression | CPU s | iterations estimate CPU s | iterations estimate mean / max | check CPU s | checked mean (bp.CheckError) | holds | actual mean / max vs ground BP | BP iterations |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range sets {
		if *only != "" && !strings.Contains(","+*only+",", ","+s.name+",") {
			continue
		}
		if err := row(s, *runs, *tol); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", s.name, err)
		}
	}
}

// cpu returns the median CPU seconds of runs calls of f and f's last
// result.
func cpu[T any](runs int, f func() (T, error)) (T, float64, error) {
	var xs []float64
	var out T
	for i := 0; i < runs; i++ {
		t := benchstat.CPUSeconds()
		var err error
		out, err = f()
		if err != nil {
			return out, 0, err
		}
		xs = append(xs, benchstat.CPUSeconds()-t)
	}
	return out, benchstat.Median(xs), nil
}

func row(s dataset, runs int, tol float64) error {
	ctx := context.Background()
	m, err := engine.Load(s.mln, engine.LoadOptions{Evidence: []string{s.db}})
	if err != nil {
		return err
	}
	req := engine.Request{Query: []string{s.query}, Ground: engine.GroundOptions{Construction: engine.ConstructGround}}
	if s.defaultWeight {
		w := 1.0
		req.Ground.DefaultWeight = &w
	}
	g, ev, colour, clusters, err := m.GroundGraphClusters(ctx, req)
	if err != nil {
		return err
	}
	opt := bp.DefaultOptions()
	opt.Damping = s.damping
	opt.MaxIter = 5000
	alg := bp.New(opt)
	name := fmt.Sprintf("%s (damping %g)", s.name, s.damping)
	ref, secs, err := cpu(runs, func() (*infer.Answer, error) {
		return infer.Run(ctx, alg, g, ev, infer.Options{Lifted: false})
	})
	if err != nil {
		return err
	}
	conv := ""
	if !ref.Converged {
		conv = " (not converged)"
	}
	fmt.Printf("| %s | ground BP%s | %d | 1.0x | %.3g | | | | | | | %d |\n", name, conv, g.NumFactors(), secs, ref.Stats.BPIterations)
	ex, secs, err := cpu(runs, func() (*infer.Answer, error) {
		return infer.Run(ctx, alg, g, ev, infer.Options{Lifted: true, Colour: colour})
	})
	if err != nil {
		return err
	}
	mean, worst := errors(g, ev, ex, ref)
	fmt.Printf("| | exact lifting | %d | %.1fx | %.3g | | 0 | | | | %.2g / %.2g | %d |\n", ex.Stats.Clusterfactors,
		float64(g.NumFactors())/float64(ex.Stats.Clusterfactors), secs, mean, worst, ex.Stats.BPIterations)
	exact, _, err := infer.CompressWith(ctx, nil, g, ev, true, colour)
	if err != nil {
		return err
	}
	settings := slices.Clone(infer.Approximations)
	for i := range clusters {
		settings = append(settings, infer.Approximation{Fields: infer.ClusterFields, Cluster: &clusters[i]})
	}
	for _, a := range settings {
		type out struct {
			c   *lift.Compressed
			ans *infer.Answer
		}
		o, secs, err := cpu(runs, func() (out, error) {
			c, _, err := a.Compress(ctx, nil, g, ev, colour)
			if err != nil {
				return out{}, err
			}
			ans, err := alg.Run(ctx, c, infer.Query{})
			return out{c, ans}, err
		})
		if err != nil {
			fmt.Printf("| | %v | | | | | | | | | %v | |\n", a, err)
			continue
		}
		est, esecs, err := cpu(runs, func() (infer.ErrorEstimate, error) {
			return alg.EstimateError(ctx, o.ans, g, ev)
		})
		if err != nil {
			return err
		}
		se, ssecs, err := cpu(1, func() (bp.CheckEstimate, error) {
			return bp.CheckError(ctx, o.ans, g, ev, bp.CheckOptions{Damping: s.damping, Exact: exact, Tol: max(1e-4, tol/10)})
		})
		mean, worst := errors(g, ev, o.ans, ref)
		sampleText, holds := "", ""
		if err != nil {
			sampleText = err.Error()
		} else {
			census := fmt.Sprintf("sample %d of %d, s.e. %.2g", se.Sample, se.Population, se.SE)
			if se.Census {
				census = fmt.Sprintf("all %d", se.Sample)
			}
			sampleText = fmt.Sprintf("%.2g = warm %.2g + others %.2g + basin %.2g (%d sweeps, %d starts, %s atoms, %d flagged)", se.Hi, se.Warm, se.Others, se.Basin, se.Sweeps, se.Starts, census, se.Flagged)
			holds = "yes"
			if se.Hi < mean {
				holds = "**no**"
			}
		}
		estText := fmt.Sprintf("none (contraction %.2f)", est.Ratio)
		if est.OK {
			estText = fmt.Sprintf("%.2g / %.2g", est.Mean, est.Max)
		}
		conv := ""
		if !o.ans.Converged {
			conv = " (not converged)"
		}
		fmt.Printf("| | %v | %d | %.1fx | %.3g | %.3g | %s | %.3g | %s | %s | %.2g / %.2g | %d%s |\n", a, o.c.NumFactors(),
			float64(g.NumFactors())/float64(o.c.NumFactors()), secs, esecs, estText, ssecs, sampleText, holds, mean, worst, o.ans.Stats.BPIterations, conv)
	}
	pick, secs, err := cpu(runs, func() (*infer.Answer, error) {
		return infer.Run(ctx, alg, g, ev, infer.Options{Lifted: true, Colour: colour, Query: infer.Query{Tolerance: tol}, Clusters: clusters})
	})
	if err != nil {
		return err
	}
	mean, worst = errors(g, ev, pick, ref)
	chosen := pick.Stats.Approximation
	if chosen == "" {
		chosen = "exact lifting"
	}
	estText := fmt.Sprintf("%.2g / %.2g", *pick.Stats.ErrorEstimate, *pick.Stats.ErrorEstimateMax)
	sampleText := ""
	if iv := pick.Stats.ErrorInterval; len(iv) == 2 {
		sampleText, estText = fmt.Sprintf("%.2g (warm %.2g, others %.2g; %d atoms)", iv[1], iv[0], pick.Stats.ErrorOthers, pick.Stats.ErrorSample), ""
		if pick.Stats.ErrorSE != nil {
			sampleText += fmt.Sprintf(", s.e. %.2g", *pick.Stats.ErrorSE)
		}
	}
	holds := ""
	if pick.Stats.Approximation != "" {
		holds = "yes"
		if *pick.Stats.ErrorEstimate < mean {
			holds = "**no**"
		}
	}
	fmt.Printf("| | **--tolerance %g** picks %s | %d | %.1fx | %.3g (all tries) | | %s | | %s | %s | %.2g / %.2g | %d |\n", tol, chosen,
		pick.Stats.Clusterfactors, float64(g.NumFactors())/float64(pick.Stats.Clusterfactors), secs,
		estText, sampleText, holds, mean, worst, pick.Stats.BPIterations)
	return nil
}

// errors returns the mean and largest |marginal − reference| (largest
// state difference) over the unobserved variables.
func errors(g *fg.Graph, ev fg.Evidence, a, ref *infer.Answer) (float64, float64) {
	var sum, worst float64
	n := 0
	for v := 0; v < g.NumVars(); v++ {
		if ev != nil && ev[v] >= 0 {
			continue
		}
		d := 0.0
		for x, p := range a.Marginal(v) {
			d = max(d, math.Abs(p-ref.Marginal(v)[x]))
		}
		sum += d
		worst = max(worst, d)
		n++
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), worst
}
