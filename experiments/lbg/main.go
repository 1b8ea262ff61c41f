// Command lbg measures lifted blocked Gibbs sampling (package lbg) against
// ground blocked Gibbs (gibbs.BlockSweep) side by side in one process:
//
//	go run ./experiments/lbg -fig sweep   # cost per sweep versus n on the R,S,T MLN, fitted exponents
//	go run ./experiments/lbg -fig mae     # time to mean absolute error 0.01 on smoker-asthma-cancer, n = 100
//	go run ./experiments/lbg -fig sweep-evidence  # LBG's cost per sweep on R,S,T with 10% evidence
//
// Every time is the median of three runs; LBG's and BG's runs alternate.
// See RESULTS.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/lifted-dev/lifted/fg"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/lbg"
	"github.com/lifted-dev/lifted/mln"
)

func main() {
	fig := flag.String("fig", "sweep", "sweep, mae or sweep-evidence")
	n := flag.Int("n", 100, "mae: domain size")
	limit := flag.Duration("limit", 60*time.Second, "mae: give up after this long")
	flag.Parse()
	switch *fig {
	case "sweep":
		sweepFigure()
	case "mae":
		maeFigure(*n, *limit)
	case "sweep-evidence":
		sweepEvidenceFigure()
	default:
		log.Fatalf("unknown figure %q", *fig)
	}
}

func domain(n int) string {
	c := make([]string, n)
	for i := range c {
		c[i] = fmt.Sprintf("C%d", i)
	}
	return strings.Join(c, ", ")
}

func parse(src, db string) (*mln.MLN, *mln.DB, []float64) {
	m, err := mlnfile.Parse("m.mln", []byte(src))
	if err != nil {
		log.Fatal(err)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db), "m.db", m)
	if err != nil {
		log.Fatal(err)
	}
	w := make([]float64, len(m.Formulas))
	for j, f := range m.Formulas {
		w[j] = f.Weight
	}
	return m, d, w
}

// bg is ground blocked Gibbs on a grounding.
type bg struct {
	size int
	g    *fg.Graph
	gr   *ground.Grounding
	bk   *gibbs.Blocking
	ch   *gibbs.Chain
	cond []float64
	off  []int
}

func newBG(m *mln.MLN, db *mln.DB, opt ground.Options, rng *rand.Rand) *bg {
	return newBGSize(m, db, opt, 8, rng)
}

// newBGSize is blocked Gibbs with blocks of at most size variables.
func newBGSize(m *mln.MLN, db *mln.DB, opt ground.Options, size int, rng *rand.Rand) *bg {
	gr, err := ground.Ground(context.Background(), m, db, opt)
	if err != nil {
		log.Fatal(err)
	}
	b := &bg{g: gr.Graph, gr: gr}
	ev := fg.NoEvidence(b.g.NumVars())
	if b.bk, err = gibbs.NewBlocking(b.g, ev, size, 1<<12); err != nil {
		log.Fatal(err)
	}
	x := make([]int32, b.g.NumVars())
	if err := gibbs.Start(b.g, ev, x, rng); err != nil {
		log.Fatal(err)
	}
	if b.ch, err = gibbs.NewChain(b.g, ev, x); err != nil {
		log.Fatal(err)
	}
	b.off = b.ch.Offsets()
	b.cond = make([]float64, b.off[b.g.NumVars()])
	return b
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

const rstSrc = `t = {%s}
R(t, t)
S(t, t)
T(t, t)
0.7 R(x, y) v S(y, z)
-0.2 S(y, z) v T(z, u)
`

// cpu is the process's user and system CPU time in seconds.
func cpu() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		log.Fatal(err)
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// lbgSweep is the cost of one sweep of an LBG chain on md (perSweep).
func lbgSweep(md *lbg.Model, rng *rand.Rand) float64 {
	ch, err := md.NewChain(rng)
	if err != nil {
		log.Fatal(err)
	}
	cond := make([]float64, md.NumAtoms())
	return perSweep(func() {
		if err := ch.Sweep(rng, cond); err != nil {
			log.Fatal(err)
		}
	})
}

// perSweep runs sweeps until they have used at least 0.3 s of CPU time
// and returns the CPU seconds per sweep (the process's, garbage collection
// included): CPU time rather than wall time, because the machine is
// shared and a process waits for a core much of the time.
func perSweep(sweep func()) float64 {
	sweep() // warm
	k := 0
	start := cpu()
	for cpu()-start < 0.3 {
		sweep()
		k++
	}
	return (cpu() - start) / float64(k)
}

func sweepFigure() {
	ns := []int{8, 12, 16, 24, 32, 48, 64, 96}
	lbgOnly := []int{128, 192, 256}
	const fitFrom = 16 // smaller n: a block's 2^8 states, not its factors, dominate BG's sweep
	fmt.Println("| n | ground formulas | BG CPU s/sweep | BG-2 CPU s/sweep | LBG CPU s/sweep | BG/LBG | LBG {R},{S},{T} CPU s/sweep |")
	fmt.Println("|---|---|---|---|---|---|---|")
	var lnN, lnBG, lnBG2, lnLBG, lnNall, lnLBGall, lnSep []float64
	var xyBG, xyBG2, xyLBG, xySep plotter.XYs
	for _, n := range append(ns, lbgOnly...) {
		m, db, w := parse(fmt.Sprintf(rstSrc, domain(n)), "")
		var tb, tb2, tl, ts []float64
		doBG := slices.Contains(ns, n)
		for rep := range 3 {
			rng := rand.New(rand.NewPCG(uint64(rep), 1))
			if doBG {
				b := newBG(m, db, ground.Options{Query: []string{"R", "S", "T"}, MaxGround: -1}, rng)
				tb = append(tb, perSweep(func() { b.ch.BlockSweep(rng, b.bk, b.cond) }))
				b = newBGSize(m, db, ground.Options{Query: []string{"R", "S", "T"}, MaxGround: -1}, 2, rng)
				tb2 = append(tb2, perSweep(func() { b.ch.BlockSweep(rng, b.bk, b.cond) }))
			}
			// Algorithm 2's clusters ({R,S} lifted, {T}), then one atom
			// per cluster
			for _, opt := range []lbg.Options{{}, {NoMerge: true}} {
				md, err := lbg.Compile(context.Background(), m, db, nil, w, opt)
				if err != nil {
					log.Fatal(err)
				}
				if rep == 0 && n == ns[0] {
					fmt.Fprintln(os.Stderr, "LBG clusters:", md.Describe())
				}
				x := lbgSweep(md, rng)
				if opt.NoMerge {
					ts = append(ts, x)
				} else {
					tl = append(tl, x)
				}
			}
		}
		l, sep := median(tl), median(ts)
		xySep = append(xySep, plotter.XY{X: float64(n), Y: sep})
		xyLBG = append(xyLBG, plotter.XY{X: float64(n), Y: l})
		if n >= fitFrom {
			lnNall = append(lnNall, math.Log(float64(n)))
			lnLBGall = append(lnLBGall, math.Log(l))
			lnSep = append(lnSep, math.Log(sep))
		}
		if doBG {
			b, b2 := median(tb), median(tb2)
			xyBG = append(xyBG, plotter.XY{X: float64(n), Y: b})
			xyBG2 = append(xyBG2, plotter.XY{X: float64(n), Y: b2})
			fmt.Printf("| %d | %d | %.3g | %.3g | %.3g | %.1f | %.3g |\n", n, 2*n*n*n, b, b2, l, b/l, sep)
			if n < fitFrom {
				continue
			}
			lnN = append(lnN, math.Log(float64(n)))
			lnBG = append(lnBG, math.Log(b))
			lnBG2 = append(lnBG2, math.Log(b2))
			lnLBG = append(lnLBG, math.Log(l))
		} else {
			fmt.Printf("| %d | %d | - | - | %.3g | - | %.3g |\n", n, 2*n*n*n, l, sep)
		}
	}
	_, eb := stat.LinearRegression(lnN, lnBG, nil, false)
	_, eb2 := stat.LinearRegression(lnN, lnBG2, nil, false)
	_, el := stat.LinearRegression(lnN, lnLBG, nil, false)
	_, ea := stat.LinearRegression(lnNall, lnLBGall, nil, false)
	_, es := stat.LinearRegression(lnNall, lnSep, nil, false)
	fmt.Printf("\nfitted exponents (least squares on log CPU time vs log n): BG %.2f, BG-2 %.2f, LBG %.2f (n = %d..%d); LBG %.2f, LBG {R},{S},{T} %.2f (n = %d..%d)\n",
		eb, eb2, el, fitFrom, ns[len(ns)-1], ea, es, fitFrom, lbgOnly[len(lbgOnly)-1])
	p := plot.New()
	p.Title.Text = "R,S,T MLN: CPU seconds per sweep"
	p.X.Label.Text = "n (domain size)"
	p.Y.Label.Text = "CPU seconds per sweep"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{}, plot.LogTicks{}
	p.Add(plotter.NewGrid())
	if err := plotutil.AddLinePoints(p, fmt.Sprintf("BG, blocks of 8 (slope %.2f)", eb), xyBG, fmt.Sprintf("BG, blocks of 2 (slope %.2f)", eb2), xyBG2,
		fmt.Sprintf("LBG, {R,S} lifted, {T} (slope %.2f)", ea), xyLBG, fmt.Sprintf("LBG, {R}, {S}, {T} (slope %.2f)", es), xySep); err != nil {
		log.Fatal(err)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	if err := p.Save(6*vg.Inch, 4*vg.Inch, "experiments/lbg/sweep.png"); err != nil {
		log.Fatal(err)
	}
}

const sacSrc = `person = {%s}
Smokes(person)
Asthma(person)
Cancer(person)
Friends(person, person)
1.5 Asthma(x) => !Smokes(x)
0.1 Asthma(x) ^ Friends(x, y) => !Smokes(y)
1.2 Smokes(x) => Cancer(x)
`

func maeFigure(n int, limit time.Duration) {
	// evidence: 10% of the Smokes atoms true (more evidence blocks make
	// the exact wfomc answer slow: with 10% of Asthma as well it takes
	// minutes at n = 100)
	var db strings.Builder
	for i := range n / 10 {
		fmt.Fprintf(&db, "Smokes(C%d)\n", i)
	}
	m, d, _ := parse(fmt.Sprintf(sacSrc, domain(n)), db.String())
	query := []string{"Smokes", "Asthma", "Cancer"}
	qa, err := ground.ParseQuery(m, d, []string{strings.Join(query, ",")})
	if err != nil {
		log.Fatal(err)
	}
	gopt := ground.Options{QueryAtoms: qa, MaxGround: -1}
	gr, err := ground.Ground(context.Background(), m, d, gopt)
	if err != nil {
		log.Fatal(err)
	}
	model := exact.NewModel(gr, gopt)
	t0 := time.Now()
	ans, err := exact.WFOMC{}.RunModel(context.Background(), model, infer.Query{})
	if err != nil {
		log.Fatal(err)
	}
	want := map[string]float64{}
	for _, q := range model.Queries {
		want[q.Name] = ans.Marginal(int(q.Var))[1]
	}
	fmt.Printf("n = %d: %d query atoms (unknown Smokes, Asthma, Cancer), %d ground atoms, exact by wfomc in %.2f s\n",
		n, len(want), gr.Graph.NumVars(), time.Since(t0).Seconds())
	var tb, tl, t1 []float64
	var sb, sl, s1 []int
	for rep := range 3 {
		rng := rand.New(rand.NewPCG(uint64(rep), 99))
		// LBG with Algorithm 2's clusters, then with one atom per cluster
		runLBG := func(opt lbg.Options) (float64, int) {
			md, err := lbg.Compile(context.Background(), m, d, gr.Closed, model.Weights, opt)
			if err != nil {
				log.Fatal(err)
			}
			if rep == 0 {
				fmt.Println("LBG clusters:", md.Describe())
			}
			start := time.Now()
			ch, err := md.NewChain(rng)
			if err != nil {
				log.Fatal(err)
			}
			idx := make([]int, 0, len(want))
			ex := make([]float64, 0, len(want))
			for name, p := range want {
				i, _ := md.Index(name)
				idx = append(idx, i)
				ex = append(ex, p)
			}
			cond := make([]float64, md.NumAtoms())
			return hit(idx, ex, func() []float64 {
				if err := ch.Sweep(rng, cond); err != nil {
					log.Fatal(err)
				}
				return cond
			}, start, limit)
		}
		t, s := runLBG(lbg.Options{})
		tl, sl = append(tl, t), append(sl, s)
		t, s = runLBG(lbg.Options{NoMerge: true})
		t1, s1 = append(t1, t), append(s1, s)
		// BG
		start := time.Now()
		b := newBG(m, d, gopt, rng)
		var idx []int
		var ex []float64
		for _, q := range b.gr.Queries {
			idx = append(idx, b.off[q.Var]+1)
			ex = append(ex, want[q.Name])
		}
		t, s = hit(idx, ex, func() []float64 { b.ch.BlockSweep(rng, b.bk, b.cond); return b.cond }, start, limit)
		tb, sb = append(tb, t), append(sb, s)
	}
	fmt.Println("\n| sampler | seconds to MAE < 0.01 (3 runs) | median | sweeps (3 runs) |")
	fmt.Println("|---|---|---|---|")
	fmt.Printf("| LBG | %s | %.3g | %v |\n", fmtList(tl), median(tl), sl)
	fmt.Printf("| LBG, one atom per cluster | %s | %.3g | %v |\n", fmtList(t1), median(t1), s1)
	fmt.Printf("| BG | %s | %.3g | %v |\n", fmtList(tb), median(tb), sb)
	fmt.Printf("\nBG/LBG median time ratio %.1f\n", median(tb)/median(tl))
}

func fmtList(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		if math.IsInf(v, 1) {
			s[i] = "> limit"
		} else {
			s[i] = fmt.Sprintf("%.3g", v)
		}
	}
	return strings.Join(s, ", ")
}

// hit runs sweeps, keeping the running Rao-Blackwellised mean of the
// entries idx of each sweep's conditionals, until its mean absolute error
// against ex is below 0.01; it returns the seconds since start (setup
// included) and the sweeps, or +Inf after limit.
func hit(idx []int, ex []float64, sweep func() []float64, start time.Time, limit time.Duration) (float64, int) {
	sum := make([]float64, len(idx))
	for k := 1; ; k++ {
		c := sweep()
		mae := 0.0
		for j, i := range idx {
			sum[j] += c[i]
			mae += math.Abs(sum[j]/float64(k) - ex[j])
		}
		mae /= float64(len(idx))
		if mae < 0.01 {
			return time.Since(start).Seconds(), k
		}
		if time.Since(start) > limit {
			return math.Inf(1), k
		}
	}
}

func init() { log.SetOutput(os.Stderr) }
