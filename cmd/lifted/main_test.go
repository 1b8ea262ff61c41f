package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/internal/shareddata"
)

var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lifted-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "lifted")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		panic(string(out))
	}
	code := shareddata.Run(m)
	os.RemoveAll(dir)
	os.Exit(code)
}

// run executes the binary and returns stdout, stderr and the exit code.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), dropTimedProgress(errb.String()), code
}

// timedProgress matches the plain progress lines that appear on stderr
// when work passes a second ("lifted: [1.0 s] wfomc: ..."): how many
// depends on the machine's load, so tests of what a command prints drop
// them (the progress tests read them directly).
var timedProgress = regexp.MustCompile(`(?m)^lifted: \[[0-9.]+ s\] .*\n`)

func dropTimedProgress(s string) string { return timedProgress.ReplaceAllString(s, "") }

const smokers = "../../examples/fg/smokers10.uai"

func TestInferFlagOrder(t *testing.T) {
	a, _, ca := run(t, "infer", smokers, "-e", smokers+".evid")
	b, _, cb := run(t, "infer", "-e", smokers+".evid", smokers)
	if ca != 0 || cb != 0 || a != b {
		t.Fatalf("flag order changes the result: exit %d/%d", ca, cb)
	}
	if !strings.HasPrefix(a, "MAR\n120 2 0 1 2 1 0 ") {
		t.Fatalf("unexpected MAR output: %.80q", a)
	}
}

func TestInferJSONLiftedEqualsGround(t *testing.T) {
	var res [2]struct {
		Marginals [][]float64    `json:"marginals"`
		LogZ      float64        `json:"log_z"`
		Stats     map[string]any `json:"stats"`
	}
	for i, m := range []string{"lbp", "bp"} {
		out, stderr, code := run(t, "infer", "--method", m, "--output-format", "json", smokers, "-e", smokers+".evid")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", m, code, stderr)
		}
		if err := json.Unmarshal([]byte(out), &res[i]); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"variables", "factors", "edges", "clusternodes", "clusterfactors", "lifted_edges",
			"color_iterations", "color_seconds", "bp_iterations", "messages", "converged", "seconds"} {
			if _, ok := res[i].Stats[k]; !ok {
				t.Errorf("stats lack %q", k)
			}
		}
	}
	if res[0].Stats["clusternodes"].(float64) >= res[1].Stats["clusternodes"].(float64) {
		t.Errorf("lifted run did not compress: %v", res[0].Stats)
	}
	for v := range res[0].Marginals {
		for x := range res[0].Marginals[v] {
			if d := math.Abs(res[0].Marginals[v][x] - res[1].Marginals[v][x]); d > 1e-9 {
				t.Fatalf("variable %d: lifted %v ground %v", v, res[0].Marginals[v], res[1].Marginals[v])
			}
		}
	}
}

func TestInferMaxProduct(t *testing.T) {
	out, _, code := run(t, "infer", "--max-product", smokers, "-e", smokers+".evid")
	if code != 0 || !strings.HasPrefix(out, "MPE\n120 1 0 ") {
		t.Fatalf("exit %d, output %.60q", code, out)
	}
	out, _, code = run(t, "infer", "--max-product", "--output-format", "json", smokers)
	if code != 0 || !strings.Contains(out, `"assignment":[`) || !strings.Contains(out, `"marginals":null`) {
		t.Fatalf("exit %d, output %.100q", code, out)
	}
}

func TestInferOutputFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.MAR")
	stdout, _, code := run(t, "infer", "--max-iter", "20000", "-o", path, "testdata/tiny.cnf") // BP needs 9999 iterations
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
	b, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(b), "MAR\n4 2 ") {
		t.Fatalf("output file: %q %v", b, err)
	}
}

func TestInferFG(t *testing.T) {
	out, stderr, code := run(t, "infer", "--schedule", "seq", "testdata/twofactors.fg")
	if code != 0 || !strings.HasPrefix(out, "MAR\n") {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
}

func TestCompress(t *testing.T) {
	out, _, code := run(t, "compress", smokers)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var st map[string]any
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatal(err)
	}
	if st["variables"] != 120.0 || st["clusternodes"] != 4.0 || st["clusterfactors"] != 3.0 {
		t.Fatalf("stats %v", st)
	}
}

func TestErrors(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"infer", "testdata/truncated.uai"}, "truncated.uai:"},
		{[]string{"infer"}, "takes 1 argument"},
		{[]string{"infer", "--bogus", smokers}, "unknown flag"},
		{[]string{"infer", "--schedule", "zigzag", smokers}, "unknown --schedule"},
		{[]string{"infer", "--damping", "1.5", smokers}, "--damping"},
		{[]string{"infer", "--method", "magic", smokers}, "unknown --method"},
		{[]string{"infer", "model.xyz"}, "--format"},
		{[]string{"infer", "no-such-file.uai"}, "no such file"},
		{[]string{"infer", smokers, "-e", "no-such.evid"}, "no such file"},
		{[]string{"compress", "--color-mode", "wild", smokers}, "unknown --color-mode"},
	}
	for _, c := range cases {
		out, stderr, code := run(t, c.args...)
		if code != 1 || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%v: exit %d, stderr %q (want %q)", c.args, code, stderr, c.want)
		}
	}
}

func TestContradictoryEvidence(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.uai")
	os.WriteFile(model, []byte("MARKOV\n2\n2 2\n1\n2 0 1\n4\n1 0 0 1\n"), 0o644)
	ev := filepath.Join(dir, "m.evid")
	os.WriteFile(ev, []byte("2 0 0 1 1\n"), 0o644)
	_, stderr, code := run(t, "infer", model, "-e", ev)
	if code != 1 || !strings.Contains(stderr, "contradictory evidence") {
		t.Fatalf("exit %d, %q", code, stderr)
	}
}

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"infer", "--help"}, {"compress", "--help"}} {
		out, _, code := run(t, args...)
		if code != 0 || !strings.Contains(out, "Usage:") {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

// The default memory budget honours the process's own address-space limit
// (ulimit -v): a factor graph whose estimate (4.2 GiB) is under the
// machine's budget but over what the limit leaves is refused with its size,
// instead of the runtime's "fatal error: out of memory" and a goroutine
// dump (issue 39's probe).
func TestAddressSpaceLimitRefuses(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	p := filepath.Join(t.TempDir(), "mid.cnf")
	if err := os.WriteFile(p, []byte("p cnf 3000000 1\n1 -2 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `ulimit -v 3000000 && exec "$0" infer "$1"`, binary, p)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "would need about 4.2 GiB of memory, more than the limit of") || strings.Contains(errb.String(), "goroutine") {
		t.Fatalf("under ulimit -v 3000000: %v\n%.600s", err, errb.String())
	}
}
