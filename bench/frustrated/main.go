// Command frustrated generates frustrated Ising grids (couplings |J|
// uniform in [2, 2.5] of random sign, fields uniform in [−0.5, 0.5];
// gen.FrustratedGrid), writes them as UAI files with their exact marginals
// (.MAR, by the junction tree) where the grid is at most 10×10, and runs
// the samplers on them side by side: per method, how many runs are
// labelled mixed, the largest error of any run and of the mixed runs
// against the exact marginals, and the median CPU seconds per run.
//
//	go run ./bench/frustrated -sizes 4,5,6,7,8,9,10 -per 2 -seeds 3 \
//	    -methods gibbs,mcsat,bgibbs,tempering,swendsen-wang,default -out /tmp/grids
//
// The method default is auto, the command's default (exact where it can,
// else its sampler and escalation); every method's row also counts the
// per-atom statuses the command would print (exact, mixed, unresolved,
// and how many unresolved intervals hold the exact marginal).
//
// Grids larger than 10×10 (-sizes 40) have no exact answer here: their
// rows report the label and the spread between methods instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/infer"
	_ "github.com/lifted-dev/lifted/infer/exact"
	_ "github.com/lifted-dev/lifted/infer/jtree"
	_ "github.com/lifted-dev/lifted/infer/mcmc"
	"github.com/lifted-dev/lifted/internal/benchstat"
	"github.com/lifted-dev/lifted/internal/gen"
)

type grid struct {
	name  string
	g     *fg.Graph
	exact [][]float64
}

func main() {
	sizes := flag.String("sizes", "4,5,6,7,8,9,10", "grid sides")
	per := flag.Int("per", 2, "grids per side")
	seeds := flag.Int("seeds", 3, "sampler seeds per grid")
	methods := flag.String("methods", "gibbs,mcsat,bgibbs,tempering,swendsen-wang", "methods, each optionally with properties: name[:k=v;k=v]")
	out := flag.String("out", "", "directory to write NAME.uai and NAME.uai.MAR into (none: do not write)")
	seed := flag.Uint64("seed", 1, "generator seed")
	first := flag.Uint64("first", 100, "the first sampler seed (then first+1, …)")
	verbose := flag.Bool("v", false, "print every run's diagnostics to stderr")
	flag.Parse()
	var grids []grid
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			fatal(fmt.Errorf("bad size %q", f))
		}
		r := rand.New(rand.NewPCG(*seed, uint64(n)))
		for i := range *per {
			gd := grid{name: fmt.Sprintf("grid%dx%d-%d", n, n, i), g: gen.FrustratedGrid(r, n, 2, 2.5, 0.5)}
			if n <= 10 {
				gd.exact = exact(gd.g)
			}
			if *out != "" {
				write(*out, gd)
			}
			grids = append(grids, gd)
		}
	}
	fmt.Printf("frustrated grids (|J| in [2, 2.5], |h| ≤ 0.5), %d seeds per grid, GOMAXPROCS %d\n\n", *seeds, runtime.GOMAXPROCS(0))
	fmt.Println("| grid | method | runs | mixed | max error (all) | max error (mixed) | false mixed (> 0.05) | median CPU s | atoms: exact / mixed / unresolved (unresolved covering exact) | max error, mixed atoms |")
	fmt.Println("|---|---|---:|---:|---:|---:|---:|---:|---|---:|")
	for _, gd := range grids {
		for _, spec := range strings.Split(*methods, ",") {
			name, props := parseSpec(spec)
			var cpu []float64
			mixed, falseMixed := 0, 0
			maxAll, maxMixed := 0.0, 0.0
			var at atoms
			for s := range *seeds {
				ans, sec, err := run(gd.g, name, props, *first+uint64(s))
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s %s seed %d: %v\n", gd.name, spec, s, err)
					continue
				}
				cpu = append(cpu, sec)
				at.add(ans, gd.exact)
				if *verbose {
					fmt.Fprintf(os.Stderr, "%s %s seed %d: mixed %v R-hat %.4g ESS %.0f/%.0f samples %d swap %.2f: %s\n", gd.name, spec, s, ans.Converged, ans.Stats.RHat, ans.Stats.BulkESS, ans.Stats.TailESS, ans.Stats.Samples, ans.Stats.SwapRates, ans.Stats.Mixing)
				}
				e := math.NaN()
				if gd.exact != nil {
					e = maxErr(ans, gd.exact)
					maxAll = max(maxAll, e)
				}
				if ans.Converged {
					mixed++
					if gd.exact != nil {
						maxMixed = max(maxMixed, e)
						if e > 0.05 {
							falseMixed++
						}
					}
				}
			}
			ea, em, fm := "–", "–", "–"
			if gd.exact != nil {
				ea, em, fm = fmt.Sprintf("%.3f", maxAll), fmt.Sprintf("%.3f", maxMixed), strconv.Itoa(falseMixed)
				if mixed == 0 {
					em = "–"
				}
			}
			med := math.NaN()
			if len(cpu) > 0 {
				med = benchstat.Median(cpu)
			}
			fmt.Printf("| %s | %s | %d | %d | %s | %s | %s | %.2f | %s |\n", gd.name, spec, len(cpu), mixed, ea, em, fm, med, at)
		}
	}
}

// atoms counts the per-atom statuses (engine.Result.VarStatus, as the
// command prints them) of a method's runs: exact, mixed (with the largest
// error of a mixed atom) and unresolved (with how many intervals hold the
// exact marginal).
type atoms struct {
	exact, mixed, unresolved, covered int
	worst                             float64
	known                             bool
}

func (a *atoms) add(ans *infer.Answer, exact [][]float64) {
	r := &engine.Result{Task: infer.Marginals, Method: ans.Stats.Method, Converged: ans.Converged, Answer: ans, Stats: infer.MLNStats{Stats: ans.Stats}}
	a.known = a.known || exact != nil
	for v := range ans.Graph.NodeOf {
		st := r.VarStatus(v)
		switch st.Status {
		case engine.StatusExact:
			a.exact++
		case engine.StatusMixed:
			a.mixed++
			if exact != nil {
				a.worst = max(a.worst, math.Abs(ans.Marginal(v)[1]-exact[v][1]))
			}
		case engine.StatusUnresolved:
			a.unresolved++
			if exact != nil && exact[v][1] >= st.Lo-1e-9 && exact[v][1] <= st.Hi+1e-9 {
				a.covered++
			}
		}
	}
}

func (a atoms) String() string {
	if !a.known {
		return fmt.Sprintf("%d / %d / %d | – ", a.exact, a.mixed, a.unresolved)
	}
	w := "–"
	if a.mixed > 0 {
		w = fmt.Sprintf("%.3f", a.worst)
	}
	return fmt.Sprintf("%d / %d / %d (%d) | %s", a.exact, a.mixed, a.unresolved, a.covered, w)
}

// parseSpec splits "name:k=v;k=v".
func parseSpec(s string) (string, infer.Properties) {
	name, rest, _ := strings.Cut(strings.TrimSpace(s), ":")
	p := infer.Properties{}
	for _, kv := range strings.Split(rest, ";") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			p[k] = v
		}
	}
	return name, p
}

func run(g *fg.Graph, method string, p infer.Properties, seed uint64) (*infer.Answer, float64, error) {
	if method == "default" {
		method = "auto"
	}
	alg, _, err := infer.New(method, p)
	if err != nil {
		return nil, 0, err
	}
	t0 := benchstat.CPUSeconds()
	ans, err := infer.Run(context.Background(), alg, g, nil, infer.Options{Query: infer.Query{Task: infer.Marginals, Seed: seed}})
	return ans, benchstat.CPUSeconds() - t0, err
}

func exact(g *fg.Graph) [][]float64 {
	ans, _, err := run(g, "jtree", nil, 1)
	if err != nil {
		fatal(err)
	}
	return ans.Marginals()
}

func maxErr(ans *infer.Answer, exact [][]float64) float64 {
	e := 0.0
	for v, m := range exact {
		b := ans.Marginal(v)
		for s := range m {
			e = max(e, math.Abs(b[s]-m[s]))
		}
	}
	return e
}

func write(dir string, gd grid) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, gd.name+".uai"))
	if err != nil {
		fatal(err)
	}
	if err := uai.Write(f, &uai.Model{Graph: gd.g}); err != nil {
		fatal(err)
	}
	if err := f.Close(); err != nil {
		fatal(err)
	}
	if gd.exact == nil {
		return
	}
	f, err = os.Create(filepath.Join(dir, gd.name+".uai.MAR"))
	if err != nil {
		fatal(err)
	}
	if err := uai.WriteMAR(f, gd.exact); err != nil {
		fatal(err)
	}
	if err := f.Close(); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "frustrated:", err)
	os.Exit(1)
}
