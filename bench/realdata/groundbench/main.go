// Command groundbench measures the grounding of the real MLN datasets in
// /work/shared/data/mln: wall time (median of -runs), CPU time, peak
// resident memory, the size of the ground network, and a fingerprint of the
// ground network that does not depend on the order of factors or of
// auxiliary variables (the sorted multiset of factors, each written as its
// atoms' names and its table), so that two builds of the grounder can be
// checked to produce the same network.
//
//	go run ./bench/realdata/groundbench -data /work/shared/data -runs 3
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/internal/benchstat"
)

// Dataset is one MLN, its evidence and its query predicates.
type Dataset struct {
	Name  string
	MLN   string
	DB    []string
	Query []string
	// DefaultWeight, if non-zero, weighs formulas written without a weight.
	DefaultWeight float64
}

// Datasets lists the real datasets, paths relative to the data directory.
var Datasets = []Dataset{
	{"uwcse-tuffy", "mln/uwcse/tuffy-cse/prog.mln", []string{"mln/uwcse/tuffy-cse/evidence.db"}, []string{"advisedBy"}, 0},
	{"cora-tuffy", "mln/cora-class/tuffy-class/prog.mln", []string{"mln/cora-class/tuffy-class/evidence.db"}, []string{"category"}, 0},
	{"webkb-forclift", "mln/webkb/forclift/webkb.mln", []string{"mln/webkb/forclift/corn.db"}, []string{"PageClassCourse", "PageClassFaculty", "PageClassStudent"}, 1},
	{"imdb-forclift", "mln/imdb/forclift/formulas.mln", []string{"mln/imdb/forclift/imdb.all.db"}, []string{"workedUnder"}, 1},
	{"protein-alchemy", "mln/protein/alchemy2/protein.mln", []string{"mln/protein/lsm-train/yeast.1.db"}, []string{"function"}, 0},
	{"caviar-fold0", "mln/caviar-meet/lomrf-DN-HI/fold_0/meet_trained_func.mln", []string{"mln/caviar-meet/lomrf-DN-HI/fold_0/21-Meet_WalkSplit.id1_id3.db"}, []string{"HoldsAt"}, 0},
	{"rc1000-tuffy", "mln/rc1000/tuffy-rc1000/prog.mln", []string{"mln/rc1000/tuffy-rc1000/evidence.db"}, []string{"category"}, 0},
}

func main() {
	data := flag.String("data", "/work/shared/data", "shared data directory")
	runs := flag.Int("runs", 3, "groundings per dataset (the median time is reported)")
	only := flag.String("only", "", "comma-separated dataset names (default all)")
	prof := flag.String("cpuprofile", "", "write a CPU profile of all groundings here")
	fp := flag.Bool("fingerprint", true, "compute the order-free fingerprint of the ground network")
	distinct := flag.Bool("distinct", false, "also print, per dataset, the number of distinct factors up to weight (same scope, same set of lowest-valued entries): the count Tuffy's consolidation of identical ground clauses would give")
	flag.Parse()
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	fmt.Println("| dataset | parse s | ground atoms | ground formulas | factors | grounding s (median) | CPU s (median) | peak MB | fingerprint |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, d := range Datasets {
		if *only != "" && !slices.Contains(strings.Split(*only, ","), d.Name) {
			continue
		}
		if err := row(*data, d, *runs, *fp, *distinct); err != nil {
			fmt.Printf("| %s | error: %v |\n", d.Name, strings.ReplaceAll(err.Error(), "|", "/"))
		}
	}
}

func row(data string, d Dataset, runs int, fp, distinct bool) error {
	p0 := time.Now()
	m, err := mlnfile.ParseFile(filepath.Join(data, d.MLN))
	if err != nil {
		return err
	}
	var dbs []string
	for _, f := range d.DB {
		dbs = append(dbs, filepath.Join(data, f))
	}
	db, err := mlnfile.ReadDBFiles(m, dbs...)
	if err != nil {
		return err
	}
	parse := time.Since(p0).Seconds()
	var walls, cpus []float64
	var peak float64
	var gr *ground.Grounding
	for r := 0; r < runs; r++ {
		gr = nil
		runtime.GC()
		debug.FreeOSMemory()
		resetPeak()
		c0 := benchstat.CPUSeconds()
		t0 := time.Now()
		gr, err = ground.Ground(context.Background(), m, db, ground.Options{Query: d.Query, MaxGround: -1, DefaultWeight: d.DefaultWeight, UseDefaultWeight: d.DefaultWeight != 0})
		if err != nil {
			return err
		}
		walls = append(walls, time.Since(t0).Seconds())
		cpus = append(cpus, benchstat.CPUSeconds()-c0)
		peak = max(peak, peakMB())
	}
	f := "-"
	if fp {
		f = fingerprint(gr)
	}
	fmt.Printf("| %s | %.3f | %d | %d | %d | %.3f | %.3f | %.0f | %s |\n", d.Name, parse, gr.NumAtoms, gr.NumFormulas, gr.Graph.NumFactors(), median(walls), median(cpus), peak, f)
	if distinct {
		n, aux := distinctFactors(gr)
		fmt.Printf("distinct %s: %d distinct factors up to weight (%d of them touch an auxiliary variable)\n", d.Name, n, aux)
	}
	return nil
}

// distinctFactors counts the factors that differ in scope (as a set) or in
// which joint states have the table's lowest value: two ground clauses
// over the same literals fall together, as in Tuffy's consolidation, which
// sums their weights.
func distinctFactors(gr *ground.Grounding) (n, aux int) {
	g := gr.Graph
	seen := make(map[string]bool, g.NumFactors())
	var b strings.Builder
	for f := 0; f < g.NumFactors(); f++ {
		b.Reset()
		sc := g.Scope(f)
		perm := make([]int, len(sc))
		for i := range perm {
			perm[i] = i
		}
		slices.SortFunc(perm, func(x, y int) int { return int(sc[x]) - int(sc[y]) })
		hasAux := false
		for _, i := range perm {
			fmt.Fprintf(&b, "%d,", sc[i])
			hasAux = hasAux || int(sc[i]) >= gr.NumAtoms
		}
		b.WriteByte(':')
		t := g.Table(f).Values
		lo := slices.Min(t)
		// the lowest-valued states, named by each variable's state in
		// sorted scope order (tables are row-major over the scope order)
		card := make([]int, len(sc))
		for i, v := range sc {
			card[i] = int(g.Card[v])
		}
		st := make([]int, len(sc))
		for k, x := range t {
			if x == lo {
				r := k
				for i := len(sc) - 1; i >= 0; i-- {
					st[i] = r % card[i]
					r /= card[i]
				}
				for _, i := range perm {
					fmt.Fprintf(&b, "%d", st[i])
				}
				b.WriteByte(';')
			}
		}
		if k := b.String(); !seen[k] {
			seen[k] = true
			n++
			if hasAux {
				aux++
			}
		}
	}
	return n, aux
}

// fingerprint hashes the sorted multiset of factors, each written as the
// names of its variables (auxiliary ones by cardinality only) and its table
// entries rounded to 12 significant digits, with log Z offset.
func fingerprint(gr *ground.Grounding) string {
	g := gr.Graph
	lines := make([]string, g.NumFactors())
	var b strings.Builder
	for f := range lines {
		b.Reset()
		for _, v := range g.Scope(f) {
			if int(v) < gr.NumAtoms {
				b.WriteString(gr.AtomName(v))
			} else {
				fmt.Fprintf(&b, "aux/%d", g.Card[v])
			}
			b.WriteByte(' ')
		}
		b.WriteByte(':')
		for _, x := range g.Table(f).Values {
			b.WriteString(strconv.FormatFloat(x, 'g', 12, 64))
			b.WriteByte(' ')
		}
		lines[f] = b.String()
	}
	slices.Sort(lines)
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	fmt.Fprintf(h, "offset %s", strconv.FormatFloat(roundSig(gr.LogZOffset), 'g', 10, 64))
	return fmt.Sprintf("%x", h.Sum(nil))[:12]
}

func roundSig(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	s, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 9, 64), 64)
	return s
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s[len(s)/2]
}

func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

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

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "groundbench:", err)
	os.Exit(1)
}
