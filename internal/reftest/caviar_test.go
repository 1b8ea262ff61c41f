package reftest

import (
	"bufio"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	grounder "github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/bp"
)

// caviarGolden reads one of LoMRF's golden files, lines
// "HoldsAt(Meet_ID1_ID3,17) 0.9874", into atom → value.
func caviarGolden(t *testing.T, path string) map[string]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 {
			t.Fatalf("%s:%d: want \"ATOM VALUE\", got %q", path, n, sc.Text())
		}
		v, err := strconv.ParseFloat(fields[1], 64)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		out[fields[0]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// caviarStat reads one "key=value" integer of LoMRF's statistics file.
func caviarStat(t *testing.T, path, key string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key+"="); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatalf("%s: %s: %v", path, key, err)
			}
			return n
		}
	}
	t.Fatalf("%s: no %s", path, key)
	return 0
}

var caviarAtom = regexp.MustCompile(`^HoldsAt\(([^,()]+),([^,()]+)\)$`)

// caviarRun grounds the CAVIAR "meet" MLN of one fold with one evidence
// file and runs lifted BP (sum-product or max-product); it returns
// P(HoldsAt(...) = true) (or the MAP state) per golden atom name.
func caviarRun(t *testing.T, mlnPath, dbPath string, golden map[string]float64, maxProduct bool) map[string]float64 {
	t.Helper()
	m, err := mlnfile.ParseFile(mlnPath)
	if err != nil {
		t.Fatal(err)
	}
	db, err := mlnfile.ReadDBFiles(m, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	gr, err := grounder.Ground(context.Background(), m, db, grounder.Options{Query: []string{"HoldsAt"},
		// As LoMRF runs them: everything but HoldsAt is evidence, also
		// Close where a file has no Close atoms (Alchemy's rule would make
		// it open-world).
		ClosedWorld: []string{"Happens", "StartTime", "Next", "OrientationMove", "Close"}})
	if err != nil {
		t.Fatal(err)
	}
	groundSec := time.Since(start).Seconds()
	if want := caviarStat(t, strings.TrimSuffix(dbPath, ".db")+".statistics", "mrf.atoms.size"); gr.NumAtoms != want {
		t.Errorf("%s: %d ground atoms; LoMRF's mrf.atoms.size is %d", dbPath, gr.NumAtoms, want)
	}
	// LoMRF grounds these in well under a second; a grounder that
	// enumerated the fresh variables of the function terms blindly would
	// not.
	if groundSec > 5 {
		t.Errorf("%s: grounding took %.1f s", dbPath, groundSec)
	}
	// Flooding BP can drive messages to all zeros on these hard formulas;
	// the sequential schedule converges on most files, and damping rescues
	// the others.
	var res *infer.Answer
	for _, cfg := range []struct {
		schedule bp.Schedule
		damping  float64
	}{{bp.Sequential, 0}, {bp.Sequential, 0.5}, {bp.Flood, 0.5}, {bp.Flood, 0.9}} {
		damping := cfg.damping
		opt := infer.Options{Lifted: true}
		if maxProduct {
			opt.Query.Task = infer.MAP
		}
		bo := bp.DefaultOptions()
		bo.Schedule = cfg.schedule
		bo.Damping = damping
		bo.MaxIter = 1000
		res, err = infer.Run(context.Background(), bp.New(bo), gr.Graph, nil, opt)
		if errors.Is(err, bp.ErrNotNormalizable) {
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", dbPath, err)
		}
		t.Logf("%s: %d ground atoms, %d ground formulas, grounding %.3f s; BP (max-product %v, %v, damping %g) %d iterations, converged %v",
			filepath.Base(dbPath), gr.NumAtoms, gr.NumFormulas, groundSec, maxProduct, cfg.schedule, damping, res.Stats.BPIterations, res.Converged)
		break
	}
	if err != nil {
		t.Fatalf("%s: %v", dbPath, err)
	}
	holds := m.PredIndex("HoldsAt")
	out := map[string]float64{}
	for name := range golden {
		sm := caviarAtom.FindStringSubmatch(name)
		if sm == nil {
			t.Fatalf("golden atom %q is not HoldsAt(fluent,time)", name)
		}
		f, ti := db.ConstIndex("fluent", sm[1]), db.ConstIndex("time", sm[2])
		if f < 0 || ti < 0 {
			t.Fatalf("golden atom %s: constant not in the evidence's domains", name)
		}
		v, truth := gr.Var(holds, []int{f, ti})
		if v < 0 {
			t.Fatalf("golden atom %s has no variable (evidence %v)", name, truth)
		}
		mg := res.Marginal(int(v))
		if maxProduct {
			if mg[1] > mg[0] {
				out[name] = 1
			} else {
				out[name] = 0
			}
		} else {
			out[name] = mg[1]
		}
	}
	return out
}

// TestCaviarMeet grounds LoMRF's event-calculus MLN for the CAVIAR "meet"
// activity (Alchemy functions: Happens(running(a6), a2), HoldsAt(meet(a5,
// a6), a4), values such as "Running_ID1 = running(ID1)" in the evidence)
// and compares BP's HoldsAt marginals with LoMRF's MC-SAT marginals
// (*.mcsat.golden) and its MAP states (*.mws.golden). MC-SAT samples and BP
// approximates, so the figures are bounds measured with a margin, not
// equalities; see the log for the actual values. CAVIAR_ALL=1 runs all ten
// folds.
func TestCaviarMeet(t *testing.T) {
	root := dataPath(t, "mln/caviar-meet/lomrf-DN-HI")
	// fold_0 is the README's example (meet never holds there); fold_3 and
	// fold_7 have files where it does.
	folds := []string{"fold_0", "fold_3", "fold_7"}
	if os.Getenv("CAVIAR_ALL") != "" {
		folds = nil
		for i := 0; i < 10; i++ {
			folds = append(folds, "fold_"+strconv.Itoa(i))
		}
	}
	for _, fold := range folds {
		dir := filepath.Join(root, fold)
		dbs, err := filepath.Glob(filepath.Join(dir, "*.db"))
		if err != nil || len(dbs) == 0 {
			t.Fatalf("%s: no .db files (%v)", dir, err)
		}
		for _, dbPath := range dbs {
			base := strings.TrimSuffix(dbPath, ".db")
			mcsat := caviarGolden(t, base+".mcsat.golden")
			mws := caviarGolden(t, base+".mws.golden")
			marg := caviarRun(t, filepath.Join(dir, "meet_trained_func.mln"), dbPath, mcsat, false)
			var sum, mx float64
			agree, mapAgree := 0, 0
			for name, p := range marg {
				d := math.Abs(p - mcsat[name])
				sum += d
				mx = math.Max(mx, d)
				if (p > 0.5) == (mcsat[name] > 0.5) {
					agree++
				}
				if (p > 0.5) == (mws[name] > 0.5) {
					mapAgree++
				}
			}
			n := float64(len(marg))
			state := caviarRun(t, filepath.Join(dir, "meet_trained_func.mln"), dbPath, mws, true)
			maxAgree := 0
			for name, s := range state {
				if s == mws[name] {
					maxAgree++
				}
			}
			t.Logf("%s/%s: %d HoldsAt atoms; |BP - MC-SAT| mean %.4f max %.4f; thresholded BP = thresholded MC-SAT %.2f%%, = MWS %.2f%%; max-product BP = MWS %.2f%%",
				fold, filepath.Base(dbPath), len(marg), sum/n, mx, 100*float64(agree)/n, 100*float64(mapAgree)/n, 100*float64(maxAgree)/n)
			// Measured over all 18 files of the ten folds: max-product
			// agrees with MaxWalkSAT on 100% of the atoms of every file;
			// sum-product is within a mean 0.16 of MC-SAT and agrees, once
			// thresholded, with MaxWalkSAT on at least 85.5% (loopy BP on
			// near-deterministic formulas, often damped and not converged).
			if float64(maxAgree) < 0.99*n {
				t.Errorf("%s: max-product BP agrees with LoMRF's MAP state on only %d of %d atoms", dbPath, maxAgree, len(marg))
			}
			if sum/n > 0.25 {
				t.Errorf("%s: mean |BP - MC-SAT| = %.3f", dbPath, sum/n)
			}
			if float64(mapAgree) < 0.8*n {
				t.Errorf("%s: thresholded BP agrees with LoMRF's MAP state on only %d of %d atoms", dbPath, mapAgree, len(marg))
			}
		}
	}
}
