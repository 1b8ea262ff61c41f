// Command plot draws seconds against domain size n, one line per run, from
// the markdown tables that experiments/map prints:
//
//	go run ./experiments/map/plot -o experiments/map/time.png experiments/map/r1.out experiments/map/r2.out
//
// Cells that hit the time limit ("> 1m30s", "(stopped at …)") are left out.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

func main() {
	out := flag.String("o", "time.png", "output PNG")
	flag.Parse()
	series := map[string]plotter.XYs{}
	for _, path := range flag.Args() {
		f, err := os.Open(path)
		if err != nil {
			fail(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			cells := strings.Split(sc.Text(), "|")
			if len(cells) < 12 {
				continue
			}
			n, err1 := strconv.Atoi(strings.TrimSpace(cells[1]))
			secs, err2 := strconv.ParseFloat(strings.TrimSpace(cells[4]), 64)
			if err1 != nil || err2 != nil {
				continue
			}
			run := strings.TrimSpace(cells[3])
			series[run] = append(series[run], plotter.XY{X: float64(n), Y: secs})
		}
		f.Close()
	}
	p := plot.New()
	p.Title.Text = "MAP LP on the semi-transitive model"
	p.X.Label.Text = "domain size n"
	p.Y.Label.Text = "seconds (median)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	var names []string
	for k := range series {
		names = append(names, k)
	}
	sort.Strings(names)
	var args []any
	for _, k := range names {
		pts := series[k]
		sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		args = append(args, k, pts)
	}
	if err := plotutil.AddLinePoints(p, args...); err != nil {
		fail(err)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	if err := p.Save(6*vg.Inch, 4*vg.Inch, *out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "plot:", err)
	os.Exit(1)
}
