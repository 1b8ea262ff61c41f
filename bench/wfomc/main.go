// Command wfomc times two builds of `lifted` side by side on
// friends-and-smokers (examples/mln/smokers.mln) at n = 10^6 … 10^9 and,
// with -lwl, two builds of experiments/wfomc/scaling (one LWL run at
// n = 10^6), and prints markdown tables: process CPU seconds (user + system,
// from the child's rusage) as medians of -runs runs, the runs of the two
// builds interleaved, the ratio before/after, and whether the answers agree
// (log Z and the expected counts as printed; the learned weights).
//
//	go build -o /tmp/lifted-new ./cmd/lifted
//	git archive dd6ee96 | tar -x -C /tmp/base-wfomc && (cd /tmp/base-wfomc && go build -o /tmp/lifted-base ./cmd/lifted && go build -o /tmp/scaling-base ./experiments/wfomc/scaling)
//	go build -o /tmp/scaling-new ./experiments/wfomc/scaling
//	go run ./bench/wfomc -before /tmp/lifted-base -after /tmp/lifted-new -runs 3 \
//	    -lwl-before /tmp/scaling-base -lwl-after /tmp/scaling-new
//
// -model and -type (the type whose size is N) time another model, e.g.
// -model ../shared/data/mln/misc/fo2-five-unary.mln -type p -sizes 7,8.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/internal/benchstat"
)

func main() {
	before := flag.String("before", "/tmp/lifted-base", "lifted binary before")
	after := flag.String("after", "/tmp/lifted-new", "lifted binary after")
	model := flag.String("model", "examples/mln/smokers.mln", "MLN")
	typ := flag.String("type", "person", "the type whose domain size is N")
	sizes := flag.String("sizes", "1000000,10000000,100000000,1000000000", "domain sizes of the type")
	runs := flag.Int("runs", 3, "runs per binary and size (median reported)")
	beforeMax := flag.Int64("before-max-runs1", 100000000, "above this n the before binary runs once (minutes per run)")
	lwlBefore := flag.String("lwl-before", "", "experiments/wfomc/scaling binary before (empty: no LWL table)")
	lwlAfter := flag.String("lwl-after", "", "experiments/wfomc/scaling binary after")
	lwlN := flag.Int("lwl-n", 1000000, "LWL domain size")
	flag.Parse()

	fmt.Printf("`lifted wfomc %s --domain %s=N`, process CPU seconds (user+system), median of %d runs, before and after interleaved\n\n", *model, *typ, *runs)
	fmt.Println("| n | before s (runs) | after s (runs) | before/after | log Z before | log Z after | answers |")
	fmt.Println("|---:|---:|---:|---:|---|---|---|")
	for _, f := range strings.Split(*sizes, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		nb := *runs
		if n > *beforeMax {
			nb = 1
		}
		var tb, ta []float64
		var ob, oa string
		for r := 0; r < *runs; r++ {
			if r < nb {
				t, out := cpu(*before, "wfomc", *model, "--domain", fmt.Sprintf("%s=%d", *typ, n))
				tb, ob = append(tb, t), out
			}
			t, out := cpu(*after, "wfomc", *model, "--domain", fmt.Sprintf("%s=%d", *typ, n))
			ta, oa = append(ta, t), out
		}
		same := "identical output"
		if strip(ob) != strip(oa) {
			same = "DIFFERENT:\n" + ob + "\n" + oa
		}
		fmt.Printf("| %d | %.3f (%d) | %.3f (%d) | %.0f× | %s | %s | %s |\n", n, benchstat.Median(tb), len(tb), benchstat.Median(ta), len(ta),
			benchstat.Median(tb)/benchstat.Median(ta), field(ob, "log Z = "), field(oa, "log Z = "), same)
	}
	if *lwlBefore == "" {
		return
	}
	fmt.Printf("\nLWL, experiments/wfomc/scaling -sizes %d (L-BFGS to convergence, six formulas): the learning run's own wall seconds (the data generation not included), median of %d runs, interleaved\n\n", *lwlN, *runs)
	fmt.Println("| build | LWL s (runs) | iterations | learned weights | log Z s |")
	fmt.Println("|---|---:|---:|---|---:|")
	var rows [2][][]string
	for r := 0; r < *runs; r++ {
		for i, b := range []string{*lwlBefore, *lwlAfter} {
			_, out := cpu(b, "-sizes", strconv.Itoa(*lwlN))
			rows[i] = append(rows[i], lastRow(out))
		}
	}
	var med [2]float64
	for i, name := range []string{"before", "after"} {
		var ts []float64
		for _, row := range rows[i] {
			v, _ := strconv.ParseFloat(row[6], 64)
			ts = append(ts, v)
		}
		med[i] = benchstat.Median(ts)
		row := rows[i][0]
		fmt.Printf("| %s | %.3f (%d) | %s | %s | %s |\n", name, med[i], len(ts), row[7], row[8], row[4])
	}
	fmt.Printf("\nLWL before/after: %.1f×\n", med[0]/med[1])
}

// cpu runs the binary and returns the child's CPU seconds and its stdout.
func cpu(bin string, args ...string) (float64, string) {
	cmd := exec.Command(bin, args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "%s %v: %v\n", bin, args, err)
		os.Exit(1)
	}
	st := cmd.ProcessState
	return st.UserTime().Seconds() + st.SystemTime().Seconds(), out.String()
}

// strip drops the "seconds = " line (timing) from lifted's output.
func strip(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "seconds") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func field(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return strings.TrimPrefix(l, prefix)
		}
	}
	return "?"
}

// lastRow returns the cells of the last markdown table row of s.
func lastRow(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "|") {
			var cells []string
			for _, c := range strings.Split(strings.Trim(lines[i], "|"), "|") {
				cells = append(cells, strings.TrimSpace(c))
			}
			if len(cells) >= 9 {
				return cells
			}
		}
	}
	return make([]string, 9)
}
