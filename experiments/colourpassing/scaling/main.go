// Command scaling measures colour passing on n×n grids without evidence
// (the paper's Fig. 8 grids) and, with -smokers, on friends-and-smokers:
// the CPU seconds of the single worker (lift.ColourPassing) per size, with
// the exponent of their growth in the number of nodes N (a least-squares
// fit of log CPU on log N), and the wall-clock speedup of lift.Parallel
// with -workers goroutines over one, the two run alternately in one
// process (in reverse order every other repetition), medians of -reps.
// With -hugepages it also runs the single worker with huge pages off
// (LIFTED_HUGEPAGES=0) in every repetition and reports both CPU times.
// Every colouring is checked equal to the single worker's (class ids,
// rounds, per-round class counts); the program exits on a mismatch. The
// load average of the machine is printed before and after every size.
// (-hugepages and the LIFTED_* settings of -alt act only on builds that
// read them, such as branch cpar; main reads none of them. -tile numbers
// the grid in tiles to measure what locality is worth.)
package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/internal/benchstat"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/lift"
)

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		out = append(out, n)
	}
	return out
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return f[0]
}

type prog struct{ r, v, f int }

type run struct {
	col  *lift.Colouring
	prog []prog
	wall float64
	cpu  float64
}

func refine(rf lift.Refiner, g *fg.Graph, ev fg.Evidence) run {
	var out run
	opt := lift.Options{Progress: func(r, v, f int) { out.prog = append(out.prog, prog{r, v, f}) }}
	runtime.GC()
	c0, t0 := benchstat.CPUSeconds(), time.Now()
	col, err := rf.Refine(context.Background(), g, ev, opt)
	out.wall, out.cpu = time.Since(t0).Seconds(), benchstat.CPUSeconds()-c0
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out.col = col
	return out
}

func main() {
	sizes := flag.String("sizes", "100,183,316,577,1000,1826", "grid sides (or, with -smokers, people)")
	smokers := flag.Bool("smokers", false, "friends-and-smokers with evidence on 3 people instead of grids")
	workers := flag.Int("workers", 2, "goroutines of the parallel runs")
	reps := flag.Int("reps", 5, "repetitions (medians)")
	hugeCmp := flag.Bool("hugepages", false, "also run the single worker with LIFTED_HUGEPAGES=0 (huge pages off), alternating, and report its CPU seconds")
	tile := flag.Int("tile", 0, "number the grid's variables in T×T tiles (row-major within a tile, tiles row-major), "+
		"factors per variable in that order: the same graph as -tile 0 (row-major), relabelled for locality")
	altFlag := flag.String("alt", "", "settings to compare, separated by ';', each a space-separated list of environment assignments "+
		"(\"LIFTED_GATHER=0;LIFTED_SPIN=0\"; minchunk=N sets lift.Parallel's MinChunk): every repetition also runs 1 and -workers workers under each")
	flag.Parse()
	var alts []string
	if *altFlag != "" {
		alts = strings.Split(*altFlag, ";")
	}
	var altRows, cpu2Rows []string
	fmt.Printf("GOMAXPROCS %d, %d CPUs, workers %d, %d repetitions\n\n", runtime.GOMAXPROCS(0), runtime.NumCPU(), *workers, *reps)
	fmt.Println("| graph | N (vars+factors) | rounds | 1 worker CPU s | CPU µs/node | 1 worker wall s | " +
		fmt.Sprint(*workers) + " workers wall s | speedup (ratio of medians) | median of per-rep ratios | load before/after |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	var logN, logCPU, logOff []float64
	var offRows []string
	for _, n := range ints(*sizes) {
		var g *fg.Graph
		var ev fg.Evidence
		name := fmt.Sprintf("grid %d²", n)
		if *smokers {
			g = gen.Smokers(n, 1.5, 1.1)
			ev = fg.NoEvidence(g.NumVars())
			for i := range 3 {
				ev[i] = int32(i % 2)
			}
			name = fmt.Sprintf("smokers %d", n)
		} else if *tile > 0 {
			g, _ = gen.TiledSquareGrid(rand.New(rand.NewPCG(1, 1)), n, *tile)
			name = fmt.Sprintf("grid %d², %d×%d tiles", n, *tile, *tile)
		} else {
			g = gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), n)
		}
		load0 := loadavg()
		var ref *run
		var cpu1, wall1, wall2, ratio, cpuOff []float64
		// Per -alt setting: its runs of 1 and of -workers workers.
		altCPU1 := make([][]float64, len(alts))
		altWall1 := make([][]float64, len(alts))
		altWall2 := make([][]float64, len(alts))
		altCPU2 := make([][]float64, len(alts))
		var cpu2 []float64
		huge := ""
		for rep := range *reps {
			// A run: workers, and the -alt setting (-1: none, -2: huge
			// pages off).
			type cfg struct{ w, alt int }
			order := []cfg{{1, -1}, {*workers, -1}}
			if *hugeCmp {
				order = append(order, cfg{1, -2})
			}
			for a := range alts {
				order = append(order, cfg{1, a}, cfg{*workers, a})
			}
			if rep%2 == 1 {
				slices.Reverse(order)
			}
			var w1, w2 float64
			for _, c := range order {
				var env []string
				switch {
				case c.alt == -2:
					env = []string{"LIFTED_HUGEPAGES=0"}
				case c.alt >= 0:
					env = strings.Fields(alts[c.alt])
				}
				var rf lift.Refiner = lift.ColourPassing{}
				if c.w > 1 {
					p := lift.Parallel{Workers: c.w}
					// minchunk=N in a setting is lift.Parallel's MinChunk.
					env = slices.DeleteFunc(env, func(kv string) bool {
						v, ok := strings.CutPrefix(kv, "minchunk=")
						if ok {
							p.MinChunk = ints(v)[0]
						}
						return ok
					})
					rf = p
				}
				env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "minchunk=") })
				for _, kv := range env {
					k, v, _ := strings.Cut(kv, "=")
					os.Setenv(k, v)
				}
				r := refine(rf, g, ev)
				for _, kv := range env {
					k, _, _ := strings.Cut(kv, "=")
					os.Unsetenv(k)
				}
				if huge == "" && c == (cfg{1, -1}) {
					huge = anonHuge()
				}
				if ref == nil {
					ref = &r
				} else if !reflect.DeepEqual(r.col, ref.col) || !slices.Equal(r.prog, ref.prog) {
					fmt.Fprintf(os.Stderr, "%s: the colouring of %d workers (%q) differs from the single worker's\n", name, c.w, env)
					os.Exit(1)
				}
				switch {
				case c.alt == -2:
					cpuOff = append(cpuOff, r.cpu)
				case c.alt >= 0 && c.w == 1:
					altCPU1[c.alt] = append(altCPU1[c.alt], r.cpu)
					altWall1[c.alt] = append(altWall1[c.alt], r.wall)
				case c.alt >= 0:
					altCPU2[c.alt] = append(altCPU2[c.alt], r.cpu)
					altWall2[c.alt] = append(altWall2[c.alt], r.wall)
				case c.w == 1:
					w1 = r.wall
					cpu1 = append(cpu1, r.cpu)
				default:
					w2 = r.wall
					cpu2 = append(cpu2, r.cpu)
				}
			}
			wall1, wall2, ratio = append(wall1, w1), append(wall2, w2), append(ratio, w1/w2)
		}
		for a, set := range alts {
			altRows = append(altRows, fmt.Sprintf("| %s | %s | %.4g | %.3f | %.4g | %.4g | %.3f | %.4g | %.3f | %.3f |", name, set,
				benchstat.Median(altCPU1[a]), benchstat.Median(altCPU1[a])/benchstat.Median(cpu1), benchstat.Median(altWall1[a]), benchstat.Median(altWall2[a]),
				benchstat.Median(altWall1[a])/benchstat.Median(altWall2[a]), benchstat.Median(altCPU2[a]), benchstat.Median(altWall2[a])/benchstat.Median(wall2),
				benchstat.Median(altWall1[a])/benchstat.Median(wall1)))
		}
		cpu2Rows = append(cpu2Rows, fmt.Sprintf("| %s | %.4g | %.4g | %.3f |", name, benchstat.Median(cpu1), benchstat.Median(cpu2), benchstat.Median(cpu2)/benchstat.Median(cpu1)))
		N := g.NumVars() + g.NumFactors()
		c := benchstat.Median(cpu1)
		logN, logCPU = append(logN, math.Log(float64(N))), append(logCPU, math.Log(c))
		fmt.Printf("| %s | %d | %d | %.4g | %.3g | %.4g | %.4g | %.3f | %.3f | %s/%s |\n", name, N, ref.col.Iterations, c, c/float64(N)*1e6,
			benchstat.Median(wall1), benchstat.Median(wall2), benchstat.Median(wall1)/benchstat.Median(wall2), benchstat.Median(ratio), load0, loadavg())
		if *hugeCmp {
			o := benchstat.Median(cpuOff)
			logOff = append(logOff, math.Log(o))
			offRows = append(offRows, fmt.Sprintf("| %s | %d | %.4g | %.3g | %.4g | %.3f | %s |", name, N, o, o/float64(N)*1e6, c, o/c, huge))
		}
	}
	if *hugeCmp {
		fmt.Println("\nOne worker, huge pages off (LIFTED_HUGEPAGES=0) and on, CPU seconds (medians, alternating runs):")
		fmt.Println()
		fmt.Println("| graph | N | off CPU s | off CPU µs/node | on CPU s | off/on | AnonHugePages after the first run |")
		fmt.Println("|---|---|---|---|---|---|---|")
		for _, r := range offRows {
			fmt.Println(r)
		}
		if len(logN) >= 2 {
			fmt.Printf("\nCPU seconds with huge pages off grow as N^%.3f\n", benchstat.Slope(logN, logOff))
		}
	}
	fmt.Println("\nCPU seconds (process, medians) of 1 and of", *workers, "workers:")
	fmt.Println()
	fmt.Println("| graph | 1 worker CPU s | " + fmt.Sprint(*workers) + " workers CPU s | ratio |")
	fmt.Println("|---|---|---|---|")
	for _, r := range cpu2Rows {
		fmt.Println(r)
	}
	if len(alts) > 0 {
		fmt.Println("\nOther settings (-alt), medians, in the same repetitions as the table above; \"/default\" divides by the default's median:")
		fmt.Println()
		fmt.Println("| graph | setting | 1 worker CPU s | CPU /default | 1 worker wall s | " + fmt.Sprint(*workers) + " workers wall s | speedup | " +
			fmt.Sprint(*workers) + " workers CPU s | " + fmt.Sprint(*workers) + " workers wall /default | 1 worker wall /default |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
		for _, r := range altRows {
			fmt.Println(r)
		}
	}
	if len(logN) >= 2 {
		fmt.Printf("\nCPU seconds of one worker grow as N^%.3f (least squares over all sizes)", benchstat.Slope(logN, logCPU))
		if len(logN) >= 3 {
			k := len(logN) / 2
			fmt.Printf("; N^%.3f over the smaller half, N^%.3f over the larger", benchstat.Slope(logN[:k+1], logCPU[:k+1]), benchstat.Slope(logN[k:], logCPU[k:]))
		}
		fmt.Println()
	}
}

// anonHuge is the process's memory in transparent huge pages.
func anonHuge() string {
	b, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return "?"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "AnonHugePages:") {
			return strings.Join(strings.Fields(l)[1:], " ")
		}
	}
	return "?"
}
