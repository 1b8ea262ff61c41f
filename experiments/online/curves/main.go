// Command curves tabulates the learning curves that fig12 -logs writes (one
// JSON file per method and fold): test CMLL per atom against wall-clock
// seconds, averaged over the folds after linear interpolation onto a common
// grid of seconds (a curve holds its last value after it ends).
//
//	go run ./experiments/online/curves -logs DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

type curve struct {
	Method  string    `json:"method"`
	Fold    int       `json:"fold"`
	Seconds []float64 `json:"seconds"`
	CMLL    []float64 `json:"cmll_per_atom"`
}

// at interpolates the curve's CMLL at time t (first value before it starts,
// last value after it ends).
func (c *curve) at(t float64) float64 {
	s, y := c.Seconds, c.CMLL
	if t <= s[0] {
		return y[0]
	}
	for i := 1; i < len(s); i++ {
		if t <= s[i] {
			f := (t - s[i-1]) / math.Max(s[i]-s[i-1], 1e-12)
			return y[i-1] + f*(y[i]-y[i-1])
		}
	}
	return y[len(y)-1]
}

func main() {
	dir := flag.String("logs", "", "directory of fig12 JSON curves")
	points := flag.Int("points", 10, "rows of the table")
	flag.Parse()
	files, _ := filepath.Glob(filepath.Join(*dir, "*.json"))
	if len(files) == 0 {
		fmt.Fprintln(os.Stderr, "curves: no JSON curves in", *dir)
		os.Exit(1)
	}
	byMethod := map[string][]*curve{}
	tmax := 0.0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		c := &curve{}
		if err := json.Unmarshal(b, c); err != nil || len(c.Seconds) == 0 || len(c.Seconds) != len(c.CMLL) {
			fmt.Fprintf(os.Stderr, "curves: %s: not a curve (%v)\n", f, err)
			os.Exit(1)
		}
		byMethod[c.Method] = append(byMethod[c.Method], c)
		tmax = math.Max(tmax, c.Seconds[len(c.Seconds)-1])
	}
	methods := make([]string, 0, len(byMethod))
	for m := range byMethod {
		methods = append(methods, m)
	}
	sort.Strings(methods)
	fmt.Printf("| seconds | %s |\n|---|", joinHeader(methods))
	for range methods {
		fmt.Print("---|")
	}
	fmt.Println()
	for i := 0; i <= *points; i++ {
		t := tmax * float64(i) / float64(*points)
		fmt.Printf("| %.1f |", t)
		for _, m := range methods {
			var sum float64
			for _, c := range byMethod[m] {
				sum += c.at(t)
			}
			fmt.Printf(" %.4f |", sum/float64(len(byMethod[m])))
		}
		fmt.Println()
	}
	for _, m := range methods {
		ends := []float64{}
		for _, c := range byMethod[m] {
			ends = append(ends, c.Seconds[len(c.Seconds)-1])
		}
		slices.Sort(ends)
		fmt.Printf("\n%s: %d folds, run length %.1f–%.1f s", m, len(ends), ends[0], ends[len(ends)-1])
	}
	fmt.Println()
}

func joinHeader(ms []string) string {
	s := ""
	for i, m := range ms {
		if i > 0 {
			s += " | "
		}
		s += m + " CMLL/atom"
	}
	return s
}
