package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/internal/shareddata"
)

// Issue 25.2: lp's proved-optimal answer is not reported as BP's
// non-convergence; every status line names the method that ran.
func TestStatusLinesNameTheMethod(t *testing.T) {
	for _, c := range []struct{ method, summary string }{
		{"", "MAP by map-auto, objective 79.1, bound 79.1, gap 0; 8 components, 8 proved optimal;"}, // the default
		{"lp", "MAP by LP relaxation (lp), objective 79.1, bound 79.1, gap 0;"},
	} {
		args := []string{"map", smokersMLN, "-e", smokersDB, "-q", "Cancer"}
		if c.method != "" {
			args = append(args, "--method", c.method)
		}
		out, stderr, code := run(t, args...)
		if code != 0 || strings.Contains(out, "NOT CONVERGED") || strings.Contains(stderr, "NOT CONVERGED") || strings.Contains(stderr, "BP") ||
			!strings.HasPrefix(out, "Cancer(Anna) 1\n") || !strings.Contains(stderr, c.summary) {
			t.Errorf("map %s: exit %d, %q, %s", c.method, code, out, stderr)
		}
		out, _, _ = run(t, append(args, "--output-format", "json")...)
		m := c.method
		if m == "" {
			m = "map-auto"
		}
		if !strings.Contains(out, `"method":"`+m+`","method_reason":null,"converged":true`) {
			t.Errorf("map json: %s", out)
		}
	}
	for _, c := range []struct {
		args []string
		want *regexp.Regexp
	}{
		{[]string{"--method", "lbp"}, regexp.MustCompile(`; lbp: \d+ iterations, messages converged; .*\d+ fixed-point`)},
		{[]string{"--method", "bp"}, regexp.MustCompile(`; bp: \d+ iterations, messages converged; .*\d+ fixed-point`)},
		{[]string{"--method", "mcsat", "--samples", "20", "--chains", "2", "--seed", "1", "--allow-unconverged"}, regexp.MustCompile(`(?s)NOT CONVERGED: mcsat's chains have not mixed .*; mcsat: 40 samples in 2 chains(, worst R-hat [0-9.]+)?, NOT mixed; `)},
		{[]string{"--method", "gibbs", "--samples", "200", "--chains", "2", "--seed", "1", "--allow-unconverged"}, regexp.MustCompile(`; gibbs: 400 samples in 2 chains`)},
	} {
		_, stderr, _ := run(t, append([]string{"infer", smokersMLN, "-e", smokersDB, "-q", "Cancer"}, c.args...)...)
		if !c.want.MatchString(stderr) {
			t.Errorf("%v: %q, want %s", c.args, stderr, c.want)
		}
	}
	// BP that stops at its limit says it was BP, by name.
	out, stderr, code := run(t, "infer", smokersMLN, "-e", smokersDB, "-q", "Cancer", "--method", "bp", "--max-iter", "1", "--allow-unconverged")
	if code != 0 || !strings.HasPrefix(out, "// NOT CONVERGED: bp (belief propagation) stopped after ") || !strings.Contains(stderr, "NOT CONVERGED: bp (belief propagation) stopped after") {
		t.Errorf("bp --max-iter 1: exit %d, %q, %s", code, out, stderr)
	}
}

// startInterrupted runs the binary, sends it SIGINT after wait and returns
// its stdout, stderr, exit code and how long it took to stop.
func startInterrupted(t *testing.T, dir string, wait time.Duration, args ...string) (string, string, int, time.Duration) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(wait)
	cpuBefore, cpuOK := processCPU(cmd.Process.Pid)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	took := time.Since(sent)
	// On a loaded machine the wall time says more about the load than about
	// how soon the command stopped: where the process used less CPU after
	// the signal than the wall time passed, that is the time it took (a
	// command that ignored the signal would still be ended by main's
	// backstop, without the message the callers check).
	if cpuOK && cmd.ProcessState != nil {
		if after := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime() - cpuBefore; after < took {
			took = max(after, 0)
		}
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code, took
}

// Issue 25.2: Ctrl-C during sampling exits 130 with nothing printed, unless
// --allow-partial, which prints the estimates headed "interrupted after N
// samples"; the output file is not left half written, nor its temporary.
func TestInterruptedSampling(t *testing.T) {
	dir := t.TempDir()
	mln, db := absPath(t, smokersMLN), absPath(t, smokersDB)
	args := []string{"infer", mln, "-e", db, "-q", "Cancer", "--method", "mcsat", "--samples", "100000000", "--chains", "2", "-r", "out.result"}
	out, stderr, code, _ := startInterrupted(t, dir, 1500*time.Millisecond, args...)
	if code != 130 || out != "" || !regexp.MustCompile(`interrupted after \d+ samples \(mcsat\); nothing printed \(--allow-partial`).MatchString(stderr) {
		t.Errorf("interrupted: exit %d, %q, %s", code, out, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("interrupted run left %v", entries)
	}
	_, stderr, code, _ = startInterrupted(t, dir, 1500*time.Millisecond, append(args, "--allow-partial")...)
	text, err := os.ReadFile(filepath.Join(dir, "out.result"))
	if code != 0 || err != nil || !regexp.MustCompile(`^// interrupted after \d+ samples \(mcsat\)[^\n]*\nCancer\(Anna\) `).Match(text) ||
		!regexp.MustCompile(`warning: interrupted after \d+ samples \(mcsat\): the answer printed is the one so far`).MatchString(stderr) {
		t.Errorf("--allow-partial: exit %d, %v, %q, %s", code, err, text, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("--allow-partial left %v", entries)
	}
}

// Issue 25.4: the output path is checked before any work, the error names
// the user's path, and no temporary file is left behind.
func TestOutputCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	mln, db := absPath(t, smokersMLN), absPath(t, smokersDB)
	sub := filepath.Join(dir, "existing")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro")
	if err := os.Mkdir(ro, 0o555); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cmd  []string
		path string
		want string
	}{
		{[]string{"infer", mln, "-e", db, "-q", "Cancer", "-r"}, sub, "cannot write output " + sub + ": it is a directory"},
		{[]string{"infer", "-i", mln, "-e", db, "-q", "Cancer", "-r"}, filepath.Join(dir, "missing", "x.result"), "cannot write output " + filepath.Join(dir, "missing", "x.result") + ": no such file or directory"},
		{[]string{"map", mln, "-e", db, "-q", "Cancer", "-o"}, filepath.Join(ro, "x.result"), "cannot write output " + filepath.Join(ro, "x.result") + ": permission denied"},
		// A run far too long to finish: the check comes first.
		{[]string{"infer", mln, "-e", db, "-q", "Cancer", "--method", "mcsat", "--samples", "1000000000", "-r"}, sub, "it is a directory"},
		{[]string{"learnwts", "-g", "-i", mln, "-t", db, "-o"}, sub, "cannot write output " + sub + ": it is a directory"},
	} {
		if os.Geteuid() == 0 && strings.HasPrefix(c.path, ro) {
			continue // root writes anywhere
		}
		start := time.Now()
		out, stderr, code := run(t, append(c.cmd, c.path)...)
		if code != 1 || out != "" || !strings.Contains(stderr, c.want) || strings.Contains(stderr, ".tmp") || time.Since(start) > 5*time.Second {
			t.Errorf("%v %s: exit %d, %q, %s", c.cmd, c.path, code, out, stderr)
		}
	}
	for _, d := range []string{dir, sub, ro} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if n := e.Name(); n != "existing" && n != "ro" {
				t.Errorf("left %s in %s", n, d)
			}
		}
	}
}

// Issue 25.5: learnwts -g (pll) on UW-CSE reports its progress early,
// with how far it is and the time left; --plot is refused by lwl and pll,
// which draw no curve.
func TestLearnProgressEarly(t *testing.T) {
	uwcse := shareddata.Need(t, "mln", "uwcse", "tuffy-cse")
	cmd := exec.Command(binary, "learnwts", "-g", "-i", uwcse+"/prog.mln", "-t", uwcse+"/evidence.db", "-o", filepath.Join(t.TempDir(), "out.mln"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	want := regexp.MustCompile(`^lifted: \[[0-9.]+ s\] pll: .* \d+ of \d+ \(\d+%, about .* left\)`)
	timeout := time.After(20 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("learnwts ended without a progress line with the time left")
			}
			if want.MatchString(l) {
				// The process's own CPU time where /proc has it: on a loaded
				// machine the wall clock says more about the load than about
				// how early learnwts reports.
				took := time.Since(start)
				if cpu, ok := processCPU(cmd.Process.Pid); ok {
					took = cpu
				}
				if took > 10*time.Second {
					t.Errorf("first progress line with the time left after %v", took)
				}
				return
			}
		case <-timeout:
			t.Fatal("no progress line with the time left in 20 s")
		}
	}
}

func TestLearnPlotRefused(t *testing.T) {
	for _, m := range []string{"lwl", "pll", "dn"} {
		_, stderr, code := run(t, "learn", "--method", m, "-i", smokersMLN, "-t", smokersDB, "--plot", filepath.Join(t.TempDir(), "c.png"))
		if code != 1 || !strings.Contains(stderr, "--plot applies to --method smd, sgd, scg or lbfgs-bp, not "+m) {
			t.Errorf("%s --plot: exit %d, %s", m, code, stderr)
		}
	}
}

// Issue 25.6: Ctrl-C during a large grounding stops it within half a
// second (the grounder polls the context in its inner loops).
func TestInterruptedGrounding(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("person = {")
	for i := range 300 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "P%d", i)
	}
	b.WriteString("}\nFriends(person,person)\nSmokes(person)\n1 Friends(x,y) ^ Friends(y,z) => Friends(x,z)\n")
	writeFile(t, dir, "big.mln", b.String())
	writeFile(t, dir, "big.db", "Smokes(P1)\n")
	_, stderr, code, took := startInterrupted(t, dir, 1500*time.Millisecond, "infer", "big.mln", "-e", "big.db", "-q", "Smokes", "--method", "bp", "--max-ground", "-1")
	if code != 130 || !strings.Contains(stderr, "lifted: big.mln: interrupted before any answer") || !strings.Contains(stderr, "grounding") {
		t.Errorf("exit %d, %s", code, stderr)
	}
	if took > 500*time.Millisecond {
		t.Errorf("stopped %v after SIGINT", took)
	}
}

// Issue 25.6: messages that mislead no more.
func TestMessages(t *testing.T) {
	dir := t.TempDir()
	for _, w := range []string{"nan", "inf", "-Inf", "Infinity"} {
		p := writeFile(t, dir, "w.mln", "person = {A,B}\nSmokes(person)\nCancer(person)\n"+w+" Smokes(x) => Cancer(x)\n")
		_, stderr, code := run(t, "infer", p, "-q", "Cancer")
		if code != 1 || !strings.Contains(stderr, p+":4:1: weight "+w+" is not a finite number") {
			t.Errorf("weight %s: exit %d, %s", w, code, stderr)
		}
	}
	// A predicate named inf is still one.
	p := writeFile(t, dir, "p.mln", "person = {A,B}\ninf(person)\n1 inf(x)\n")
	if _, stderr, code := run(t, "infer", p, "-q", "inf"); code != 0 {
		t.Errorf("predicate inf: exit %d, %s", code, stderr)
	}
	// An all-zero table: no world of positive weight, whatever the method.
	z := writeFile(t, dir, "zero.uai", "MARKOV\n2\n2 2\n2\n1 0\n2 0 1\n\n2\n 0 0\n\n4\n 1 0 0 1\n")
	for _, m := range []string{"auto", "bp", "lbp"} {
		_, stderr, code := run(t, "infer", z, "--method", m)
		// auto answers by enumeration here, which says it its way.
		if code != 1 || !strings.Contains(stderr, "the model has no world of positive weight") && !strings.Contains(stderr, "every state has probability zero") || strings.Contains(stderr, "--damping") {
			t.Errorf("all-zero table, %s: exit %d, %s", m, code, stderr)
		}
	}
	if _, stderr, _ := run(t, "infer", z, "--method", "enumerate"); !strings.Contains(stderr, "every state has probability zero") {
		t.Errorf("enumerate: %s", stderr)
	}
	// lbg's errors are not prefixed twice.
	u := writeFile(t, dir, "unsat.mln", "person = {A,B,C}\nSmokes(person)\nCancer(person)\nSmokes(x) => Cancer(x).\nSmokes(x) ^ !Cancer(x).\n")
	if _, stderr, code := run(t, "infer", "--method", "lbg", u, "-q", "Cancer"); code != 1 || strings.Contains(stderr, "lbg: lbg:") || !strings.Contains(stderr, "lbg: found no world") {
		t.Errorf("lbg: exit %d, %s", code, stderr)
	}
	// --max-ground 0 is the default (sized to memory), documented as such;
	// -1 is no limit.
	if out, _, _ := run(t, "infer", "--help"); !strings.Contains(out, "(0: sized to the available memory; -1: no limit)") {
		t.Errorf("--max-ground's help")
	}
}

// processCPU returns the user + system CPU time of process pid from
// /proc/PID/stat (Linux); ok is false where there is none.
func processCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// Fields after the command name, which is in parentheses and may hold
	// spaces: state is field 3, utime and stime are fields 14 and 15.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const ticks = 100 // USER_HZ on Linux
	return time.Duration(u+st) * time.Second / ticks, true
}
