// Command sampling runs the experiments of Section 5 of the lifted blocked
// Gibbs paper (Venugopal and Gogate, NIPS 2012) with the lifted command:
// for each of the paper's four MLNs and each domain size it draws 10% of the
// ground atoms as random evidence, computes the exact marginals of the other
// atoms (wfomc where it lifts the model within a budget, otherwise a long
// run of the best sampler available, said in the output), then runs every
// method under a series of time limits and records the average KL divergence
// and the mean absolute error of its marginals against the reference.
//
// It drives a built lifted binary, exactly as a user would:
//
//	go build -o /tmp/lifted ./cmd/lifted
//	go run ./experiments/sampling -bin /tmp/lifted -out experiments/sampling
//
// and writes results.csv, RESULTS-table.md and one PNG per model (error
// against time at the largest domain size) into -out. Methods the binary
// does not know (lbg before it is built) are skipped, saying so.
package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// model is one of the paper's MLNs, written for a domain size n.
type model struct {
	name, title string
	// text returns the MLN for domain size n.
	text func(n int) string
	// preds lists the predicates with their argument domains (in order).
	preds []pred
	// domains gives the size of each domain for n.
	domains func(n int) map[string]int
}

type pred struct {
	name string
	args []string
}

func consts(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s%d", prefix, i)
	}
	return b.String()
}

var models = []model{
	{
		name:  "M1-rs",
		title: "M1: 0.8 R(x) v S(x,y); 1.2 S(x,y) v T(y,z)",
		text: func(n int) string {
			return fmt.Sprintf("d = {%s}\nR(d)\nS(d,d)\nT(d,d)\n0.8 R(x) v S(x,y)\n1.2 S(x,y) v T(y,z)\n", consts("A", n))
		},
		preds:   []pred{{"R", []string{"d"}}, {"S", []string{"d", "d"}}, {"T", []string{"d", "d"}}},
		domains: func(n int) map[string]int { return map[string]int{"d": n} },
	},
	{
		name:  "M2-sac",
		title: "M2: 1.5 Asthma(x) => !Smokes(x); 1.1 Asthma(x) ^ Friends(x,y) => !Smokes(y); 2.0 Smokes(x) => Cancer(x)",
		text: func(n int) string {
			return fmt.Sprintf("person = {%s}\nAsthma(person)\nSmokes(person)\nCancer(person)\nFriends(person,person)\n"+
				"1.5 Asthma(x) => !Smokes(x)\n1.1 Asthma(x) ^ Friends(x,y) => !Smokes(y)\n2.0 Smokes(x) => Cancer(x)\n", consts("P", n))
		},
		preds: []pred{{"Asthma", []string{"person"}}, {"Smokes", []string{"person"}}, {"Cancer", []string{"person"}},
			{"Friends", []string{"person", "person"}}},
		domains: func(n int) map[string]int { return map[string]int{"person": n} },
	},
	{
		name:  "M3-rst",
		title: "M3: 0.8 R(x,y) v S(y,z); 1.2 S(y,z) v T(z,u)",
		text: func(n int) string {
			return fmt.Sprintf("d = {%s}\nR(d,d)\nS(d,d)\nT(d,d)\n0.8 R(x,y) v S(y,z)\n1.2 S(y,z) v T(z,u)\n", consts("A", n))
		},
		preds:   []pred{{"R", []string{"d", "d"}}, {"S", []string{"d", "d"}}, {"T", []string{"d", "d"}}},
		domains: func(n int) map[string]int { return map[string]int{"d": n} },
	},
	{
		// The WebKB MLN of ../shared/data/mln/webkb/alchemy2/webkb.mln
		// (Alchemy's; its weights), with n pages, 5 classes and 26 words.
		name:  "M4-webkb",
		title: "M4: WebKB (Alchemy's webkb.mln: Has(p,w) => PageClass(p,c); PageClass(p1,c1) ^ Linked(p1,p2) => PageClass(p2,c2); Linked(p1,p2) => Linked(p2,p1)), n pages, 5 classes, 26 words",
		text: func(n int) string {
			return fmt.Sprintf("page = {%s}\nclass = {C1,C2,C3,C4,C5}\nword = {%s}\nPageClass(page,class)\nHas(page,word)\nLinked(page,page)\n"+
				"0.0345 Has(p,w) => PageClass(p,c)\n0.014 PageClass(p1,c1) ^ Linked(p1,p2) => PageClass(p2,c2)\n0.0074322 Linked(p1,p2) => Linked(p2,p1)\n",
				consts("P", n), consts("W", 26))
		},
		preds: []pred{{"PageClass", []string{"page", "class"}}, {"Has", []string{"page", "word"}}, {"Linked", []string{"page", "page"}}},
		domains: func(n int) map[string]int {
			return map[string]int{"page": n, "class": 5, "word": 26}
		},
	},
}

var prefix = map[string]string{"d": "A", "person": "P", "page": "P", "class": "C", "word": "W"}

// atoms lists every ground atom of the model for domain size n.
func atoms(m model, n int) []string {
	dom := m.domains(n)
	var out []string
	for _, p := range m.preds {
		idx := make([]int, len(p.args))
		for {
			parts := make([]string, len(p.args))
			for i, a := range p.args {
				parts[i] = fmt.Sprintf("%s%d", prefix[a], idx[i]+1)
			}
			out = append(out, p.name+"("+strings.Join(parts, ",")+")")
			i := len(idx) - 1
			for ; i >= 0; i-- {
				idx[i]++
				if idx[i] < dom[p.args[i]] {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	return out
}

type result struct {
	marg    map[string]float64
	seconds float64
	cpu     float64 // user + system seconds of the process
	stats   map[string]any
}

// run runs the lifted binary and parses its JSON answer.
func run(ctx context.Context, bin string, args ...string) (*result, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	secs := time.Since(start).Seconds()
	if err != nil {
		return nil, &runError{cmd: bin + " " + strings.Join(args, " "), err: err, msg: strings.TrimSpace(lastLine(errb.String()))}
	}
	var js struct {
		Marginals map[string]float64 `json:"marginals"`
		Stats     map[string]any     `json:"stats"`
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil {
		return nil, fmt.Errorf("parsing the JSON answer: %v", err)
	}
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	return &result{marg: js.Marginals, seconds: secs, cpu: cpu, stats: js.Stats}, nil
}

// runError is a failed run of the binary: the command, its exit and the
// last line it wrote to stderr (lifted's error message).
type runError struct {
	cmd, msg string
	err      error
}

func (e *runError) Error() string { return fmt.Sprintf("%s: %v: %s", e.cmd, e.err, e.msg) }

// why is the error message of a failed run without the command line.
func why(err error) string {
	var re *runError
	if errors.As(err, &re) {
		return re.msg
	}
	return err.Error()
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// errs returns the average binary KL divergence KL(exact || est) and the
// mean absolute error over the reference's atoms. Estimates are clipped
// to [1e-6, 1-1e-6] for KL (a sampler's 0 or 1 against an exact 0.3 would
// otherwise be infinite).
func errs(ref, est map[string]float64) (kl, mae float64, err error) {
	const eps = 1e-6
	for a, p := range ref {
		q, ok := est[a]
		if !ok {
			return 0, 0, fmt.Errorf("no estimate for %s", a)
		}
		mae += math.Abs(p - q)
		q = math.Min(math.Max(q, eps), 1-eps)
		pp := math.Min(math.Max(p, 0), 1)
		if pp > 0 {
			kl += pp * math.Log(pp/q)
		}
		if pp < 1 {
			kl += (1 - pp) * math.Log((1-pp)/(1-q))
		}
	}
	k := float64(len(ref))
	return kl / k, mae / k, nil
}

type row struct {
	model     string
	n         int
	method    string
	budget    float64 // seconds asked (0 for lbp)
	seconds   float64 // wall time of the run
	kl, mae   float64
	reference string
	// note says why a run has no estimate (kl and mae NaN): the
	// grounding refused, no sample within the time limit, ...
	note string
}

func main() {
	bin := flag.String("bin", "", "the lifted binary (go build -o /tmp/lifted ./cmd/lifted)")
	out := flag.String("out", "experiments/sampling", "output directory")
	sizesF := flag.String("sizes", "5,10,20,50,100,200", "domain sizes")
	budgetsF := flag.String("budgets", "0.25,0.5,1,2,4", "time limits of the samplers, seconds")
	methodsF := flag.String("methods", "bgibbs,mcsat,lbp,lbg", "methods")
	modelsF := flag.String("models", "", "models to run (default all: M1-rs,M2-sac,M3-rst,M4-webkb)")
	exactBudget := flag.Duration("exact-budget", 60*time.Second, "time allowed to wfomc for the reference")
	refTime := flag.Duration("ref-time", 60*time.Second, "length of the long sampler run used as reference where wfomc does not finish")
	seed := flag.Int64("seed", 1, "seed of the evidence and of every sampler")
	burnIn := flag.Int("burn-in", 10, "burn-in steps of every sampler run (inside its time limit)")
	budgetsAtF := flag.String("budgets-at", "", "time limits for some sizes, overriding -budgets: 200=0.5,1,2,4,30;100=1,2")
	refTimesF := flag.String("ref-times", "", "reference run length per domain size, overriding -ref-time: 200=60s,100=30s")
	runTimeout := flag.Duration("run-timeout", 120*time.Second, "a run is stopped (its row says so) after its time limit plus this (lifted BP: this)")
	merge := flag.Bool("merge", false, "keep the rows of results.csv in -out for the (model, size) pairs not run now")
	writeDir := flag.String("write", "", "only write each model's .mln and .db (with its random evidence) for every size into this directory, run nothing")
	timingF := flag.String("timing", "", "instead of the experiment, time setup and steps side by side: name=binary,... (e.g. before=/tmp/old,after=/tmp/new)")
	timingMethods := flag.String("timing-methods", "lbg", "methods of -timing")
	timingSamples := flag.String("timing-samples", "2,22", "the two sample counts of -timing")
	timingReps := flag.Int("timing-reps", 3, "repetitions of -timing (medians)")
	flag.Parse()
	if *timingF != "" {
		var bins [][2]string
		for _, kv := range strings.Split(*timingF, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				check(fmt.Errorf("-timing: %q is not name=binary", kv))
			}
			bins = append(bins, [2]string{k, v})
		}
		sizes, err := ints(*sizesF)
		check(err)
		ss, err := ints(*timingSamples)
		check(err)
		if len(ss) != 2 || ss[0] >= ss[1] {
			check(fmt.Errorf("-timing-samples wants two increasing counts"))
		}
		var ms []model
		for _, m := range models {
			if *modelsF == "" || contains(strings.Split(*modelsF, ","), m.name) {
				ms = append(ms, m)
			}
		}
		work, err := os.MkdirTemp("", "sampling")
		check(err)
		defer os.RemoveAll(work)
		check(timing(context.Background(), os.Stdout, bins, work, ms, sizes, strings.Split(*timingMethods, ","), ss[0], ss[1], *timingReps, *runTimeout, *seed))
		return
	}
	if *writeDir != "" {
		sizes, err := ints(*sizesF)
		check(err)
		check(os.MkdirAll(*writeDir, 0o755))
		for _, m := range models {
			if *modelsF != "" && !contains(strings.Split(*modelsF, ","), m.name) {
				continue
			}
			for _, n := range sizes {
				_, _, err := writeModel(*writeDir, m, n, *seed)
				check(err)
			}
		}
		return
	}
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "sampling: -bin is required (go build -o /tmp/lifted ./cmd/lifted)")
		os.Exit(2)
	}
	sizes, err := ints(*sizesF)
	check(err)
	budgets, err := floats(*budgetsF)
	check(err)
	methods := strings.Split(*methodsF, ",")
	check(os.MkdirAll(*out, 0o755))
	work, err := os.MkdirTemp("", "sampling")
	check(err)
	defer os.RemoveAll(work)
	ctx := context.Background()

	avail := map[string]bool{}
	for _, m := range methods {
		avail[m] = known(ctx, *bin, work, m)
		if !avail[m] {
			fmt.Fprintf(os.Stderr, "sampling: %s does not know method %q; skipped\n", *bin, m)
		}
	}
	budgetsAt := map[int][]float64{}
	if *budgetsAtF != "" {
		for _, kv := range strings.Split(*budgetsAtF, ";") {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.Atoi(k)
			check(err)
			budgetsAt[n], err = floats(v)
			check(err)
		}
	}
	refTimes := map[int]time.Duration{}
	if *refTimesF != "" {
		for _, kv := range strings.Split(*refTimesF, ",") {
			k, v, _ := strings.Cut(kv, "=")
			n, err := strconv.Atoi(k)
			check(err)
			d, err := time.ParseDuration(v)
			check(err)
			refTimes[n] = d
		}
	}
	var rows []row
	runNow := func(model string, n int) bool {
		return (*modelsF == "" || contains(strings.Split(*modelsF, ","), model)) && slices.Contains(sizes, n)
	}
	if *merge {
		old, err := readRows(filepath.Join(*out, "results.csv"))
		check(err)
		for _, r := range old {
			if !runNow(r.model, r.n) {
				rows = append(rows, r)
			}
		}
	}
	for _, m := range models {
		if *modelsF != "" && !contains(strings.Split(*modelsF, ","), m.name) {
			continue
		}
		for _, n := range sizes {
			rt := *refTime
			if d, ok := refTimes[n]; ok {
				rt = d
			}
			bs := budgets
			if b, ok := budgetsAt[n]; ok {
				bs = b
			}
			r, err := experiment(ctx, *bin, work, m, n, methods, avail, bs, *exactBudget, rt, *runTimeout, *seed, *burnIn)
			if err != nil {
				fmt.Fprintf(os.Stderr, "sampling: %s n=%d: %v\n", m.name, n, err)
				r = append(r, row{model: m.name, n: n, method: "reference", kl: math.NaN(), mae: math.NaN(), note: shorten(err.Error())})
			}
			rows = append(rows, r...)
			sortRows(rows)
			check(write(*out, rows)) // keep what is done if a later size fails
		}
	}
	check(write(*out, rows))
	check(plots(*out, rows))
}

func experiment(ctx context.Context, bin, work string, m model, n int, methods []string, avail map[string]bool,
	budgets []float64, exactBudget, refTime, runTimeout time.Duration, seed int64, burnIn int) ([]row, error) {
	mlnPath, dbPath, err := writeModel(work, m, n, seed)
	if err != nil {
		return nil, err
	}
	all := atoms(m, n)
	nev := len(all) / 10
	var qs []string
	for _, p := range m.preds {
		qs = append(qs, p.name)
	}
	base := []string{"infer", mlnPath, "-e", dbPath, "-q", strings.Join(qs, ","), "--output-format", "json", "--quiet",
		"--seed", strconv.FormatInt(seed, 10)}

	// The reference.
	refName := "exact (wfomc)"
	ectx, cancel := context.WithTimeout(ctx, exactBudget)
	ref, err := run(ectx, bin, append(base, "--method", "wfomc")...)
	if errors.Is(ectx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("no answer within %s", exactBudget)
	}
	cancel()
	if err != nil {
		long := ""
		for _, c := range []string{"lbg", "bgibbs", "gibbs"} {
			if avail[c] || (c == "gibbs" && known(ctx, bin, work, c)) {
				long = c
				break
			}
		}
		if long == "" {
			return nil, fmt.Errorf("no reference: wfomc: %v", err)
		}
		refName = fmt.Sprintf("long %s run (%s; wfomc: %s)", long, refTime, shorten(why(err)))
		rctx, cancel := context.WithTimeout(ctx, refTime+runTimeout)
		ref, err = run(rctx, bin, append(base, "--method", long, "--samples", "0", "--time-limit", refTime.String(), "--burn-in", "100", "--allow-unconverged",
			"--seed", strconv.FormatInt(seed+1000, 10))...)
		if errors.Is(rctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("stopped after %s", refTime+runTimeout)
		}
		cancel()
		if err != nil {
			return nil, fmt.Errorf("reference run (%s %s): %v", long, refTime, why(err))
		}
	}
	fmt.Fprintf(os.Stderr, "sampling: %s n=%d: %d atoms, %d evidence, reference %s (%.2fs)\n", m.name, n, len(all), nev, refName, ref.seconds)

	var rows []row
	for _, meth := range methods {
		if !avail[meth] {
			continue
		}
		bs := budgets
		if meth == "lbp" || meth == "bp" {
			bs = []float64{0}
		}
		for _, b := range bs {
			args := append([]string{}, base...)
			args = append(args, "--method", meth)
			if b > 0 {
				args = append(args, "--samples", "0", "--time-limit", fmt.Sprintf("%gs", b), "--burn-in", strconv.Itoa(burnIn),
					"--allow-unconverged") // the error is what is measured
			} else {
				args = append(args, "--allow-unconverged")
			}
			rctx, cancel := context.WithTimeout(ctx, time.Duration(b*float64(time.Second))+runTimeout)
			res, err := run(rctx, bin, args...)
			timedOut := errors.Is(rctx.Err(), context.DeadlineExceeded)
			cancel()
			if err != nil {
				note := why(err)
				if timedOut {
					note = fmt.Sprintf("stopped after %s (time limit + %s)", time.Duration(b*float64(time.Second))+runTimeout, runTimeout)
				}
				fmt.Fprintf(os.Stderr, "sampling: %s n=%d %s %gs: %v\n", m.name, n, meth, b, note)
				rows = append(rows, row{m.name, n, meth, b, 0, math.NaN(), math.NaN(), refName, shorten(strings.TrimPrefix(note, "lifted: "))})
				continue
			}
			kl, mae, err := errs(ref.marg, res.marg)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", meth, err)
			}
			rows = append(rows, row{m.name, n, meth, b, res.seconds, kl, mae, refName, ""})
			fmt.Fprintf(os.Stderr, "  %-7s budget %5gs: %6.2fs  KL %.3g  MAE %.3g\n", meth, b, res.seconds, kl, mae)
		}
	}
	return rows, nil
}

// writeModel writes model m for domain size n and its evidence, 10% of the
// ground atoms drawn at random (seeded with seed and n), each true or false
// with probability 1/2, into dir; it returns the two paths.
func writeModel(dir string, m model, n int, seed int64) (mlnPath, dbPath string, err error) {
	mlnPath = filepath.Join(dir, fmt.Sprintf("%s-%d.mln", m.name, n))
	dbPath = filepath.Join(dir, fmt.Sprintf("%s-%d.db", m.name, n))
	if err := os.WriteFile(mlnPath, []byte(m.text(n)), 0o644); err != nil {
		return "", "", err
	}
	all := atoms(m, n)
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(n)))
	perm := rng.Perm(len(all))
	nev := len(all) / 10
	var db strings.Builder
	for _, i := range perm[:nev] {
		if rng.IntN(2) == 0 {
			db.WriteByte('!')
		}
		db.WriteString(all[i])
		db.WriteByte('\n')
	}
	return mlnPath, dbPath, os.WriteFile(dbPath, []byte(db.String()), 0o644)
}

func shorten(s string) string {
	s = strings.TrimPrefix(s, "lifted: ")
	if i := strings.Index(s, ".mln: "); i >= 0 && !strings.Contains(s[:i], " ") {
		s = s[i+len(".mln: "):] // the temporary model's path
	}
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// known reports whether the binary knows the method (a one-atom model).
func known(ctx context.Context, bin, work, method string) bool {
	p := filepath.Join(work, "probe.mln")
	_ = os.WriteFile(p, []byte("d = {A}\nP(d)\n1 P(x)\n"), 0o644)
	_, err := run(ctx, bin, "infer", p, "-q", "P", "--method", method, "--output-format", "json", "--quiet",
		"--samples", "10", "--burn-in", "1")
	if err == nil {
		return true
	}
	// Samplers' flags are refused by non-samplers: retry bare.
	_, err = run(ctx, bin, "infer", p, "-q", "P", "--method", method, "--output-format", "json", "--quiet")
	return err == nil
}

func write(dir string, rows []row) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.Write([]string{"model", "n", "method", "budget_s", "seconds", "avg_kl", "mae", "reference", "note"})
	for _, r := range rows {
		_ = w.Write([]string{r.model, strconv.Itoa(r.n), r.method, fmt.Sprint(r.budget), fmt.Sprintf("%.3f", r.seconds),
			fmt.Sprintf("%.4g", r.kl), fmt.Sprintf("%.4g", r.mae), r.reference, r.note})
	}
	w.Flush()
	if err := atomicWrite(filepath.Join(dir, "results.csv"), buf.Bytes()); err != nil {
		return err
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "| model | n | method | time limit (s) | wall (s) | avg KL | MAE | reference |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range rows {
		lim := fmt.Sprint(r.budget)
		if r.budget == 0 {
			lim = "—"
		}
		if r.note != "" {
			fmt.Fprintf(&md, "| %s | %d | %s | %s | — | — | — | %s |\n", r.model, r.n, r.method, lim, "no estimate: "+r.note)
			continue
		}
		fmt.Fprintf(&md, "| %s | %d | %s | %s | %.2f | %.3g | %.3g | %s |\n", r.model, r.n, r.method, lim, r.seconds, r.kl, r.mae, r.reference)
	}
	return atomicWrite(filepath.Join(dir, "RESULTS-table.md"), md.Bytes())
}

// readRows reads a results.csv written by write (a missing file: none).
func readRows(path string) ([]row, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var rows []row
	for i, rec := range recs {
		if i == 0 {
			continue
		}
		if len(rec) < 8 {
			return nil, fmt.Errorf("%s: line %d has %d fields", path, i+1, len(rec))
		}
		r := row{model: rec[0], method: rec[2], reference: rec[7]}
		var errs [5]error
		r.n, errs[0] = strconv.Atoi(rec[1])
		r.budget, errs[1] = strconv.ParseFloat(rec[3], 64)
		r.seconds, errs[2] = strconv.ParseFloat(rec[4], 64)
		r.kl, errs[3] = strconv.ParseFloat(rec[5], 64)
		r.mae, errs[4] = strconv.ParseFloat(rec[6], 64)
		if err := errors.Join(errs[:]...); err != nil {
			return nil, fmt.Errorf("%s: line %d: %v", path, i+1, err)
		}
		if len(rec) > 8 {
			r.note = rec[8]
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// sortRows orders rows by model, size and method (stable: budgets keep
// their order).
func sortRows(rows []row) {
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Or(strings.Compare(a.model, b.model), cmp.Compare(a.n, b.n))
	})
}

func atomicWrite(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func floats(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func check(err error) {
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			os.Stderr.Write(ee.Stderr)
		}
		fmt.Fprintln(os.Stderr, "sampling:", err)
		os.Exit(1)
	}
}
