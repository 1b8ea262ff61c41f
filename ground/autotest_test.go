package ground

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/mln"
)

// Alchemy 2's exact-inference autotests (exdata/autotestmlnfiles) give, for
// a small MLN in Alchemy's test syntax and an evidence file, the ground
// network: the number of ground atoms, the evidence atoms (true), the
// formula weights and every ground clause. This test converts each test MLN
// to .mln syntax, grounds it with all predicates open-world (the listed
// clauses range over all atoms) and compares log Z and the marginals of the
// atoms the evidence leaves open with enumeration of the listed network.
// Atom numbering differs between the two (Alchemy numbers atoms as the
// grounding first meets them), so marginals are compared as sorted lists.

var autotestDir = shareddata.Path("mln", "misc", "alchemy2-autotest")

// convertAutotestMLN turns "#domains dom1={0,1} #predicates R(dom1)
// #formulas (R(x) | S(x,y)) ::0.5" into .mln syntax.
func convertAutotestMLN(src string) string {
	var b strings.Builder
	formula := regexp.MustCompile(`^\((.*)\)\s*::\s*(\S+)$`)
	for _, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if m := formula.FindStringSubmatch(line); m != nil {
			b.WriteString(m[2] + " " + strings.ReplaceAll(m[1], "|", " v ") + "\n")
			continue
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

type gtNetwork struct {
	atoms    int
	evidence []int // 0-based
	weights  []float64
	clauses  [][][]int // per formula: clauses of signed 1-based atoms
}

func readGroundTruth(t *testing.T, path string) gtNetwork {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fs := strings.Fields(sc.Text()); len(fs) > 0 {
			lines = append(lines, fs)
		}
	}
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return x
	}
	var g gtNetwork
	g.atoms = int(num(lines[0][0]))
	if lines[1][0] != "NOEVIDENCE" {
		for _, s := range lines[1] {
			g.evidence = append(g.evidence, int(num(s)))
		}
	}
	nf := int(num(lines[2][0]))
	for _, s := range lines[2][1 : 1+nf] {
		g.weights = append(g.weights, num(s))
	}
	i := 3
	zeroBased := false
	for fi := 0; fi < nf; fi++ {
		var n int
		if len(lines[i]) == 1 {
			n = int(num(lines[i][0]))
		} else {
			i-- // groundtruth9xx lists its clauses without a count
			n = len(lines) - i - 1
		}
		var cls [][]int
		for _, l := range lines[i+1 : i+1+n] {
			var c []int
			for _, s := range l {
				x := int(num(s))
				zeroBased = zeroBased || x == 0
				c = append(c, x)
			}
			cls = append(cls, c)
		}
		g.clauses = append(g.clauses, cls)
		i += 1 + n
	}
	if zeroBased { // groundtruth9xx numbers atoms from 0 and has no negations
		for _, cls := range g.clauses {
			for _, c := range cls {
				for j := range c {
					c[j]++
				}
			}
		}
	}
	return g
}

// solve enumerates the listed network with the evidence atoms true.
func (g gtNetwork) solve() (float64, []float64) {
	ev := make([]bool, g.atoms)
	for _, e := range g.evidence {
		ev[e] = true
	}
	var free []int
	for a := 0; a < g.atoms; a++ {
		if !ev[a] {
			free = append(free, a)
		}
	}
	x := make([]bool, g.atoms)
	for _, e := range g.evidence {
		x[e] = true
	}
	lw := make([]float64, 1<<len(free))
	mx := math.Inf(-1)
	for k := range lw {
		for i, a := range free {
			x[a] = k>>i&1 == 1
		}
		for fi, cls := range g.clauses {
			for _, c := range cls {
				sat := false
				for _, l := range c {
					sat = sat || (l > 0) == x[abs(l)-1]
				}
				if sat {
					lw[k] += g.weights[fi]
				}
			}
		}
		mx = math.Max(mx, lw[k])
	}
	z := 0.0
	marg := make([]float64, len(free))
	for k, l := range lw {
		w := math.Exp(l - mx)
		z += w
		for i := range free {
			if k>>i&1 == 1 {
				marg[i] += w
			}
		}
	}
	for i := range marg {
		marg[i] /= z
	}
	return mx + math.Log(z), marg
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func TestAlchemyAutotest(t *testing.T) {
	tests, _ := filepath.Glob(filepath.Join(autotestDir, "testmln*.txt"))
	if len(tests) == 0 {
		shareddata.Skipf(t, "%s not found (shared data absent)", autotestDir)
	}
	checked := 0
	for _, path := range tests {
		id := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "testmln"), ".txt")
		gtPath := filepath.Join(autotestDir, "groundtruth"+id+".txt")
		if _, err := os.Stat(gtPath); err != nil {
			continue // testmln.txt duplicates testmln1.txt
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		m, err := mlnfile.Parse(filepath.Base(path)+".mln", []byte(convertAutotestMLN(string(src))))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		db := mln.NewDB(m)
		if evs, err := os.ReadFile(filepath.Join(autotestDir, "testdb"+id+".txt")); err == nil {
			if db, err = mlnfile.ReadDB(strings.NewReader(string(evs)), "testdb"+id+".txt", m); err != nil {
				t.Fatal(err)
			}
		}
		var all []string
		for _, p := range m.Preds {
			all = append(all, p.Name)
		}
		gr, err := Ground(context.Background(), m, db, Options{OpenWorld: all})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		logZ, marg, ok := exactOf(gr)
		if !ok {
			t.Fatalf("%s: too large", path)
		}
		gt := readGroundTruth(t, gtPath)
		// Alchemy lists only atoms of predicates its formulas use; the
		// others only double Z each here.
		logZ -= gr.at.logUnused
		if gr.NumAtoms+len(gt.evidence) != gt.atoms {
			t.Fatalf("%s: %d unknown + %d evidence atoms, Alchemy has %d atoms", path, gr.NumAtoms, len(gt.evidence), gt.atoms)
		}
		var groundings float64
		for _, st := range gr.Formulas {
			groundings += st.Groundings
		}
		nc := 0
		for _, cls := range gt.clauses {
			nc += len(cls)
		}
		if groundings != float64(nc) {
			t.Fatalf("%s: %v groundings, Alchemy lists %d clauses", path, groundings, nc)
		}
		gtZ, gtM := gt.solve()
		if math.Abs(logZ-gtZ) > 1e-9*math.Max(1, math.Abs(gtZ)) {
			t.Fatalf("%s: log Z %v, ground truth %v", path, logZ, gtZ)
		}
		var ours []float64
		for v := 0; v < gr.NumAtoms; v++ {
			ours = append(ours, marg[v][1])
		}
		slices.Sort(ours)
		slices.Sort(gtM)
		for i := range ours {
			if math.Abs(ours[i]-gtM[i]) > 1e-9 {
				t.Fatalf("%s: marginals %v, ground truth %v", path, ours, gtM)
			}
		}
		checked++
	}
	t.Logf("%d Alchemy autotests agree", checked)
}
