package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes a test file and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Without --ne, the online learners predict every predicate when the data
// observe every atom (Alchemy's -g); data with unknown atoms need --ne and
// the error says why.
func TestOnlineLearnGenerativeWithoutNE(t *testing.T) {
	dir := t.TempDir()
	model := writeFile(t, dir, "s.mln", "person = {A, B, C}\nSmokes(person)\nCancer(person)\n1 Smokes(x) => Cancer(x)\n")
	train := writeFile(t, dir, "train.db", "Smokes(A)\nCancer(A)\nSmokes(B)\n")
	for _, m := range []string{"smd", "sgd", "scg", "lbfgs-bp"} {
		budget := []string{"--passes", "2"} // each learner's own flag: the other is refused
		if m == "scg" || m == "lbfgs-bp" {
			budget = []string{"--max-iter", "20"}
		}
		out, stderr, code := run(t, append([]string{"learn", "--method", m, "-i", model, "-t", train}, budget...)...)
		if code != 0 || !strings.Contains(out, "Smokes(x) => Cancer(x)") {
			t.Fatalf("%s: exit %d, %q, %s", m, code, out, stderr)
		}
		if !strings.Contains(stderr, "no --ne: the data observe every predicate, so all are predicted (generative, as Alchemy's -g): Smokes,Cancer") {
			t.Errorf("%s: stderr %q", m, stderr)
		}
	}
	partial := writeFile(t, dir, "partial.db", "Smokes(A)\n?Cancer(B)\nCancer(A)\n")
	_, stderr, code := run(t, "learn", "--method", "smd", "-i", model, "-t", partial)
	if code != 1 || !strings.Contains(stderr, "needs the non-evidence predicates (--ne P1,P2) because the training data observe only part of Cancer (1 unknown atom, the first ?Cancer(B) at ") ||
		!strings.Contains(stderr, "partial.db:2:1") {
		t.Errorf("partial data: exit %d, %q", code, stderr)
	}
	// With --ne the same data are fine.
	if _, stderr, code := run(t, "learn", "--method", "smd", "-i", model, "-t", partial, "--ne", "Cancer"); code != 0 {
		t.Errorf("partial data with --ne: exit %d, %s", code, stderr)
	}
}

// infer ends with one summary line on stderr, after the output; --quiet
// drops it.
func TestInferSummaryLine(t *testing.T) {
	out, stderr, code := run(t, "infer", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer")
	if code != 0 || !strings.HasPrefix(out, "Smokes(Carl) 0.518465\n") {
		t.Fatalf("exit %d: %q %s", code, out, stderr)
	}
	// The world assumption comes first (Friends has evidence and is not
	// queried: closed by Alchemy's rule); the default method (auto) then
	// says which method it chose and why (exact lifted inference here,
	// before grounding); the summary is the last line.
	const world = "lifted: closed world: Friends (not queried, with evidence: Alchemy's rule; --ow opens it); open world: Smokes, Cancer (queried)\n"
	lines := strings.Split(strings.TrimSuffix(strings.TrimPrefix(stderr, world), "\n"), "\n")
	if !strings.HasPrefix(stderr, world) || len(lines) != 2 || !strings.HasPrefix(lines[0], "lifted: method wfomc: exact: ") ||
		!strings.HasPrefix(lines[1], "lifted: 13 ground atoms, not grounded; exact by wfomc; ") {
		t.Errorf("MLN summary %q", stderr)
	}
	// Lifted BP's summary reports the compression and the iterations.
	_, stderr, _ = run(t, "infer", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer", "--method", "lbp")
	if !strings.HasPrefix(stderr, world+"lifted: 13 ground atoms, 12 factors; 12 clusternodes, 11 clusterfactors (compression 1.1x), exact lifting (--tolerance 0); lbp: 5 iterations, messages converged; ") ||
		strings.Count(stderr, "\n") != 2 {
		t.Errorf("lbp summary %q", stderr)
	}
	_, stderr, _ = run(t, "infer", smokers, "-e", smokers+".evid", "--method", "lbp")
	if !strings.HasPrefix(stderr, "lifted: 120 variables, 110 factors; 16 clusternodes, 13 clusterfactors (compression 7.5x), exact lifting (--tolerance 0); lbp: 17 iterations, messages converged; ") {
		t.Errorf("factor graph summary %q", stderr)
	}
	for _, args := range [][]string{{smokersMLN, "-e", smokersDB, "-q", "Smokes"}, {smokers}} {
		if _, stderr, code := run(t, append([]string{"infer", "--quiet"}, args...)...); code != 0 || stderr != "" {
			t.Errorf("--quiet %v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// sameRun runs an Alchemy-style and our command line, each writing its
// result to the file named by the placeholder OUT, and checks the results
// are byte-identical and not empty; it returns the result and the
// Alchemy run's stderr.
func sameRun(t *testing.T, alchemy, ours []string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	var res [2]string
	var errs [2]string
	for i, args := range [][]string{alchemy, ours} {
		out := filepath.Join(dir, []string{"alchemy.result", "ours.result"}[i])
		a := make([]string, len(args))
		for j, s := range args {
			a[j] = strings.ReplaceAll(s, "OUT", out)
		}
		stdout, stderr, code := run(t, a...)
		if code != 0 || stdout != "" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %s", a, code, stdout, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		res[i], errs[i] = string(b), stderr
	}
	if res[0] != res[1] || res[0] == "" {
		t.Errorf("%v and %v differ:\n%s\n---\n%s", alchemy, ours, res[0], res[1])
	}
	return res[0], errs[0]
}

// The commands of Alchemy's tutorial and Tuffy's README, on the shipped
// smokers data, print Alchemy's result format, byte for byte what our
// spellings print.
func TestAlchemyTutorialCommands(t *testing.T) {
	dir := t.TempDir()
	// infer -i smoking.mln -r smoking.result -e smoking-train.db -q Cancer
	res, _ := sameRun(t,
		[]string{"infer", "-i", smokersMLN, "-r", "OUT", "-e", smokersDB, "-q", "Cancer"},
		[]string{"infer", smokersMLN, "-o", "OUT", "--evidence", smokersDB, "--query", "Cancer"})
	if !strings.HasPrefix(res, "Cancer(Anna) 0.817574\nCancer(Bob) 0.5\n") || strings.Count(res, "\n") != 8 {
		t.Errorf("Alchemy's tutorial command:\n%s", res)
	}
	// Tuffy: -i prog.mln -e evidence.db -queryFile query.db -r out.txt
	query := "../../examples/mln/query.db"
	res2, _ := sameRun(t,
		[]string{"infer", "-i", smokersMLN, "-e", smokersDB, "-queryFile", query, "-r", "OUT"},
		[]string{"infer", smokersMLN, "-e", smokersDB, "--query-file", query, "-o", "OUT"})
	if res2 != res {
		t.Errorf("Tuffy's command:\n%s", res2)
	}
	sameRun(t,
		[]string{"infer", "-i", smokersMLN, "-e", smokersDB, "-f", query, "-result", "OUT", "-marginal"},
		[]string{"infer", smokersMLN, "-e", smokersDB, "-q", "Cancer(x)", "-o", "OUT"})
	// Methods, settings, world assumptions, several evidence files.
	extra := writeFile(t, dir, "extra.db", "Smokes(Carl)\n")
	for _, c := range []struct{ alchemy, ours []string }{
		{[]string{"-bp", "-maxSteps", "30", "-convergenceThresh", "1e-4"}, []string{"--method", "bp", "--max-iter", "30", "--tol", "1e-4"}},
		{[]string{"-lifted"}, []string{"--method", "lbp"}},
		{[]string{"-lifted", "-useHC", "-bp"}, []string{"--method=lbp"}},
		{[]string{"-ow", "Friends"}, []string{"--ow", "Friends"}},
		{[]string{"-closedWorld", "Friends"}, []string{"--cw", "Friends"}},
		{[]string{"-e", smokersDB + "," + extra}, []string{"-e", smokersDB, "-e", extra}},
		{[]string{"-m", "-bp"}, []string{"--max-product", "--method", "bp"}},
		{[]string{"-a", "-lifted"}, []string{"--max-product"}},
		{[]string{"-bp", "-numChains", "4", "-burnMaxSteps", "100", "-seed", "3"}, []string{"--method", "bp"}},
		// The samplers (issue 11): Alchemy's sampler settings become theirs.
		// Runs this short are not mixed by the diagnostics' rule: both forms
		// print their marked estimates with --allow-unconverged.
		{[]string{"-ms", "-maxSteps", "300", "-numChains", "2", "-burnMaxSteps", "20", "-seed", "3", "--allow-unconverged"}, []string{"--method", "mcsat", "--samples", "300", "--chains", "2", "--burn-in", "20", "--seed", "3", "--allow-unconverged"}},
		{[]string{"-gibbs", "-maxSteps", "300", "-numChains", "2", "-seed", "4", "--allow-unconverged"}, []string{"--method", "gibbs", "--samples", "300", "--chains", "2", "--seed", "4", "--allow-unconverged"}},
		{[]string{"-p", "-maxSteps", "300", "-numChains", "2", "-seed", "4", "--allow-unconverged"}, []string{"--method", "gibbs", "--samples", "300", "--chains", "2", "--seed", "4", "--allow-unconverged"}},
		// MAP by MaxWalkSAT (issue 12): -m or -a alone, with Alchemy's and
		// Tuffy's MaxWalkSAT settings.
		{[]string{"-m"}, []string{"--method", "maxwalksat", "--max-product"}},
		{[]string{"-a", "-tries", "3", "-mwsMaxSteps", "200", "-seed", "5"}, []string{"--method", "maxwalksat", "--max-product", "--tries", "3", "--max-flips", "200", "--seed", "5"}},
		{[]string{"-m", "-maxTries", "2", "-maxFlips", "50", "-maxSeconds", "10"}, []string{"--method", "maxwalksat", "--max-product", "--tries", "2", "--max-flips", "50", "--time-limit", "10s"}},
	} {
		a := append([]string{"infer", "-i", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer", "-r", "OUT"}, c.alchemy...)
		o := append([]string{"infer", smokersMLN, "-e", smokersDB, "-q", "Smokes,Cancer", "-o", "OUT"}, c.ours...)
		_, stderr := sameRun(t, a, o)
		if len(c.alchemy) > 1 && c.alchemy[1] == "-numChains" && (!strings.Contains(stderr, "lifted: warning: -numChains: applies to sampling (MC-SAT, Gibbs), which BP does not do; ignored\n") ||
			!strings.Contains(stderr, "-seed: BP is deterministic; ignored")) {
			t.Errorf("sampler settings under BP: %q", stderr)
		}
	}
	// learnwts -g -i smoking.mln -o smoking-out.mln -t smoking-train.db, and
	// discriminative learning with and without -ne.
	for _, c := range []struct{ alchemy, ours []string }{
		{[]string{"learnwts", "-g"}, []string{"learn", "--method", "pll"}},
		{[]string{"learn", "-g", "-noPrior", "-gMaxIter", "5"}, []string{"learn", "--method", "pll", "--prior-stddev", "-1", "--max-iter", "5"}},
		{[]string{"learnwts", "-d", "-ne", "Smokes,Cancer", "-dNumIter", "10", "-priorStdDev", "2"}, []string{"learn", "--method", "disc", "--ne", "Smokes,Cancer", "--max-iter", "10", "--prior-stddev", "2"}},
		{[]string{"learnwts", "-d", "-multipleDatabases", "-seed", "5"}, []string{"learn", "--method", "disc", "--seed", "5"}},
		{[]string{"learnwts", "-dCG", "-ne", "Cancer", "-dNumIter", "3", "-seed", "2"}, []string{"learn", "--method", "dscg", "--ne", "Cancer", "--max-iter", "3", "--seed", "2"}},
		{[]string{"learnwts", "-dVP", "-ne", "Cancer", "-dLearningRate", "0.01", "-seed", "2"}, []string{"learn", "--method", "vp", "--ne", "Cancer", "--learning-rate", "0.01", "--seed", "2"}},
	} {
		a := append(c.alchemy, "-i", smokersMLN, "-o", "OUT", "-t", smokersDB)
		o := append(c.ours, "-i", smokersMLN, "-o", "OUT", "-t", smokersDB)
		res, _ := sameRun(t, a, o)
		if !strings.Contains(res, "Smokes(x) => Cancer(x)\n") {
			t.Errorf("%v:\n%s", a, res)
		}
	}
}

// Flags that are neither ours nor Alchemy's,
// and Alchemy flags lifted does not have: clear errors, never "unknown
// shorthand flag".
func TestAlchemyErrors(t *testing.T) {
	base := []string{"infer", "-i", smokersMLN, "-e", smokersDB, "-q", "Cancer"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-efbp"}, "-efbp: expanding frontier BP is not built; use -bp or -lifted"},
		{[]string{"-foo"}, "unknown Alchemy flag -foo: neither one of lifted infer's flags nor one of Alchemy's or Tuffy's that it reads"},
		{[]string{"-bp", "--method", "lbp"}, "--method lbp and -bp: choose one inference method"},
		{[]string{"-maxSteps"}, "flag needs an argument: -maxSteps"},
		{[]string{"-i", "a.mln,b.mln"}, "-i a.mln,b.mln: lifted reads one .mln file; concatenate them"},
	} {
		stdout, stderr, code := run(t, append(append([]string{}, base...), c.args...)...)
		if code != 1 || stdout != "" || !strings.Contains(stderr, "lifted: "+c.want) || strings.Contains(stderr, "shorthand") {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
	_, stderr, code := run(t, "learnwts", "-g", "-i", smokersMLN, "-t", smokersDB, "-bogus")
	if code != 1 || !strings.Contains(stderr, "unknown Alchemy flag -bogus: neither one of lifted learn's flags") {
		t.Errorf("learnwts -bogus: exit %d, %q", code, stderr)
	}
	// Ours are untouched: attached values, -- and help.
	if out, stderr, code := run(t, "infer", smokersMLN, "-e"+smokersDB, "-qCancer(Anna)"); code != 0 || out != "Cancer(Anna) 0.817574\n" {
		t.Errorf("attached values: exit %d, %q, %s", code, out, stderr)
	}
	if out, _, code := run(t, "infer", "-h"); code != 0 || !strings.Contains(out, "-maxSteps N (--max-iter)") {
		t.Errorf("infer -h: exit %d", code)
	}
}

// A link named infer or learnwts runs as Alchemy's programs of those
// names.
func TestAlchemyProgramNames(t *testing.T) {
	dir := t.TempDir()
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, name := range []string{"infer", "learnwts"} {
		if err := os.Symlink(binary, filepath.Join(dir, name)); err != nil {
			t.Skip("no symbolic links:", err)
		}
	}
	out, stderr, code := run(t, "infer", "-i", smokersMLN, "-e", smokersDB, "-q", "Cancer")
	if code != 0 {
		t.Fatal(stderr)
	}
	saved := binary
	defer func() { binary = saved }()
	binary = filepath.Join(dir, "infer")
	got, stderr, code := run(t, "-i", abs(smokersMLN), "-e", abs(smokersDB), "-q", "Cancer")
	if code != 0 || got != out {
		t.Errorf("as infer: exit %d, %q, %s", code, got, stderr)
	}
	binary = filepath.Join(dir, "learnwts")
	got, stderr, code = run(t, "-g", "-i", abs(smokersMLN), "-t", abs(smokersDB))
	if code != 0 || !strings.Contains(got, "Learned by lifted learn --method pll") {
		t.Errorf("as learnwts: exit %d, %q, %s", code, got, stderr)
	}
}

// alchemyArgs rewrites Alchemy's spellings, leaves ours alone and never
// panics.
func TestAlchemyArgs(t *testing.T) {
	root := newRoot()
	for _, c := range []struct{ in, want string }{
		{"infer -i m.mln -e a.db,b.db -r out -q Smokes -lifted -useHC -maxSteps 5", "infer m.mln -e a.db -e b.db -r out -q Smokes --method lbp --max-iter 5"},
		{"infer m.mln -e a.db --damping -0.5 -q=Smokes -o -", "infer m.mln -e a.db --damping -0.5 -q=Smokes -o -"},
		{"infer m.mln -qCancer(Anna) -e../x.db", "infer m.mln -qCancer(Anna) -e../x.db"},
		{"infer -i m.mln -ms -numSamples 50 -numChains 2", "infer m.mln --method mcsat --samples 50 --chains 2"},
		{"infer -i m.mln -bp -convThresh 1e-6 -threads 2", "infer m.mln --tol 1e-6 --workers 2 --method bp"},
		{"infer -i m.mln -bp -useHC true -explicitRep false", "infer m.mln --method bp"},
		{"infer -i m.mln -simtp -numSwap 4 -simtpNumST 2 -maxSteps 50", "infer m.mln --method tempering --prop temperatures=4 --chains 2 --samples 50"},
		{"infer -ow F -cw G -f q.db -bp -m m.mln", "infer --ow F --cw G --query-file q.db m.mln --method bp --max-product"},
		{"infer m.mln -- -i", "infer m.mln -- -i"},
		{"learnwts -g -i m.mln -t a.db,b.db -o out -noPrior", "learnwts --method=pll -i m.mln -t a.db,b.db -o out --prior-stddev=-1"},
		{"learn -d -ne P,Q -seed 3 -i m.mln -t a.db", "learn --method=disc --ne P,Q -i m.mln -t a.db --seed 3"},
		{"count -foo x.cnf", "count -foo x.cnf"},
	} {
		got, _, err := alchemyArgs(root, strings.Fields(c.in))
		if err != nil || strings.Join(got, " ") != c.want {
			t.Errorf("%s:\n got %q, %v\nwant %q", c.in, strings.Join(got, " "), err, c.want)
		}
	}
}

func FuzzAlchemyArgs(f *testing.F) {
	f.Add("infer -i m.mln -e a.db,b.db -r out -q Smokes -lifted -m -maxSteps 5 -seed")
	f.Add("learnwts -g -d -ne P -i x -t y -o")
	root := newRoot()
	f.Fuzz(func(t *testing.T, s string) {
		args := strings.Fields(s)
		got, _, err := alchemyArgs(root, args)
		if err == nil && len(args) > 0 && got[0] != args[0] {
			t.Fatalf("%q: subcommand changed: %q", args, got)
		}
	})
}
