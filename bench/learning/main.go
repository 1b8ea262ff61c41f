// Command learning runs the leave-one-area-out protocol of UW-CSE
// (Richardson and Domingos 2006; Lowd and Domingos 2007) on
// ../shared/data/mln/uwcse/alchemy: for each of the five areas, learn the
// weights of the MLN discriminatively on the other four (advisedBy the
// non-evidence predicate, each area its own database), infer
// P(advisedBy(x, y)) on the held-out area given its evidence, and score
// every advisedBy(x, y) over the area's persons against the truth (closed
// world; package score: CLL with probabilities clipped to [1e-4, 1−1e-4],
// AUC-PR with Davis and Goadrich's interpolation).
//
// Learning and inference run the plain command lines a user types, as
// separate processes, so that lifted and Alchemy are measured alike (CPU
// seconds are the child processes' user + system time):
//
//	lifted learnwts -d -i MLN -o LEARNED -t A.db,B.db,C.db,D.db -ne advisedBy -multipleDatabases
//	lifted infer -i LEARNED -e AREA.evidence.db -r AREA.result -q advisedBy
//
// -learn-args and -infer-args append flags to lifted's command lines;
// -alchemy DIR runs Alchemy's learnwts and infer from DIR the same way
// (Alchemy's -d has no -dNumIter default short enough here: pass
// -alchemy-learn-args). Two trivial baselines are scored on the same
// atoms: the type base rate (the fraction of true advisedBy among the
// training pairs with the same student(x)? and professor(y)?), and a lookup
// table on three features of the pair (student(x) ∧ professor(y)?,
// co-authored a publication?, x a TA of a course y taught that quarter?);
// rates are (true + ½)/(pairs + 1) over the four training areas.
//
// One markdown table per run on stdout: model, learner, area, CLL, AUC-PR,
// learn CPU s, infer CPU s, converged?, infer's exit status.
//
//	go run ./bench/learning -models subset -learn-args '--max-iter 10'
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/score"
)

var areas = []string{"ai", "graphics", "language", "systems", "theory"}

func main() {
	data := flag.String("data", "", "the UW-CSE folder (default ../shared/data/mln/uwcse/alchemy)")
	lifted := flag.String("lifted", "", "the lifted binary (default: go build ./cmd/lifted into a temporary folder)")
	alchemy := flag.String("alchemy", "", "folder with Alchemy's learnwts and infer binaries (empty: Alchemy not run)")
	models := flag.String("models", "full,subset", "which MLNs: full (uw-cse.mln, 94 formulas), subset (uw-cse-advisedBy.mln, the 27 with advisedBy)")
	only := flag.String("areas", strings.Join(areas, ","), "held-out areas")
	learnArgs := flag.String("learn-args", "", "flags appended to lifted learnwts's command line")
	inferArgs := flag.String("infer-args", "", "flags appended to lifted infer's command line")
	alchemyLearnArgs := flag.String("alchemy-learn-args", "", "flags appended to Alchemy learnwts's command line")
	alchemyInferArgs := flag.String("alchemy-infer-args", "", "flags appended to Alchemy infer's command line")
	out := flag.String("out", "", "folder for the learned MLNs, results and logs (default: a temporary folder)")
	baselines := flag.Bool("baselines", true, "score the two baselines")
	noLifted := flag.Bool("no-lifted", false, "do not run lifted (the baselines and Alchemy only)")
	timeout := flag.Duration("timeout", 30*time.Minute, "limit per command")
	flag.Parse()
	if *data == "" {
		*data = shareddata.Path("mln", "uwcse", "alchemy")
	}
	if *out == "" {
		d, err := os.MkdirTemp("", "bench-learning")
		if err != nil {
			fatal(err)
		}
		*out = d
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fatal(err)
	}
	if *lifted == "" {
		*lifted = filepath.Join(*out, "lifted")
		if b, err := exec.Command("go", "build", "-o", *lifted, "github.com/lifted-dev/lifted/cmd/lifted").CombinedOutput(); err != nil {
			fatal(fmt.Errorf("go build ./cmd/lifted: %v\n%s", err, b))
		}
	}
	full := filepath.Join(*data, "uw-cse.mln")
	held := strings.Split(*only, ",")
	for _, a := range held {
		if !slices.Contains(areas, a) {
			fatal(fmt.Errorf("unknown area %q (want %s)", a, strings.Join(areas, ",")))
		}
	}
	b := &bench{data: *data, out: *out, full: full, timeout: *timeout}

	fmt.Printf("UW-CSE leave one area out (%s); learn on the other four areas, score every advisedBy(x,y) of the held-out area (score.Score, closed world). CPU: child processes' user+system s. %s\n\n", *data, time.Now().UTC().Format(time.RFC3339))
	fmt.Println("| model | learner | area | atoms | true | CLL | AUC-PR | learn CPU s | infer CPU s | converged | infer exit |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	if *baselines {
		for _, kind := range []string{"type base rate", "3-feature lookup"} {
			for _, a := range held {
				r, err := b.baseline(kind, a)
				if err != nil {
					fatal(err)
				}
				fmt.Printf("| — | %s | %s | %d | %d | %.4f | %.3f | | | | |\n", kind, a, r.Atoms, r.Positives, r.CLL, r.AUCPR)
			}
		}
	}
	for _, mdl := range strings.FieldsFunc(*models, func(r rune) bool { return r == ',' }) {
		var path string
		switch mdl {
		case "full":
			path = full
		case "subset":
			path = filepath.Join(*data, "uw-cse-advisedBy.mln")
		default:
			fatal(fmt.Errorf("unknown model %q (want full or subset)", mdl))
		}
		for _, a := range held {
			if !*noLifted {
				row := b.run(mdl, path, a, "lifted", *lifted, *lifted, strings.Fields(*learnArgs), strings.Fields(*inferArgs))
				fmt.Println(row)
			}
			if *alchemy != "" {
				row := b.run(mdl, path, a, "Alchemy", filepath.Join(*alchemy, "learnwts"), filepath.Join(*alchemy, "infer"), strings.Fields(*alchemyLearnArgs), strings.Fields(*alchemyInferArgs))
				fmt.Println(row)
			}
		}
	}
	fmt.Fprintf(os.Stderr, "learning: files in %s\n", *out)
}

type bench struct {
	data, out, full string
	timeout         time.Duration
}

// run learns on the areas other than held and infers on held with one
// system's binaries, and returns the table row.
func (b *bench) run(mdl, model, held, system, learnBin, inferBin string, learnArgs, inferArgs []string) string {
	var train []string
	for _, a := range areas {
		if a != held {
			train = append(train, filepath.Join(b.data, a+".db"))
		}
	}
	tag := fmt.Sprintf("%s-%s-%s", strings.ToLower(system), mdl, held)
	learned := filepath.Join(b.out, tag+".mln")
	result := filepath.Join(b.out, tag+".result")
	var largs, iargs []string
	if system == "lifted" {
		largs = append(largs, "learnwts")
		iargs = append(iargs, "infer")
	}
	largs = append(largs, "-d", "-i", model, "-o", learned, "-t", strings.Join(train, ","), "-ne", "advisedBy", "-multipleDatabases")
	largs = append(largs, learnArgs...)
	iargs = append(iargs, "-i", learned, "-e", filepath.Join(b.data, held+".evidence.db"), "-r", result, "-q", "advisedBy")
	iargs = append(iargs, inferArgs...)
	learner := system + " " + strings.Join(append([]string{"-d"}, learnArgs...), " ")
	lcode, lcpu, lerr := b.command(tag+".learn", learnBin, largs)
	conv := "?"
	if system == "lifted" {
		conv = convergence(lerr)
	}
	if lcode != 0 {
		return fmt.Sprintf("| %s | %s | %s | | | learning failed (exit %d) | | %.1f | | %s | |", mdl, learner, held, lcode, lcpu, conv)
	}
	icode, icpu, _ := b.command(tag+".infer", inferBin, iargs)
	r, err := b.score(result)
	if err != nil {
		return fmt.Sprintf("| %s | %s | %s | | | no answer (%v) | | %.1f | %.1f | %s | %d |", mdl, learner, held, err, lcpu, icpu, conv, icode)
	}
	return fmt.Sprintf("| %s | %s | %s | %d | %d | %.4f | %.3f | %.1f | %.1f | %s | %d |", mdl, learner, held, r.Atoms, r.Positives, r.CLL, r.AUCPR, lcpu, icpu, conv, icode)
}

// command runs bin with args, stderr to OUT/tag.log, and returns the exit
// status, the child's CPU seconds and its stderr.
func (b *bench) command(tag, bin string, args []string) (int, float64, string) {
	cmd := exec.Command(bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	timer := time.AfterFunc(b.timeout, func() {
		if cmd.Process != nil {
			cmd.Process.Kill()
		}
	})
	err := cmd.Run()
	timer.Stop()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		fatal(err)
	}
	cpu := math.NaN()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		cpu = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	log := fmt.Sprintf("$ %s %s\n%s\nexit %d, %.1f CPU s\n", bin, strings.Join(args, " "), stderr.String(), code, cpu)
	os.WriteFile(filepath.Join(b.out, tag+".log"), []byte(log), 0o644)
	return code, cpu, stderr.String()
}

// convergence reads learn's summary line ("lifted: disc: … s (STATUS)", or
// dn, dscg, vp):
// "yes" when STATUS says it converged, else STATUS up to its first ";".
func convergence(stderr string) string {
	for _, l := range strings.Split(stderr, "\n") {
		i := strings.Index(l, " s (")
		if !(strings.HasPrefix(l, "lifted: disc: ") || strings.HasPrefix(l, "lifted: dn: ") || strings.HasPrefix(l, "lifted: dscg: ") || strings.HasPrefix(l, "lifted: vp: ")) || i < 0 {
			continue
		}
		st := strings.TrimSuffix(l[i+4:], ")")
		if strings.HasPrefix(st, "converged") {
			return "yes"
		}
		if j := strings.Index(st, ";"); j >= 0 {
			st = st[:j]
		}
		return "no: " + st
	}
	return "?"
}

// score scores a result file against the held-out area's truth.
func (b *bench) score(result string) (score.Metrics, error) {
	m, err := mlnfile.ParseFile(b.full)
	if err != nil {
		return score.Metrics{}, err
	}
	area := strings.SplitN(filepath.Base(result), "-", 3)[2]
	area = strings.TrimSuffix(area, ".result")
	truth, err := mlnfile.ReadDBFiles(m, filepath.Join(b.data, area+".db"))
	if err != nil {
		return score.Metrics{}, err
	}
	ans, err := score.ReadAnswerFile(result)
	if err != nil {
		return score.Metrics{}, err
	}
	r, err := score.Score(m, truth, nil, ans, score.Options{Preds: []string{"advisedBy"}, Missing: math.NaN()})
	if err != nil {
		return score.Metrics{}, err
	}
	return r.Overall, nil
}

// baseline scores one of the two trivial predictors on area held.
func (b *bench) baseline(kind, held string) (score.Metrics, error) {
	m, err := mlnfile.ParseFile(b.full)
	if err != nil {
		return score.Metrics{}, err
	}
	feats := func(db *mln.DB) ([]int, []bool) {
		return pairFeatures(m, db, kind == "3-feature lookup")
	}
	var pos, tot [8]float64
	var test *mln.DB
	for _, a := range areas {
		db, err := mlnfile.ReadDBFiles(m, filepath.Join(b.data, a+".db"))
		if err != nil {
			return score.Metrics{}, err
		}
		if a == held {
			test = db
			continue
		}
		cells, ys := feats(db)
		for i, c := range cells {
			tot[c]++
			if ys[i] {
				pos[c]++
			}
		}
	}
	cells, ys := feats(test)
	p := make([]float64, len(cells))
	for i, c := range cells {
		p[i] = (pos[c] + 0.5) / (tot[c] + 1)
	}
	return score.Compute(p, ys, score.DefaultClip), nil
}

// pairFeatures returns, for every ordered pair (x, y) of db's persons (x
// slowest), its cell and whether advisedBy(x, y) is true. The cell is
// student(x) + 2·professor(y) for the type base rate; with lookup,
// (student(x) ∧ professor(y)) + 2·co-authored + 4·TA, where TA is
// ta(c, x, q) ∧ taughtBy(c, y, q) for some course c and quarter q.
func pairFeatures(m *mln.MLN, db *mln.DB, lookup bool) ([]int, []bool) {
	persons := db.Domain("person")
	n := len(persons)
	unary := func(pred string) []bool {
		out := make([]bool, n)
		p := m.PredIndex(pred)
		for i := range n {
			t, ok := db.Lookup(p, []int{i})
			out[i] = ok && t == mln.True
		}
		return out
	}
	student, professor := unary("student"), unary("professor")
	coauthor := map[[2]int]bool{}
	ta := map[[2]int]bool{}
	byTitle := map[int][]int{}
	type cq struct{ c, q int }
	taOf, teachOf := map[cq][]int{}, map[cq][]int{}
	pub, taP, taught := m.PredIndex("publication"), m.PredIndex("ta"), m.PredIndex("taughtBy")
	for _, a := range db.Atoms {
		if a.Truth != mln.True {
			continue
		}
		switch a.Pred {
		case pub: // publication(title, person)
			byTitle[a.Args[0]] = append(byTitle[a.Args[0]], a.Args[1])
		case taP: // ta(course, person, quarter)
			k := cq{a.Args[0], a.Args[2]}
			taOf[k] = append(taOf[k], a.Args[1])
		case taught: // taughtBy(course, person, quarter)
			k := cq{a.Args[0], a.Args[2]}
			teachOf[k] = append(teachOf[k], a.Args[1])
		}
	}
	for _, ps := range byTitle {
		for _, x := range ps {
			for _, y := range ps {
				coauthor[[2]int{x, y}] = true
			}
		}
	}
	for k, xs := range taOf {
		for _, x := range xs {
			for _, y := range teachOf[k] {
				ta[[2]int{x, y}] = true
			}
		}
	}
	adv := m.PredIndex("advisedBy")
	var cells []int
	var ys []bool
	for x := range n {
		for y := range n {
			c := 0
			if lookup {
				if student[x] && professor[y] {
					c = 1
				}
				if coauthor[[2]int{x, y}] && x != y {
					c += 2
				}
				if ta[[2]int{x, y}] {
					c += 4
				}
			} else {
				if student[x] {
					c = 1
				}
				if professor[y] {
					c += 2
				}
			}
			t, ok := db.Lookup(adv, []int{x, y})
			cells = append(cells, c)
			ys = append(ys, ok && t == mln.True)
		}
	}
	return cells, ys
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "learning:", err)
	os.Exit(1)
}
