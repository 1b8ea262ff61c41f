// Command count runs BPCount and LBPCount side by side with the same seeds on
// the model-counting instances of the lifted BP paper (Section 4.1, Fig. 5)
// and prints a markdown table: the lower bounds, the seconds (median of
// -runs runs), and the messages and edges LBPCount saved, in the first step
// and in total. With -csv DIR it also writes, per instance, the cumulative
// LBPCount/BPCount ratios of edges and messages after every step of the
// first trial (the curves of Fig. 5).
//
//	go run ./bench/count -data ../shared/data -runs 3
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/count"
	"github.com/lifted-dev/lifted/format/dimacs"
	"github.com/lifted-dev/lifted/internal/benchstat"
)

type instance struct {
	name  string
	file  string // under DATA/cnf
	count string // the model count, as known
	paper string // what the lifted BP paper reports
}

var instances = []instance{
	{"2bitmax_6", "2bitmax_6.cnf", "2.07e29 (exact)", "bound 5.8e28; 88.7% fewer messages in the first step, 70.2% in total; ≈2× faster"},
	{"ls8-norm-gen", "generated/ls8-norm-gen.cnf", "5.35e11 (exact)", "ls8-norm (301 vars, 1601 clauses): 99.4% first step, 44.6% total"},
	{"wff.3.100.150", "wff.3.100.150.cnf", "≈1.8e21 (paper)", "no compression at all"},
}

func main() {
	data := flag.String("data", "../shared/data", "shared data directory")
	runs := flag.Int("runs", 3, "runs per method (the median time is reported; the results are identical)")
	trials := flag.Int("trials", count.DefaultBPCountOptions().Trials, "BPCount trials t")
	alpha := flag.Float64("alpha", count.DefaultBPCountOptions().Alpha, "BPCount's α")
	seed := flag.Uint64("seed", 1, "random seed")
	residual := flag.Int("residual-vars", count.DefaultResidualVars, "count exactly at this many open variables")
	only := flag.String("only", "", "comma-separated instance names (default: all)")
	slack := flag.Float64("slack", count.DefaultChoiceSlack, "LBPCount's ChoiceSlack (0: BPCount's choices)")
	evidence := flag.Bool("evidence-graph", false, "BP on the whole formula with evidence (LBPCount recolours incrementally)")
	csvDir := flag.String("csv", "", "write the per-step cumulative ratios of the first trial to DIR/NAME.csv")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of LBPCount's runs (BPCount's with -profile-bpcount) to FILE")
	profileBP := flag.Bool("profile-bpcount", false, "with -cpuprofile: profile BPCount's runs instead")
	avgBP := flag.Int("bpcount-average-last", count.DefaultAverageLast, "BPCount's AverageLast (0: marginals from the last iteration, as before issue 26's fifth pass)")
	flag.Parse()

	fmt.Printf("BPCount vs LBPCount: damping %.2g, tol %.0e, %d trials, α = %g, bound %v, seed %d, residual ≤ %d open variables, LBPCount choice slack %g, evidence graph %v, median of %d runs\n\n",
		count.DefaultBPCountOptions().Damping, count.DefaultBPCountOptions().Tol, *trials, *alpha, count.DefaultBPCountOptions().Bound, *seed, *residual, *slack, *evidence, *runs)
	fmt.Println("| instance | vars / clauses / edges | count | BPCount bound | LBPCount bound | estimates, log10 (BPCount; LBPCount) | steps | same choices | BPCount s | LBPCount s | speed-up | CPU time BPCount / LBPCount (process, both runs single-threaded) | colour passing | messages saved, first step | messages saved, total | edges saved, total | paper |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, in := range instances {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), in.name) {
			continue
		}
		path := filepath.Join(*data, "cnf", in.file)
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "skipping:", err)
			continue
		}
		c, err := dimacs.Read(f, path)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		g, err := cnf.ToGraph(c)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		opt := count.DefaultBPCountOptions()
		opt.Trials, opt.Alpha, opt.Seed, opt.ResidualVars = *trials, *alpha, *seed, *residual
		var res [2]*count.BPCountResult
		var secs, cpus [2][]float64
		for range *runs {
			for m := range 2 {
				opt.Lifted = m == 1
				opt.ChoiceSlack = 0
				opt.AverageLast = *avgBP
				if opt.Lifted {
					opt.ChoiceSlack = *slack
					opt.AverageLast = count.DefaultAverageLast
				}
				if *evidence {
					opt.Graph = count.EvidenceGraph
				}
				prof := *cpuProfile != "" && opt.Lifted != *profileBP
				if prof {
					if err := startProfile(*cpuProfile); err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(1)
					}
				}
				cpu0 := benchstat.CPUSeconds()
				r, err := count.BPCount(context.Background(), c, opt)
				cpus[m] = append(cpus[m], benchstat.CPUSeconds()-cpu0)
				if prof {
					pprof.StopCPUProfile()
				}
				if err != nil {
					fmt.Fprintln(os.Stderr, in.name, err)
					os.Exit(1)
				}
				if res[m] == nil {
					res[m] = r
				}
				secs[m] = append(secs[m], r.Seconds)
				fmt.Fprintf(os.Stderr, "%s %s: %.1f s, %.1f CPU s\n", in.name, r.Method, r.Seconds, cpus[m][len(cpus[m])-1])
			}
		}
		b, l := res[0], res[1]
		same := 0
		for i := range b.Trials {
			if sameChoices(b.Trials[i], l.Trials[i]) {
				same++
			}
		}
		first := l.Trials[0].Steps
		firstSaved := "–"
		if len(first) > 0 {
			firstSaved = pct(first[0].MessagesLifted, first[0].MessagesGround)
		}
		var colour float64
		for _, t := range l.Trials {
			for _, s := range t.Steps {
				colour += s.ColourSeconds
			}
		}
		tb, tl := median(secs[0]), median(secs[1])
		cb, cl := median(cpus[0]), median(cpus[1])
		fmt.Printf("| %s | %d / %d / %d | %s | %s | %s | %s; %s | %d / %d | %d of %d trials | %.1f | %.1f | %.2f× | CPU %.1f / %.1f s: %.2f× | %.1f%% of LBPCount time | %s | %s (vs the BPCount run: %s) | %s | %s |\n",
			in.name, c.NumVars, len(c.Clauses), g.NumEdges(), in.count, bound(b), bound(l), estimates(b), estimates(l), b.Steps, l.Steps,
			same, len(b.Trials), tb, tl, tb/tl, cb, cl, cb/cl, 100*colour/l.Seconds, firstSaved,
			pct(l.MessagesLifted, l.MessagesGround), pct(l.MessagesLifted, b.MessagesGround),
			pct(l.EdgesLifted, l.EdgesGround), in.paper)
		if *csvDir != "" {
			if err := writeCSV(filepath.Join(*csvDir, in.name+".csv"), l.Trials[0]); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
		}
	}
}

// sameChoices reports whether two trials fixed the same variables to the
// same values and reached the same estimate.
func sameChoices(a, b count.Trial) bool {
	if len(a.Steps) != len(b.Steps) {
		return false
	}
	for i := range a.Steps {
		if a.Steps[i].Var != b.Steps[i].Var || a.Steps[i].Value != b.Steps[i].Value {
			return false
		}
	}
	return a.EstimateLog10 == b.EstimateLog10 || math.Abs(a.EstimateLog10-b.EstimateLog10) < 1e-9
}

func bound(r *count.BPCountResult) string {
	if math.IsInf(r.LowerBoundLog10, -1) {
		return "0"
	}
	e := math.Floor(r.LowerBoundLog10)
	est := make([]float64, len(r.Trials))
	for i, t := range r.Trials {
		est[i] = t.EstimateLog10
	}
	other := count.BoundMin
	if r.Bound == count.BoundMin {
		other = count.BoundProduct
	}
	return fmt.Sprintf("%.1fe%d (log10 %.2f; %v statistic: %.2f)", math.Pow(10, r.LowerBoundLog10-e), int(e), r.LowerBoundLog10, other, count.LowerBound(est, r.Alpha, other))
}

// estimates lists the trials' log10 estimates.
func estimates(r *count.BPCountResult) string {
	var parts []string
	for _, t := range r.Trials {
		parts = append(parts, fmt.Sprintf("%.2f", t.EstimateLog10))
	}
	return strings.Join(parts, " ")
}

func pct(lifted, ground int64) string {
	if ground == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*(1-float64(lifted)/float64(ground)))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// writeCSV writes step, cumulative edge ratio and cumulative message ratio
// (lifted over ground) after every step of trial t.
func writeCSV(path string, t count.Trial) error {
	var b strings.Builder
	b.WriteString("step,edges_ground,edges_lifted,messages_ground,messages_lifted,cum_edge_ratio,cum_message_ratio\n")
	var eg, el, mg, ml int64
	for i, s := range t.Steps {
		eg += int64(s.EdgesGround)
		el += int64(s.EdgesLifted)
		mg += s.MessagesGround
		ml += s.MessagesLifted
		fmt.Fprintf(&b, "%d,%d,%d,%d,%d,%.4f,%.4f\n", i+1, s.EdgesGround, s.EdgesLifted, s.MessagesGround, s.MessagesLifted,
			float64(el)/float64(eg), float64(ml)/float64(mg))
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

var profFile *os.File

// startProfile starts (or, after the first run, resumes into a new file
// FILE.N) the CPU profile.
func startProfile(path string) error {
	if profFile != nil {
		profFile.Close()
		path = fmt.Sprintf("%s.%d", path, profRuns)
	}
	profRuns++
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	profFile = f
	return pprof.StartCPUProfile(f)
}

var profRuns int
