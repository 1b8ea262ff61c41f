package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

func TestMain(m *testing.M) { ptest.MainWithDefault(m, "prism") }

// The command writes the statistics of lifted compress (infer.Compress, the
// library call behind it) and every node's class, whole.
func TestColourpassWritesCompressStats(t *testing.T) {
	model, evid := "../../../examples/fg/smokers10.uai", "../../../examples/fg/smokers10.uai.evid"
	dir := t.TempDir()
	out := filepath.Join(dir, "stats.json")
	if err := run(context.Background(), model, []string{evid}, out, "", "", "auto", 3, 8, "", true); err != nil {
		t.Fatal(err)
	}
	m, err := format.Load(model, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := format.LoadEvidence([]string{evid}, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	c, want, err := infer.Compress(context.Background(), m.Graph, ev, true, lift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got infer.Stats
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	got.ColorSeconds, want.ColorSeconds = 0, 0
	if got != want {
		t.Fatalf("stats %+v, lifted compress %+v", got, want)
	}
	cols, err := os.ReadFile(filepath.Join(dir, "stats.colours.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(cols)), "\n")
	if len(lines) != m.Graph.NumVars()+m.Graph.NumFactors() {
		t.Fatalf("%d colour lines for %d nodes", len(lines), m.Graph.NumVars()+m.Graph.NumFactors())
	}
	for v, x := range c.NodeOf {
		if want := "v " + itoa(v) + " " + itoa(int(x)); lines[v] != want {
			t.Fatalf("line %d: %q, want %q", v, lines[v], want)
		}
	}
	if err := run(context.Background(), "missing.uai", nil, filepath.Join(dir, "x.json"), "", "", "auto", 2, 4, "", true); err == nil {
		t.Fatal("no error for a missing model")
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Fatal("output written for a failed run")
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }
