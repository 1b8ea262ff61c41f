package reftest

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/brute"
	"github.com/lifted-dev/lifted/lift"
)

// daiBlock is one method's block in the output of libDAI's testdai: the
// method line's columns and the variable marginals printed below it, by
// variable label, as printed (scientific notation, four significant digits).
type daiBlock struct {
	method string
	base   string // the section's first method, which errors are relative to
	cols   map[string]string
	marg   map[int64][]string
}

// daiMarginal matches a variable marginal line such as
// "# ({x13}, (9.038e-01, 9.620e-02))".
var daiMarginal = regexp.MustCompile(`^# \(\{x(\d+)\}, \(([^()]*)\)\)$`)

// readTestdaiOutput parses testdai output: sections (one per testdai run) of a
// "# file" line, a header line "# METHOD<TAB>column<TAB>…", then per method a
// line "NAME<TAB>value<TAB>…" followed by its marginal lines.
func readTestdaiOutput(t *testing.T, path string) map[string]*daiBlock {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	blocks := map[string]*daiBlock{}
	var header []string
	var cur *daiBlock
	base := ""
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), " \t\r")
		fields := strings.Split(text, "\t")
		switch {
		case text == "":
		case strings.HasPrefix(text, "# METHOD"):
			header = header[:0]
			for _, c := range fields[1:] {
				header = append(header, strings.TrimSpace(c))
			}
			cur, base = nil, ""
		case strings.HasPrefix(text, "# ") && strings.HasSuffix(text, ".fg"):
			// a new section, for the factor graph named
			cur, base = nil, ""
		case strings.HasPrefix(text, "#"):
			m := daiMarginal.FindStringSubmatch(text)
			if m == nil || cur == nil {
				t.Fatalf("%s:%d: unexpected line %q", path, line, text)
			}
			label, err := strconv.ParseInt(m[1], 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
			cur.marg[label] = strings.Split(m[2], ", ")
		default:
			if header == nil {
				t.Fatalf("%s:%d: method line before the header", path, line)
			}
			cur = &daiBlock{method: strings.TrimSpace(fields[0]), cols: map[string]string{}, marg: map[int64][]string{}}
			if base == "" {
				base = cur.method
			}
			cur.base = base
			if blocks[cur.method] != nil {
				t.Fatalf("%s:%d: method %s appears twice", path, line, cur.method)
			}
			for i, v := range fields[1:] {
				if i < len(header) {
					cur.cols[header[i]] = strings.TrimSpace(v)
				}
			}
			blocks[cur.method] = cur
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// printed is a number as testdai prints it, with the largest error its
// rounding can hide: half a unit in the last printed digit. testdai prints
// errors smaller than 1e-9 as 1e-9 (clipReal); such a value stands for
// anything in [0, 1e-9].
type printed struct {
	s       string
	v, half float64
}

func parsePrinted(s string) (printed, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return printed{}, err
	}
	mant, exp, ok := strings.Cut(strings.ToLower(s), "e")
	if !ok {
		return printed{}, fmt.Errorf("%q is not in scientific notation", s)
	}
	e, err := strconv.Atoi(exp)
	if err != nil {
		return printed{}, err
	}
	_, frac, _ := strings.Cut(mant, ".")
	p := printed{s: s, v: v, half: 0.5 * math.Pow(10, float64(e-len(frac)))}
	if v == 0 {
		p.half = 0 // a printed zero is an exact zero
	}
	return p, nil
}

// convergenceSlack allows for two BP runs that both stopped at a 1e-9 change
// settling at slightly different points: it is added to the printed rounding
// error when our BP is compared with libDAI's printed BP numbers.
const convergenceSlack = 1e-8

// matches reports whether x prints as p, up to slack.
func (p printed) matches(x, slack float64) bool {
	if p.v == 1e-9 && math.Abs(x) <= 1e-9 {
		return true // clipped
	}
	return math.Abs(x-p.v) <= p.half*(1+1e-12)+slack
}

// bpAliases are the testdai methods of libDAI's tests/aliases.conf that are
// BP with a fixed schedule (tol=1e-9, maxiter=10000, no damping; the _LOG
// variants compute in the log domain, which changes nothing but rounding):
// sum-product BP_*, compared with the EXACT section, and max-product MP_*,
// compared with the JTREE_*_MAP section. The plain "BP" alias is left out:
// its schedule changed between libDAI versions.
var bpAliases = []struct {
	method     string
	sched      bp.Schedule
	maxProduct bool
}{
	{"BP_SEQFIX", bp.Sequential, false},
	{"BP_PARALL", bp.Flood, false},
	{"BP_SEQFIX_LOG", bp.Sequential, false},
	{"BP_PARALL_LOG", bp.Flood, false},
	{"MP_SEQFIX", bp.Sequential, true},
	{"MP_PARALL", bp.Flood, true},
	{"MP_SEQFIX_LOG", bp.Sequential, true},
	{"MP_PARALL_LOG", bp.Flood, true},
}

// maxMarginals returns, by enumeration, every variable's max-marginal
// normalised to sum 1: the exact answer max-product BP approximates.
func maxMarginals(g *fg.Graph) [][]float64 {
	n := g.NumVars()
	mm := make([][]float64, n)
	for v := range mm {
		mm[v] = make([]float64, g.Card[v])
		for i := range mm[v] {
			mm[v][i] = math.Inf(-1)
		}
	}
	x := make([]int32, n)
	for {
		var lw float64
		for f := 0; f < g.NumFactors(); f++ {
			t := g.Table(f)
			k := 0
			for p, v := range g.Scope(f) {
				k = k*int(t.Dims[p]) + int(x[v])
			}
			lw += math.Log(t.Values[k])
		}
		for v := range mm {
			mm[v][x[v]] = max(mm[v][x[v]], lw)
		}
		v := n - 1
		for ; v >= 0; v-- {
			x[v]++
			if x[v] < g.Card[v] {
				break
			}
			x[v] = 0
		}
		if v < 0 {
			break
		}
	}
	for _, m := range mm {
		top := slices.Max(m)
		var s float64
		for i := range m {
			m[i] = math.Exp(m[i] - top)
			s += m[i]
		}
		for i := range m {
			m[i] /= s
		}
	}
	return mm
}

// TestTestfast checks libDAI's own regression output for testfast.fg (a loopy
// 4×4 binary grid). The exact sections first: enumeration must reproduce the
// printed EXACT marginals and JTREE_*_MAP max-marginals, which checks the
// reader and the variable order. Then the BP and MP blocks, schedule by
// schedule, against our ground and lifted BP at the printed precision. BP is
// not exact on a loopy graph, so BP is compared with BP, and with the exact
// answer only through the errors testdai printed for BP: the largest and mean
// total variation distance of the variable marginals and, for sum-product,
// log Z minus the exact log Z.
func TestTestfast(t *testing.T) {
	out := dataPath(t, "fg/testfast.out")
	m := readFG(t, "testfast.fg")
	g := m.Graph
	blocks := readTestdaiOutput(t, out)
	exact := brute.Solve(g, nil)
	exactMax := maxMarginals(g)

	// checkMarginals compares marginals with a block's printed ones and
	// returns the largest difference.
	checkMarginals := func(t *testing.T, b *daiBlock, marg func(v int) []float64, slack float64) float64 {
		t.Helper()
		if len(b.marg) != g.NumVars() {
			t.Fatalf("%s: %d marginals printed for %d variables", b.method, len(b.marg), g.NumVars())
		}
		var worst float64
		for v := 0; v < g.NumVars(); v++ {
			label := int64(v)
			if m.Labels != nil {
				label = m.Labels[v]
			}
			want, ok := b.marg[label]
			got := marg(v)
			if !ok || len(want) != len(got) {
				t.Fatalf("%s: no marginal of %d states printed for x%d", b.method, len(got), label)
			}
			for x, s := range want {
				p, err := parsePrinted(s)
				if err != nil {
					t.Fatalf("%s x%d: %v", b.method, label, err)
				}
				worst = max(worst, math.Abs(got[x]-p.v))
				if !p.matches(got[x], slack) {
					t.Errorf("%s: P(x%d=%d) is %.10g, libDAI printed %s (allowed |Δ| %.2g)", b.method, label, x, got[x], s, p.half+slack)
				}
			}
		}
		return worst
	}
	// checkColumn compares a computed number with a printed column.
	checkColumn := func(t *testing.T, b *daiBlock, col string, got, slack float64) {
		t.Helper()
		s, ok := b.cols[col]
		if !ok {
			t.Fatalf("%s: no %q column", b.method, col)
		}
		p, err := parsePrinted(s)
		if err != nil {
			t.Fatalf("%s %s: %v", b.method, col, err)
		}
		if !p.matches(got, slack) {
			t.Errorf("%s: %s is %.6g here, libDAI printed %s", b.method, col, got, s)
		} else {
			t.Logf("%s: %s %.6g, libDAI printed %s", b.method, col, got, s)
		}
	}
	block := func(t *testing.T, method string) *daiBlock {
		t.Helper()
		b := blocks[method]
		if b == nil {
			t.Fatalf("no %s block in %s", method, out)
		}
		return b
	}

	t.Run("EXACT", func(t *testing.T) {
		w := checkMarginals(t, block(t, "EXACT"), func(v int) []float64 { return exact.Marginals[v] }, 0)
		t.Logf("enumeration vs printed exact marginals: max |Δ| %.3g; exact log Z %.10g", w, exact.LogZ)
	})
	t.Run("JTREE_MINFILL_HUGIN_MAP", func(t *testing.T) {
		w := checkMarginals(t, block(t, "JTREE_MINFILL_HUGIN_MAP"), func(v int) []float64 { return exactMax[v] }, 0)
		t.Logf("enumeration vs printed exact max-marginals: max |Δ| %.3g", w)
	})

	gc := ground(t, g, nil)
	lc := compress(t, g, nil)
	t.Logf("%d variables, %d factors; lifted: %d clusternodes, %d clusterfactors", g.NumVars(), g.NumFactors(), lc.NumNodes(), lc.NumFactors())
	for _, a := range bpAliases {
		t.Run(a.method, func(t *testing.T) {
			b := block(t, a.method)
			truth, wantBase := exact.Marginals, "EXACT"
			if a.maxProduct {
				truth, wantBase = exactMax, "JTREE_MINFILL_HUGIN_MAP"
			}
			if b.base != wantBase {
				t.Fatalf("%s's errors are relative to %s, expected %s", a.method, b.base, wantBase)
			}
			md, err := parsePrinted(b.cols["MAXDIFF"])
			if err != nil {
				t.Fatalf("MAXDIFF: %v", err)
			}
			libdaiConverged := md.v <= refTol
			for _, mode := range []struct {
				name string
				c    *lift.Compressed
			}{{"ground", gc}, {"lifted", lc}} {
				t.Run(mode.name, func(t *testing.T) {
					opt := bp.DefaultOptions()
					opt.Schedule, opt.MaxProduct = a.sched, a.maxProduct
					opt.Tol, opt.MaxIter = refTol, refMaxIter
					r, err := bp.Run(context.Background(), mode.c, opt)
					if err != nil {
						t.Fatal(err)
					}
					if r.Converged != libdaiConverged {
						t.Errorf("converged %v after %d iterations; libDAI's final max difference %s", r.Converged, r.Iterations, b.cols["MAXDIFF"])
					}
					w := checkMarginals(t, b, r.Marginal, convergenceSlack)
					t.Logf("%s (%v): %d iterations, max |Δ| to printed marginals %.3g", a.method, a.sched, r.Iterations, w)
					var maxTV, sumTV float64
					for v := 0; v < g.NumVars(); v++ {
						var tv float64
						for x, p := range r.Marginal(v) {
							tv += math.Abs(p - truth[v][x])
						}
						tv /= 2
						maxTV = max(maxTV, tv)
						sumTV += tv
					}
					checkColumn(t, b, "MAX VAR ERR", maxTV, convergenceSlack)
					checkColumn(t, b, "AVG VAR ERR", sumTV/float64(g.NumVars()), convergenceSlack)
					if !a.maxProduct { // bp computes the Bethe log Z for sum-product only
						checkColumn(t, b, "LOGZ ERROR", r.LogZ-exact.LogZ, convergenceSlack)
					}
				})
			}
		})
	}
}
