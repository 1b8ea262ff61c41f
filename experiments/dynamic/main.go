// Command dynamic reproduces the experiments of Section 4.1 of the lifted BP
// paper on its social-network DMLN (Table 3, bottom): Fig. 4's ratios
// (LFF/FF edges and messages, forwards-backwards/flooding messages), the
// curve of P(Cancer(A, t)), the scaling of LFF against FF, and the cost of
// relifting as evidence streams in. See RESULTS.md.
//
//	go run ./experiments/dynamic -out experiments/dynamic [-quick]
//	go run ./experiments/dynamic -parts scaling -people 200,500 -steps 10 -reps 1
package main

import (
	"context"
	"flag"
	"fmt"
	"image/color"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/lifted-dev/lifted/dynamic"
	"github.com/lifted-dev/lifted/dynamic/dynplot"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
	_ "github.com/lifted-dev/lifted/infer/mcmc" // registers mcsat
	"github.com/lifted-dev/lifted/internal/benchstat"
	"github.com/lifted-dev/lifted/lift"
	"github.com/lifted-dev/lifted/mln"
)

// The weights (the paper's did not survive conversion; these are ours).
const weights = `
-1.5 Smokes(x, 0)
-2.5 Cancer(x, 0)
-1 Friends(x, y, 0)
1.5 Smokes(x, t) => Cancer(x, t)
1.1 Friends(x, y, t) ^ Smokes(x, t) => Smokes(y, t)
2 Smokes(x, t) => Smokes(x, succ(t))
2 Friends(x, y, t) => Friends(x, y, succ(t))
`

func model(people []string, steps int) string {
	return fmt.Sprintf("person = {%s}\ntime = {0,...,%d}\nSmokes(person, time)\nCancer(person, time)\nFriends(person, person, time)\n%s",
		strings.Join(people, ", "), steps-1, weights)
}

func names(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("P%d", i)
	}
	return out
}

// evidence observes a fraction r of the people, as in the paper: for each
// observed person a random step, whether they smoke, and 5 of their friends.
func evidence(rng *rand.Rand, people []string, steps int, r float64) string {
	var b strings.Builder
	n := int(r*float64(len(people)) + 0.5)
	for _, i := range rng.Perm(len(people))[:n] {
		p := people[i]
		t := rng.IntN(steps)
		if rng.IntN(2) == 0 {
			b.WriteString("!")
		}
		fmt.Fprintf(&b, "Smokes(%s, %d)\n", p, t)
		k := 0
		for _, j := range rng.Perm(len(people)) {
			if j == i || k == 5 {
				continue
			}
			fmt.Fprintf(&b, "Friends(%s, %s, %d)\n", p, people[j], t)
			k++
		}
	}
	return b.String()
}

// maxGround is passed to the grounder (ground.Options.MaxGround).
var maxGround int64

func load(src, db string) *dynamic.Model {
	m, err := mlnfile.Parse("social.mln", []byte(src))
	if err != nil {
		log.Fatal(err)
	}
	read := func(s *mln.MLN) (*mln.DB, error) { return mlnfile.ReadDB(strings.NewReader(db), "ev.db", s) }
	md, err := dynamic.Unroll(context.Background(), m, read, dynamic.Options{Horizon: -1, Query: []string{"Cancer"}, Ground: ground.Options{MaxGround: maxGround}})
	if err != nil {
		log.Fatal(err)
	}
	return md
}

func runOpt(lifted bool, s bp.Schedule) dynamic.RunOptions {
	o := bp.DefaultOptions() // 1e-8, 1000 iterations: the paper's settings
	o.Schedule = s
	return dynamic.RunOptions{Lifted: lifted, BP: o}
}

type run struct {
	st   dynamic.Stats
	secs float64
}

func do(md *dynamic.Model, lifted bool, s bp.Schedule) run {
	start := time.Now()
	_, st, err := md.Run(context.Background(), md.EvidenceUpTo(md.Horizon), runOpt(lifted, s))
	if err != nil {
		log.Fatal(err)
	}
	return run{st: st, secs: time.Since(start).Seconds()}
}

func mean(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

type curve struct {
	label string
	x, y  []float64
}

func linePlot(path, title, xl, yl string, curves []curve, logY bool) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xl, yl
	if logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	for i, c := range curves {
		if len(c.x) == 0 {
			continue
		}
		xy := make(plotter.XYs, len(c.x))
		for k := range c.x {
			xy[k] = plotter.XY{X: c.x[k], Y: c.y[k]}
		}
		l, pts, err := plotter.NewLinePoints(xy)
		if err != nil {
			log.Fatal(err)
		}
		l.Color, pts.Color, pts.Shape = plotutil.Color(i), plotutil.Color(i), plotutil.Shape(i)
		l.Width = vg.Points(1.5)
		p.Add(l, pts)
		p.Legend.Add(c.label, l, pts)
	}
	_ = color.Black
	if err := p.Save(6*vg.Inch, 4*vg.Inch, path); err != nil {
		log.Fatal(err)
	}
}

func main() {
	out := flag.String("out", "experiments/dynamic", "directory for the plots")
	seeds := flag.Int("seeds", 3, "random evidence draws per setting")
	quick := flag.Bool("quick", false, "smaller scaling sizes")
	mcsatSamples := flag.Int("mcsat-samples", 20000, "MC-SAT samples per chain for Fig. 4 (right)")
	parts := flag.String("parts", "fig4,cancer,scaling,filter", "which experiments to run (also: relift)")
	peopleList := flag.String("people", "", "scaling: comma-separated numbers of people (with -steps; default: the built-in sizes)")
	stepsFlag := flag.String("steps", "", "scaling: comma-separated numbers of steps (every pair of -people and -steps is run)")
	reps := flag.Int("reps", 3, "scaling: timed runs per size (the median is reported)")
	oneRep := flag.Int("one-rep-above", 0, "scaling: a single timed run above this many ground variables (0: always -reps)")
	flag.Int64Var(&maxGround, "max-ground", 0, "refuse groundings with more ground formulas or atoms than this (0: the grounder's default, from the available memory)")
	ffMax := flag.Int("ff-max-vars", 0, "scaling: skip FF (ground BP) above this many ground variables (0: never skip)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	var sizes [][2]int
	if *peopleList != "" || *stepsFlag != "" {
		ps, err := intList(*peopleList, "20")
		if err != nil {
			log.Fatal(err)
		}
		ts, err := intList(*stepsFlag, "10")
		if err != nil {
			log.Fatal(err)
		}
		for _, t := range ts {
			for _, p := range ps {
				sizes = append(sizes, [2]int{p, t})
			}
		}
	}
	if *reps < 1 {
		log.Fatal("-reps must be at least 1")
	}
	people := names(20)
	rs := []float64{0, 0.25, 0.5, 0.75, 1}
	var fig4 []curve
	stepsList := []int{10, 15}
	want := func(p string) bool { return slices.Contains(strings.Split(*parts, ","), p) }
	if want("relift") {
		relift()
	}
	if want("fig4") {
		fmt.Println("## Fig. 4 (left, middle): 20 people, r of them observed; means over", *seeds, "evidence draws")
		fmt.Println()
		fmt.Println("| steps | r | ground vars | FF edges | LFF edges | LFF/FF edges | FF msgs | LFF msgs | LFF/FF msgs | FF iters | LFF iters | FB/flood msgs (ground) | FB/flood msgs (lifted) | flood iters |")
		fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	} else {
		stepsList = nil
	}
	for _, steps := range stepsList {
		var e, m, fb []float64
		for _, r := range rs {
			var vars, ffE, lffE, ffM, lffM, ffI, lffI, flI, rE, rM, rFB, rFBl []float64
			for seed := 0; seed < *seeds; seed++ {
				rng := rand.New(rand.NewPCG(uint64(seed+1), uint64(steps)))
				md := load(model(people, steps), evidence(rng, people, steps, r))
				ff := do(md, false, bp.ForwardBackward)
				lff := do(md, true, bp.ForwardBackward)
				fl := do(md, false, bp.Flood)
				lfl := do(md, true, bp.Flood)
				for _, x := range []run{ff, lff, fl, lfl} {
					if !x.st.Converged {
						log.Printf("steps %d r %g seed %d: a run did not converge (%d iterations)", steps, r, seed, x.st.Iterations)
					}
				}
				vars = append(vars, float64(md.Grounding.Graph.NumVars()))
				ffE, lffE = append(ffE, float64(ff.st.Edges)), append(lffE, float64(lff.st.Edges))
				ffM, lffM = append(ffM, float64(ff.st.Messages)), append(lffM, float64(lff.st.Messages))
				ffI, lffI, flI = append(ffI, float64(ff.st.Iterations)), append(lffI, float64(lff.st.Iterations)), append(flI, float64(fl.st.Iterations))
				rE = append(rE, float64(lff.st.Edges)/float64(ff.st.Edges))
				rM = append(rM, float64(lff.st.Messages)/float64(ff.st.Messages))
				rFB = append(rFB, float64(ff.st.Messages)/float64(fl.st.Messages))
				rFBl = append(rFBl, float64(lff.st.Messages)/float64(lfl.st.Messages))
			}
			fmt.Printf("| %d | %.2f | %.0f | %.0f | %.0f | %.4f | %.0f | %.0f | %.4f | %.1f | %.1f | %.3f | %.3f | %.1f |\n",
				steps, r, mean(vars), mean(ffE), mean(lffE), mean(rE), mean(ffM), mean(lffM), mean(rM), mean(ffI), mean(lffI), mean(rFB), mean(rFBl), mean(flI))
			e, m, fb = append(e, mean(rE)), append(m, mean(rM)), append(fb, mean(rFB))
		}
		fig4 = append(fig4, curve{fmt.Sprintf("LFF/FF edges, %d steps", steps), rs, e},
			curve{fmt.Sprintf("LFF/FF messages, %d steps", steps), rs, m},
			curve{fmt.Sprintf("FB/flooding messages (FF), %d steps", steps), rs, fb})
	}
	if want("fig4") {
		linePlot(filepath.Join(*out, "fig4-ratios.png"), "Social-network DMLN, 20 people", "fraction r of people observed", "ratio", fig4, false)
	}

	if want("cancer") {
		cancer(*out, *mcsatSamples)
	}
	if want("scaling") {
		scaling(*out, *quick, sizes, *reps, *oneRep, *ffMax)
	}
	if want("filter") {
		filtering(people)
	}
}

func cancer(out string, mcsatSamples int) {
	// Fig. 4 (right): four people, A smokes at step 2.
	fmt.Println()
	fmt.Println("## Fig. 4 (right): P(Cancer(A, t)), people A-D, Smokes(A, 2) observed, 10 steps")
	fmt.Println()
	md := load(model([]string{"A", "B", "C", "D"}, 10), "Smokes(A, 2)\n")
	sm, err := md.Smooth(context.Background(), runOpt(true, bp.ForwardBackward))
	if err != nil {
		log.Fatal(err)
	}
	filt := map[int]float64{}
	if err := md.Filter(context.Background(), runOpt(true, bp.ForwardBackward), func(s dynamic.Step) error {
		for i, p := range s.Marginals {
			filt[i] = p
		}
		return nil
	}); err != nil {
		log.Fatal(err)
	}
	// MC-SAT on the same unrolled graph and evidence (the paper's
	// comparison), with many samples: a sampling estimate of the exact
	// marginals that BP approximates.
	alg, _, err := infer.New("mcsat", infer.Properties{"samples": strconv.Itoa(mcsatSamples), "chains": "2", "burn-in": "1000"})
	if err != nil {
		log.Fatal(err)
	}
	gc, err := lift.Ground(md.Grounding.Graph, md.EvidenceUpTo(md.Horizon))
	if err != nil {
		log.Fatal(err)
	}
	ans, err := alg.Run(context.Background(), gc, infer.Query{Task: infer.Marginals, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	mc := map[int]float64{}
	for i, q := range md.Queries {
		mc[i] = ans.Marginal(int(q.Var))[1]
	}
	var series []dynamic.Series
	fmt.Printf("MC-SAT: %d samples x 2 chains after 1000 burn-in, seed 1, worst R-hat %.4g\n\n", mcsatSamples, ans.Stats.RHat)
	fmt.Println("| t | LFF smoothed P(Cancer(A,t)) | LFF filtered P(Cancer(A,t)) | MC-SAT P(Cancer(A,t)) | LFF smoothed P(Cancer(B,t)) | MC-SAT P(Cancer(B,t)) |")
	fmt.Println("|---|---|---|---|---|---|")
	sa, fa, sb := md.SeriesOf(sm.Marginals)[0], md.SeriesOf(filt)[0], md.SeriesOf(sm.Marginals)[1]
	ma, mb := md.SeriesOf(mc)[0], md.SeriesOf(mc)[1]
	for k := range sa.Steps {
		fmt.Printf("| %d | %.4f | %.4f | %.4f | %.4f | %.4f |\n", sa.Steps[k], sa.P[k], fa.P[k], ma.P[k], sb.P[k], mb.P[k])
	}
	sa.Label, fa.Label, sb.Label, ma.Label = "Cancer(A,t) LFF smoothed", "Cancer(A,t) LFF filtered", "Cancer(B,t) LFF smoothed", "Cancer(A,t) MC-SAT"
	series = append(series, sa, fa, sb, ma)
	f, err := os.Create(filepath.Join(out, "cancer-a.png"))
	if err != nil {
		log.Fatal(err)
	}
	if err := dynplot.WritePlot(f, "png", "LFF: P(Cancer(x,t)), Smokes(A,2) observed", series); err != nil {
		log.Fatal(err)
	}
	f.Close()
}

// intList parses a comma-separated list of positive integers; def is used
// when s is empty.
func intList(s, def string) ([]int, error) {
	if s == "" {
		s = def
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 1 {
			return nil, fmt.Errorf("bad list %q: want positive integers", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// peakRSS is the process's peak resident set size so far in GiB (VmHWM on
// Linux; NaN elsewhere).
func peakRSS() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nan()
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			if err == nil {
				return kb / (1 << 20)
			}
		}
	}
	return nan()
}

func nan() float64 { v := 0.0; return v / v }

// scaling times FF against LFF for each (people, steps) size; sizes nil
// means the built-in list. FF is skipped above ffMax ground variables (if
// ffMax > 0), and run once, not reps times, above oneRep (if oneRep > 0).
func scaling(out string, quick bool, sizes [][2]int, reps, oneRep, ffMax int) {
	fmt.Println()
	fmt.Printf("## Scaling: LFF vs FF (forwards-backwards), r = 0.25, one evidence draw; seconds are medians of %d runs (grounding excluded; LFF includes colour passing)\n", reps)
	if oneRep > 0 {
		fmt.Printf("\nAbove %d ground variables: a single run.\n", oneRep)
	}
	fmt.Println()
	fmt.Println("| people | steps | ground vars | ground factors | ground s | FF edges | LFF edges | FF s | LFF s (lift + BP) | LFF colour passing s | LFF BP s | LFF/FF time | FF msgs | LFF msgs | FF iters | LFF iters | peak RSS GiB |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	if sizes == nil {
		sizes = [][2]int{{20, 10}, {50, 10}, {100, 10}, {20, 25}, {20, 50}, {20, 100}}
		if quick {
			sizes = [][2]int{{20, 10}, {50, 10}, {20, 25}}
		}
	}
	// The people plot takes the sizes at the first size's steps, the steps
	// plot those at the first size's people.
	p0, t0 := sizes[0][0], sizes[0][1]
	byPeople, byPeopleL := curve{label: "FF"}, curve{label: "LFF"}
	bySteps, byStepsL := curve{label: "FF"}, curve{label: "LFF"}
	for _, sz := range sizes {
		n, steps := sz[0], sz[1]
		rng := rand.New(rand.NewPCG(7, uint64(n*1000+steps)))
		people := names(n)
		start := time.Now()
		md := load(model(people, steps), evidence(rng, people, steps, 0.25))
		groundS := time.Since(start).Seconds()
		g := md.Grounding.Graph
		runFF := ffMax <= 0 || g.NumVars() <= ffMax
		runs := reps
		if oneRep > 0 && g.NumVars() > oneRep {
			runs = 1
		}
		var tf, tl, tlc, tlb []float64
		var ff, lff run
		for k := 0; k < runs; k++ {
			if runFF {
				ff = do(md, false, bp.ForwardBackward)
				tf = append(tf, ff.secs)
			}
			lff = do(md, true, bp.ForwardBackward)
			tl = append(tl, lff.secs)
			tlc, tlb = append(tlc, lff.st.LiftSeconds), append(tlb, lff.st.BPSeconds)
			if (runFF && !ff.st.Converged) || !lff.st.Converged {
				log.Printf("%d people, %d steps: a run did not converge", n, steps)
			}
		}
		var ffCols string
		if runFF {
			ffCols = fmt.Sprintf("%d | %d | %.3g | %.3g | %.3g | %.3g | %.3f | %d | %d | %d",
				ff.st.Edges, lff.st.Edges, benchstat.Median(tf), benchstat.Median(tl), benchstat.Median(tlc), benchstat.Median(tlb), benchstat.Median(tl)/benchstat.Median(tf), ff.st.Messages, lff.st.Messages, ff.st.Iterations)
		} else {
			ffCols = fmt.Sprintf("— | %d | — | %.3g | %.3g | %.3g | — | — | %d | —",
				lff.st.Edges, benchstat.Median(tl), benchstat.Median(tlc), benchstat.Median(tlb), lff.st.Messages)
		}
		fmt.Printf("| %d | %d | %d | %d | %.3g | %s | %d | %.2f |\n", n, steps, g.NumVars(), g.NumFactors(), groundS, ffCols, lff.st.Iterations, peakRSS())
		if steps == t0 {
			if runFF {
				byPeople.x, byPeople.y = append(byPeople.x, float64(n)), append(byPeople.y, benchstat.Median(tf))
			}
			byPeopleL.x, byPeopleL.y = append(byPeopleL.x, float64(n)), append(byPeopleL.y, benchstat.Median(tl))
		}
		if n == p0 {
			if runFF {
				bySteps.x, bySteps.y = append(bySteps.x, float64(steps)), append(bySteps.y, benchstat.Median(tf))
			}
			byStepsL.x, byStepsL.y = append(byStepsL.x, float64(steps)), append(byStepsL.y, benchstat.Median(tl))
		}
		runtime.GC()
		// The plots are rewritten after every size, so that a long run
		// stopped early still leaves them. With explicit sizes, a plot is
		// written only if it has more than one point, so that a steps-only
		// run does not overwrite the people plot.
		if len(byPeopleL.x) > 1 {
			linePlot(filepath.Join(out, "scaling-people.png"), fmt.Sprintf("%d steps, r = 0.25", t0), "people", "seconds", []curve{byPeople, byPeopleL}, true)
		}
		if len(byStepsL.x) > 1 {
			linePlot(filepath.Join(out, "scaling-steps.png"), fmt.Sprintf("%d people, r = 0.25", p0), "steps", "seconds", []curve{bySteps, byStepsL}, true)
		}
	}
}

func filtering(people []string) {
	// Relifting as evidence streams in.
	fmt.Println()
	fmt.Println("## Filtering with LFF: relifting from scratch per step (20 people, 10 steps, r = 0.5)")
	fmt.Println()
	fmt.Println("| step | new evidence atoms | clusternodes | relift s (from scratch) | BP s | messages |")
	fmt.Println("|---|---|---|---|---|---|")
	rng := rand.New(rand.NewPCG(3, 3))
	md := load(model(people, 10), evidence(rng, people, 10, 0.5))
	if err := md.Filter(context.Background(), runOpt(true, bp.ForwardBackward), func(s dynamic.Step) error {
		fmt.Printf("| %d | %d | %d | %.3g | %.3g | %d |\n", s.Step, len(md.Evidence[s.Step]), s.Stats.ClusterNodes, s.Stats.LiftSeconds, s.Stats.BPSeconds, s.Stats.Messages)
		return nil
	}); err != nil {
		log.Fatal(err)
	}
}
