package main

import (
	"bytes"
	"context"
	"os/exec"
	"runtime"
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
// then Gibbs within its work budget) unless -short (12 CPU s).
func TestRealDataDefaultsDeterministic(t *testing.T) {
	cora := shareddata.Need(t, "mln", "cora-class", "tuffy-class") + "/"
	cases := [][]string{{"map", cora + "prog.mln", "-e", cora + "evidence.db", "-q", "category", "--seed", "1", "--quiet"}}
	if !testing.Short() {
		uw := shareddata.Need(t, "mln", "uwcse", "tuffy-cse") + "/"
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
			t.Errorf("lifted %s: %d bytes quietly with --workers 1, %d beside CPU hogs: not the same", args[0], len(quiet), len(loaded))
		}
	}
}
