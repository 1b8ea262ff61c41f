// Command calibration measures whether the samplers' "mixed" label and
// standard errors can be trusted (package internal/calib): for each model
// family and sampler, many seeds against enumeration, a table of runs,
// runs labelled mixed, of them within their stated error, and the largest
// error; with -race-to, tempering against gibbs on the frustrated 4×4
// grids: the time until the largest error is below a target.
// See experiments/sampling/CALIBRATION.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/calib"
)

func main() {
	families := flag.String("families", "grid3,grid4,mln", "model families: grid3, grid4 (frustrated Ising grids), mln (random MLNs with hard formulas)")
	methods := flag.String("methods", "gibbs,mcsat,bgibbs,tempering,lbg", "samplers")
	models := flag.Int("models", 5, "models per family")
	seeds := flag.Int("seeds", 3, "seeds per model and sampler")
	samples := flag.Int("samples", 0, "--samples of every run (0: the default)")
	props := flag.String("props", "", "extra properties, e.g. chains=4 (applied where the method takes them)")
	race := flag.Float64("race-to", 0, "instead of the table: time until the largest error < this, tempering vs gibbs on the 4x4 grids")
	flag.Parse()
	if *race > 0 {
		raceTo(*race, *models, *seeds)
		return
	}
	ctx := context.Background()
	var all []calib.Model
	for _, f := range strings.Split(*families, ",") {
		switch f {
		case "grid3":
			all = append(all, calib.Grids(1, 3, *models)...)
		case "grid4":
			all = append(all, calib.Grids(1, 4, *models)...)
		case "mln":
			ms, err := calib.MLNs(1, *models)
			if err != nil {
				log.Fatal(err)
			}
			all = append(all, ms...)
		default:
			log.Fatalf("unknown family %q", f)
		}
	}
	fmt.Printf("| family | sampler | runs | errors | labelled mixed | of them all within %d SE + 1/N | (run, marginal) pairs within | max error (mixed runs) | max error (all runs) |\n|---|---|---|---|---|---|---|---|---|\n", calib.K)
	for _, fam := range uniq(all) {
		for _, meth := range strings.Split(*methods, ",") {
			p := properties(meth, *samples, *props)
			var t calib.Tally
			for _, m := range all {
				if m.Family != fam {
					continue
				}
				for s := range *seeds {
					r := calib.Do(ctx, m, meth, p, uint64(s+1))
					t.Add(r)
					if r.Err != nil && t.Errors == 1 {
						fmt.Fprintf(os.Stderr, "%s %s model %d: %v\n", fam, meth, m.Index, r.Err)
					}
				}
			}
			fmt.Printf("| %s | %s | %d | %d | %d | %d | %d/%d (%.3f) | %.3f | %.3f |\n", fam, meth, t.Runs, t.Errors, t.Mixed, t.MixedWithin,
				t.Within, t.Pairs, t.Fraction(), t.MaxErrMixed, t.MaxErr)
		}
	}
}

func uniq(ms []calib.Model) []string {
	var out []string
	for _, m := range ms {
		if !slices.Contains(out, m.Family) {
			out = append(out, m.Family)
		}
	}
	return out
}

// properties returns the properties of a run of meth: samples when set,
// and those of extra (k=v,...) that meth takes.
func properties(meth string, samples int, extra string) infer.Properties {
	p := infer.Properties{}
	m, ok := infer.Lookup(meth)
	if !ok {
		log.Fatalf("unknown method %q", meth)
	}
	if samples > 0 {
		p["samples"] = strconv.Itoa(samples)
	}
	for _, kv := range strings.Split(extra, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && m.HasProperty(k) {
			p[k] = v
		}
	}
	return p
}

// raceTo measures, on each frustrated 4x4 grid, the time gibbs and
// tempering need until the largest marginal error is below target: each
// run doubles --samples from 500 until it is (at most 2^8·500), and the
// time of the first run below target counts; medians over seeds.
func raceTo(target float64, models, seeds int) {
	ctx := context.Background()
	fmt.Printf("| grid | gibbs: median s (samples) | tempering: median s (samples) | ratio |\n|---|---|---|---|\n")
	for _, m := range calib.Grids(1, 4, models) {
		row := []string{strconv.Itoa(m.Index)}
		var med []float64
		for _, meth := range []string{"gibbs", "tempering"} {
			var secs []float64
			var ns []int
			for s := range seeds {
				t, n := timeTo(ctx, m, meth, target, uint64(s+1))
				secs = append(secs, t)
				ns = append(ns, n)
			}
			slices.Sort(secs)
			slices.Sort(ns)
			md := secs[len(secs)/2]
			med = append(med, md)
			if md < 0 {
				row = append(row, "not reached")
			} else {
				row = append(row, fmt.Sprintf("%.3f (%d)", md, ns[len(ns)/2]))
			}
		}
		ratio := "-"
		if med[0] > 0 && med[1] > 0 {
			ratio = fmt.Sprintf("%.1f", med[0]/med[1])
		}
		fmt.Printf("| %s | %s |\n", strings.Join(row, " | "), ratio)
	}
}

// timeTo returns the seconds of the first run of meth (samples doubling)
// whose largest error is below target, and its samples; −1 when none is.
func timeTo(ctx context.Context, m calib.Model, meth string, target float64, seed uint64) (float64, int) {
	for n := 500; n <= 500<<8; n *= 2 {
		p := infer.Properties{"samples": strconv.Itoa(n), "burn-in": strconv.Itoa(n / 10)}
		start := time.Now()
		r := calib.Do(ctx, m, meth, p, seed)
		if r.Err != nil {
			log.Fatal(r.Err)
		}
		if r.MaxErr < target {
			return time.Since(start).Seconds(), n
		}
	}
	return -1, 0
}
