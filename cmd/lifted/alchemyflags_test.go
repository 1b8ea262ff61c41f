package main

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/internal/alchemyargs"
)

// manualFlags reads testdata/alchemy-tuffy-flags.txt: every flag of
// Alchemy's infer and learnwts and of Tuffy, with its program.
func manualFlags(t *testing.T) [][2]string {
	t.Helper()
	fh, err := os.Open("testdata/alchemy-tuffy-flags.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out [][2]string
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			out = append(out, [2]string{f[0], f[1]})
		}
	}
	if len(out) < 200 {
		t.Fatalf("%d flags read", len(out))
	}
	return out
}

// mappedOrRefused checks the Alchemy front end's answer to args, in which
// flag (with its dash) stands where a flag goes: either an error naming
// flag, or arguments in which no one-dash word is left (flag, and any
// other, was rewritten into ours: one-letter shorthands and --long flags).
func mappedOrRefused(t *testing.T, args []string, flag string) {
	t.Helper()
	got, _, err := alchemyArgs(newRoot(), args)
	if err != nil {
		if !strings.Contains(err.Error(), flag) {
			t.Errorf("%q: refused without naming %s: %v", args, flag, err)
		}
		return
	}
	for _, a := range got[1:] {
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && isFlagWord(a[1:]) {
			t.Errorf("%q: %q passed on as %q: neither mapped nor refused", args, a, got)
		}
	}
}

// isFlagWord: letters only, as the name of a flag.
func isFlagWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// Every flag of Alchemy's and Tuffy's manuals is mapped or refused by
// name, alone, after a method flag and before a value; so are random
// one-dash words (issue 25).
func TestAlchemyTuffyFlags(t *testing.T) {
	for _, pf := range manualFlags(t) {
		prog, flag := pf[0], "-"+pf[1]
		for _, args := range [][]string{
			{prog, flag},
			{prog, flag, "1", "m.mln"},
			{prog, "-ms", flag, "2"},
			{prog, "-m", flag, "true", "-q", "P"},
			{prog, "-g", flag, "3", "-i", "m.mln"},
		} {
			if prog == "learnwts" && (args[1] == "-ms" || args[1] == "-m") || prog == "infer" && args[1] == "-g" {
				continue
			}
			mappedOrRefused(t, args, flag)
		}
	}
	rng := rand.New(rand.NewPCG(25, 1))
	letters := "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for range 2000 {
		n := 2 + rng.IntN(14)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[rng.IntN(len(letters))]
		}
		word := "-" + string(b)
		for _, prog := range []string{"infer", "learnwts"} {
			args := []string{prog, "-i", "m.mln", word, "x"}
			got, _, err := alchemyArgs(newRoot(), args)
			cmd := strings.TrimSuffix(prog, "wts")
			if alchemyargs.Known(cmd, string(b)) || alchemyargs.Known(map[string]string{"infer": "learn", "learn": "infer"}[cmd], string(b)) {
				mappedOrRefused(t, args, word)
				continue
			}
			if err == nil || !strings.Contains(err.Error(), "unknown Alchemy flag "+word) {
				t.Fatalf("%q: want 'unknown Alchemy flag %s', got %q, %v", args, word, got, err)
			}
		}
	}
}

// runIn runs the binary in dir.
func runIn(t *testing.T, dir string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// Issue 25.1 from the command line: Alchemy's long one-dash flags are read
// whole, never as clusters of one-letter flags; unknown ones and ones
// lifted does not have are refused by name, with what to use instead.
func TestAlchemyLongFlagsWhole(t *testing.T) {
	dir := t.TempDir()
	mln, db := absPath(t, smokersMLN), absPath(t, smokersDB)
	base := []string{"infer", "-i", mln, "-e", db, "-r", "o.result", "-q", "Cancer"}
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"-ms", "-outputNetwork"}, "lifted: -outputNetwork: writing the ground network instead of answering is 'lifted convert"},
		{[]string{"-queryEvidence"}, "lifted: -queryEvidence: taking the query atoms missing from the .db as false evidence"},
		{[]string{"-qSmokes"}, "lifted: unknown Alchemy flag -qSmokes: "},
		{[]string{"-outputNetworks"}, "lifted: unknown Alchemy flag -outputNetworks: "},
		{[]string{"-lazy"}, "lifted: -lazy: lazy grounding is not built; -lifted builds lifted BP's network from the MLN without grounding"},
		{[]string{"-ms", "-saRatio", "50"}, "lifted: -saRatio: lifted's MC-SAT has no simulated-annealing moves to mix in;"},
		{[]string{"-ms", "-mcsatSampleFlipProb", "0.5"}, "lifted: -mcsatSampleFlipProb: lifted's MC-SAT has no SampleSAT flip probability"},
		{[]string{"-probFile", "p.txt"}, "lifted: -probFile: there is no separate probability file: the marginals are written to -r FILE"},
		{[]string{"-g"}, "lifted: -g is a flag of Alchemy's learnwts, not of infer"},
	} {
		out, stderr, code := runIn(t, dir, append(append([]string{}, base...), c.extra...)...)
		if code != 1 || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.extra, code, stderr, c.want)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			t.Errorf("%v: left %s behind", c.extra, e.Name())
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	// -numSamples works: MC-SAT's --samples, and -r is honoured.
	_, stderr, code := runIn(t, dir, append(append([]string{}, base...), "-ms", "-numSamples", "300", "-numChains", "2", "-seed", "1")...)
	text, err := os.ReadFile(filepath.Join(dir, "o.result"))
	if code != 0 || err != nil || !strings.Contains(string(text), "Cancer(Anna) ") || !strings.Contains(stderr, "600 samples in 2 chains") {
		t.Errorf("-ms -numSamples 300: exit %d, %v, %q, %s", code, err, text, stderr)
	}
}

func absPath(t *testing.T, p string) string {
	t.Helper()
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
