package main

import (
	"encoding/json"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/internal/shareddata"
)

// The datasets under ../shared/data/mln (see each SOURCE.txt) run through
// "lifted infer"; models that lack declarations use ours in
// examples/mln/datasets. BP is cut at a few iterations: this checks loading
// and grounding, not convergence (hence --allow-unconverged; no marginal is
// compared).
var sharedMLN = shareddata.Path("mln") + "/"

func TestMLNDatasets(t *testing.T) {
	shareddata.Need(t, "mln")
	ours := "../../examples/mln/datasets/"
	cases := []struct {
		name  string
		args  []string
		atoms float64 // ground atoms that are variables (0: don't check)
		fail  string  // expected error, if any
	}{
		{"uw-cse (Tuffy)", []string{sharedMLN + "uwcse/tuffy-cse/prog.mln", "-e", sharedMLN + "uwcse/tuffy-cse/evidence.db", "-q", "advisedBy"}, 4624, ""},
		{"cora classification (Tuffy)", []string{sharedMLN + "cora-class/tuffy-class/prog.mln", "-e", sharedMLN + "cora-class/tuffy-class/evidence.db", "-q", "category"}, 0, ""},
		// Tuffy's rc1000 sample makes its clauses hard; with its evidence
		// they contradict each other (Tuffy's MaxWalkSAT tolerates that)
		{"rc1000 (Tuffy)", []string{sharedMLN + "rc1000/tuffy-rc1000/prog.mln", "-e", sharedMLN + "rc1000/tuffy-rc1000/evidence.db", "-q", "category"}, 0,
			`contradictory evidence: hard formula 2 "refers(a1,a2) v category(a2,a3) v !category(a1,a3)"`},
		{"imdb (Forclift)", []string{sharedMLN + "imdb/forclift/formulas.mln", "-e", sharedMLN + "imdb/forclift/imdb.1.db", "-q", "workedUnder", "--default-weight", "1"}, 0, ""},
		{"imdb (LSM data, our declarations)", []string{ours + "imdb.mln", "-e", sharedMLN + "imdb/lsm/imdb1.db", "-q", "workedUnder"}, 0, ""},
		{"webkb (Forclift)", []string{sharedMLN + "webkb/forclift/webkb.mln", "-e", sharedMLN + "webkb/forclift/corn.db", "-q", "PageClassCourse,PageClassFaculty", "--default-weight", "1"}, 0, ""},
		{"webkb (Alchemy)", []string{sharedMLN + "webkb/alchemy2/webkb.mln", "-q", "PageClass"}, 0, ""},
		{"protein (LSM data, our declarations)", []string{ours + "protein.mln", "-e", sharedMLN + "protein/lsm-train/yeast.1.db", "-q", "function"}, 0, ""},
		{"univ (Alchemy, declaration added)", []string{ours + "univ.mln", "-q", "advisedBy"}, 350, ""},
		{"smokers (Tuffy)", []string{sharedMLN + "smokers/tuffy-smoke/prog.mln", "-e", sharedMLN + "smokers/tuffy-smoke/evidence.db", "-q", "Cancer"}, 0, ""},
		{"smokers (LoMRF)", []string{sharedMLN + "smokers/lomrf/smoking.mln", "-e", sharedMLN + "smokers/lomrf/smoking-test.db", "-q", "Cancer", "--default-weight", "1"}, 0, ""},
		{"smokers (Alchemy)", []string{sharedMLN + "smokers/alchemy2/model.mln", "-e", sharedMLN + "smokers/alchemy2/evidence.db", "-q", "Cancer,Smokes"}, 0, ""},
	}
	for _, c := range cases {
		args := append([]string{"infer", "--quiet", "--method", "lbp", "--max-iter", "5", "--allow-unconverged", "--output-format", "json"}, c.args...)
		out, stderr, code := run(t, args...)
		if c.fail != "" {
			if code != 1 || !strings.Contains(stderr, c.fail) {
				t.Errorf("%s: exit %d, stderr %q, want %q", c.name, code, stderr, c.fail)
			}
			continue
		}
		if code != 0 {
			t.Errorf("%s: exit %d: %s", c.name, code, stderr)
			continue
		}
		var r mlnJSON
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.atoms > 0 && r.Stats["ground_atoms"].(float64) != c.atoms {
			t.Errorf("%s: %v ground atoms, want %v", c.name, r.Stats["ground_atoms"], c.atoms)
		}
		if len(r.Marginals) == 0 || strings.Contains(out, "NaN") {
			t.Errorf("%s: output %.200s", c.name, out)
		}
		t.Logf("%-38s %6v atoms %8v ground formulas %7v factors, %v clusternodes", c.name,
			r.Stats["ground_atoms"], r.Stats["ground_formulas"], r.Stats["factors"], r.Stats["clusternodes"])
	}
}

// Forclift's univ.mln uses per-constant variables (+ph, +pos, +q, +r) and
// starred atoms: PLL learns a weight for each of their copies.
func TestLearnUnivPLL(t *testing.T) {
	dir := shareddata.Need(t, "mln", "univ", "forclift") + "/"
	out, stderr, code := run(t, "learn", "--method", "pll", "--quiet", "-i", dir+"univ.mln", "-t", dir+"univ-train.db")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := mlnfile.Parse("learned.mln", []byte(out))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// 1 + 1 + 2 phases + 2 positions + 1 + 2·2 (q, r) + 4 sign combinations
	if len(m.Formulas) != 15 {
		t.Errorf("%d formulas, want 15:\n%s", len(m.Formulas), out)
	}
	for _, want := range []string{" inPhase(s,Post_Quals) => student(s)\n", " hasPosition(p,Faculty_emeritus) => professor(p)\n", " !inPhase(s,Pre_Quals) v !inPhase(s,Post_Quals)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no line ending in %q:\n%s", want, out)
		}
	}
}
