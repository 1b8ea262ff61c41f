// Command mln measures grounding and lifted versus ground BP on Markov logic
// networks and prints the figures as a markdown table: friends-and-smokers
// (the lifted BP paper's Table 2) with n people, Friends open-world (n²
// atoms), 0%, 10% and 50% of the Smokes atoms observed; and UW-CSE (Tuffy's
// program and evidence) from the shared data. Times are medians of -runs
// runs; peak memory is the process's peak resident set size (VmHWM) after
// grounding, after lifted BP and after ground BP, reset before each
// grounding through /proc/self/clear_refs. "lifted BP s" includes colour
// passing; "ground BP s" is BP on the uncompressed graph.
//
//	go run ./bench/mln -data ../shared/data -runs 3 -sizes 100,300,1000
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/mln"
)

func main() {
	data := flag.String("data", "../shared/data", "shared data directory")
	runs := flag.Int("runs", 3, "runs per measurement (the median is reported)")
	sizes := flag.String("sizes", "100,300,1000", "numbers of people for friends-and-smokers")
	fracs := flag.String("observed", "0,0.1,0.5", "fractions of Smokes atoms observed")
	uwIter := flag.Int("uwcse-max-iter", 200, "BP iteration limit for UW-CSE (its BP does not converge)")
	flag.Parse()

	fmt.Println("| model | Smokes observed | ground atoms | ground formulas | factors | grounding s | peak MB grounding | clusternodes / variables | colour s | lifted BP s | ground BP s | BP iterations | converged | peak MB + lifted BP | peak MB + ground BP |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			fatal(err)
		}
		for _, fs := range strings.Split(*fracs, ",") {
			frac, err := strconv.ParseFloat(strings.TrimSpace(fs), 64)
			if err != nil {
				fatal(err)
			}
			m, db := smokers(n, frac)
			row(fmt.Sprintf("smokers n=%d", n), fmt.Sprintf("%.0f%%", 100*frac), m, db, ground.Options{Query: []string{"Smokes", "Cancer"}}, bp.DefaultOptions(), *runs)
		}
	}
	dir := filepath.Join(*data, "mln", "uwcse", "tuffy-cse")
	m, err := mlnfile.ParseFile(filepath.Join(dir, "prog.mln"))
	if err != nil {
		fmt.Fprintf(os.Stderr, "UW-CSE skipped: %v\n", err)
		return
	}
	db, err := mlnfile.ReadDBFiles(m, filepath.Join(dir, "evidence.db"))
	if err != nil {
		fatal(err)
	}
	opt := bp.DefaultOptions()
	opt.MaxIter = *uwIter
	row("UW-CSE (Tuffy)", "n/a", m, db, ground.Options{Query: []string{"advisedBy"}}, opt, *runs)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mln bench:", err)
	os.Exit(1)
}

// smokers builds friends-and-smokers over n people with a fraction frac of
// the Smokes atoms observed (each true or false with probability 1/2).
func smokers(n int, frac float64) (*mln.MLN, *mln.DB) {
	var b strings.Builder
	b.WriteString("person = {")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nSmokes(person)\nCancer(person)\nFriends(person, person)\n")
	b.WriteString("1.5 Smokes(x) => Cancer(x)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	m, err := mlnfile.Parse("smokers.mln", []byte(b.String()))
	if err != nil {
		fatal(err)
	}
	db := mln.NewDB(m)
	r := rand.New(rand.NewPCG(uint64(n), 7))
	for _, i := range r.Perm(n)[:int(frac*float64(n))] {
		v := mln.False
		if r.IntN(2) == 0 {
			v = mln.True
		}
		if err := db.AddAtom("Smokes", []string{fmt.Sprintf("P%d", i)}, v); err != nil {
			fatal(err)
		}
	}
	return m, db
}

// resetPeak clears the kernel's peak RSS record; it reports whether that
// worked.
func resetPeak() bool {
	runtime.GC()
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakMB reads the peak RSS (VmHWM) in MB, or -1.
func peakMB() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return -1
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// row grounds and runs lifted and ground BP runs times, and prints the
// medians.
func row(name, observed string, m *mln.MLN, db *mln.DB, gopt ground.Options, bopt bp.Options, runs int) {
	var gs, cs, ls, bs, peakG, peakT, peakB []float64
	var gr *ground.Grounding
	var lst infer.Stats
	for r := 0; r < runs; r++ {
		gr = nil
		ok := resetPeak()
		start := time.Now()
		var err error
		gr, err = ground.Ground(context.Background(), m, db, gopt)
		if err != nil {
			fmt.Printf("| %s | %s | refused or failed: %v |\n", name, observed, err)
			return
		}
		gs = append(gs, time.Since(start).Seconds())
		if ok {
			peakG = append(peakG, peakMB())
		}
		res, err := infer.Run(context.Background(), bp.New(bopt), gr.Graph, nil, infer.Options{Lifted: true})
		if err != nil {
			fatal(err)
		}
		if ok {
			peakT = append(peakT, peakMB())
		}
		lst = res.Stats
		cs = append(cs, res.Stats.ColorSeconds)
		ls = append(ls, res.Stats.Seconds)
		res = nil
		runtime.GC()
		gres, err := infer.Run(context.Background(), bp.New(bopt), gr.Graph, nil, infer.Options{})
		if err != nil {
			fatal(err)
		}
		bs = append(bs, gres.Stats.Seconds)
		if ok {
			peakB = append(peakB, peakMB())
		}
	}
	mb := func(xs []float64) string {
		if len(xs) == 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.0f", median(xs))
	}
	fmt.Printf("| %s | %s | %d | %d | %d | %.3f | %s | %d / %d | %.3f | %.3f | %.3f | %d | %v | %s | %s |\n",
		name, observed, gr.NumAtoms, gr.NumFormulas, gr.Graph.NumFactors(), median(gs), mb(peakG),
		lst.Clusternodes, lst.Variables, median(cs), median(ls), median(bs), lst.BPIterations, lst.Converged, mb(peakT), mb(peakB))
}
