package libdai

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/uai"
)

// TestAgainstUAI compares the shared .fg files that libDAI's uai2fg made
// from UAI models without evidence with the UAI originals, factor by factor:
// the same variables (labels are UAI variable ids) and the same value for
// every assignment, whatever order each format lists the scope in. This
// checks the transposition on asymmetric tables against an independent
// converter.
func TestAgainstUAI(t *testing.T) {
	uaiDir := filepath.Join(sharedDir, "..", "uai")
	files, _ := filepath.Glob(filepath.Join(sharedFile(t, ""), "*.fg"))
	compared := 0
	for _, file := range files {
		base := strings.TrimSuffix(filepath.Base(file), ".fg")
		uaiFile := filepath.Join(uaiDir, base+".uai")
		evid, err := os.ReadFile(uaiFile + ".evid")
		if err != nil || strings.TrimSpace(string(evid)) != "0" {
			continue // no UAI original, or evidence was applied by surgery
		}
		t.Run(base, func(t *testing.T) {
			m := readFile(t, file)
			f, err := os.Open(uaiFile)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			u, err := uai.Read(f, uaiFile)
			if err != nil {
				t.Fatal(err)
			}
			if m.Graph.NumFactors() != u.Graph.NumFactors() {
				t.Skipf("%d factors in .fg, %d in .uai: not a one-to-one conversion", m.Graph.NumFactors(), u.Graph.NumFactors())
			}
			for fi := range m.Graph.NumFactors() {
				if err := sameFactor(m, fi, u.Graph, fi); err != "" {
					t.Fatalf("factor %d: %s", fi, err)
				}
			}
			compared++
		})
	}
	if compared == 0 {
		t.Skip("no .fg file with a UAI original without evidence")
	}
}

// sameFactor compares factor f of the libDAI model m with factor h of the
// UAI graph u, whose variable ids are m's labels.
func sameFactor(m *Model, f int, u *fg.Graph, h int) string {
	g := m.Graph
	scope, uscope := g.Scope(f), u.Scope(h)
	labels := make([]int64, len(scope))
	for p, v := range scope {
		labels[p] = m.Labels[v]
	}
	ul := make([]int64, len(uscope))
	for p, v := range uscope {
		ul[p] = int64(v)
	}
	if !sameSet(labels, ul) {
		return "scopes differ: labels " + fmtInts(labels) + " vs UAI " + fmtInts(ul)
	}
	// Walk the UAI table in its order and look up the same assignment in
	// the libDAI factor.
	ut, t := u.Table(h), g.Table(f)
	x := make([]int, len(uscope)) // state of each UAI scope position
	for j, want := range ut.Values {
		k := 0
		for p, l := range labels {
			q := slices.Index(ul, l)
			k = k*int(t.Dims[p]) + x[q]
		}
		if got := t.Values[k]; math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			return fmt.Sprintf("UAI entry %d is %v, libDAI has %v", j, want, got)
		}
		for p := len(x) - 1; p >= 0; p-- {
			if x[p]++; x[p] < int(ut.Dims[p]) {
				break
			}
			x[p] = 0
		}
	}
	return ""
}

func sameSet(a, b []int64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func fmtInts(a []int64) string { return fmt.Sprint(a) }
