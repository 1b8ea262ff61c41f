package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/internal/shareddata"
)

// Issue 39.1: every default budget counts work, not time, so the same
// input and seed give the same bytes whatever the machine's load and
// --workers: the real datasets' defaults, run once quietly with --workers 1
// and once beside CPU hogs (two spinning goroutines per core in this
// process) with the default workers, print the same answer. Cora's MAP
// (map-auto: MaxWalkSAT, the dual's sweeps, branch and bound per
// component) always; UW-CSE's marginals (auto: wfomc gives up, BP's slice,
// then Gibbs within its work budget) unless -short (12 CPU s); and the
// other two on slices (sliceEvidence): UW-CSE's MAP on a third of its
// people (map-auto, 0.6 CPU s, not proved optimal: its budgets decide the
// world) and Cora's marginals on a tenth of its papers (0.1 CPU s).
func TestRealDataDefaultsDeterministic(t *testing.T) {
	cora := shareddata.Need(t, "mln", "cora-class", "tuffy-class") + "/"
	uw := shareddata.Need(t, "mln", "uwcse", "tuffy-cse") + "/"
	cases := [][]string{
		{"map", cora + "prog.mln", "-e", cora + "evidence.db", "-q", "category", "--seed", "1", "--quiet"},
		{"map", uw + "prog.mln", "-e", sliceEvidence(t, uw+"evidence.db", 3), "-q", "advisedBy", "--quiet"},
		{"infer", cora + "prog.mln", "-e", sliceEvidence(t, cora+"evidence.db", 10), "-q", "category", "--quiet"},
	}
	if !testing.Short() {
		cases = append(cases, []string{"infer", uw + "prog.mln", "-e", uw + "evidence.db", "-q", "advisedBy", "--seed", "1", "--quiet"})
	}
	runOnce := func(args []string) []byte {
		var out, errb bytes.Buffer
		cmd := exec.Command(binary, args...)
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v: %s", args, err, errb.String())
		}
		return out.Bytes()
	}
	for _, args := range cases {
		quiet := runOnce(append(args, "--workers", "1"))
		ctx, stop := context.WithCancel(context.Background())
		for range 2 * runtime.NumCPU() {
			go func() {
				for ctx.Err() == nil {
				}
			}()
		}
		loaded := runOnce(args)
		stop()
		if len(quiet) == 0 || !bytes.Equal(quiet, loaded) {
			t.Errorf("lifted %s: %d bytes quietly with --workers 1, %d beside CPU hogs: not the same", strings.Join(args, " "), len(quiet), len(loaded))
		}
	}
}

// sliceEvidence writes the atoms of the .db at path whose numbered papers
// and people (Paper123, Person45) all have a number divisible by k: the
// evidence of a sub-population (Cora's papers, UW-CSE's people), whole.
func sliceEvidence(t *testing.T, path string, k int) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	num := regexp.MustCompile(`(?:Paper|Person)(\d+)`)
	var out bytes.Buffer
	for line := range strings.Lines(string(b)) {
		keep := true
		for _, m := range num.FindAllStringSubmatch(line, -1) {
			if n, _ := strconv.Atoi(m[1]); n%k != 0 {
				keep = false
			}
		}
		if keep {
			out.WriteString(line)
		}
	}
	dst := filepath.Join(t.TempDir(), fmt.Sprintf("slice%d.db", k))
	if err := os.WriteFile(dst, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}
