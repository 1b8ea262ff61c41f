package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/lifted-dev/lifted/beam/internal/testbin"
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
	if err := run(context.Background(), &config{input: model, evidence: []string{evid}, output: out, colorMode: "auto", parts: 3, perJob: 8, quiet: true}); err != nil {
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
	if !reflect.DeepEqual(got, want) {
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
	if err := run(context.Background(), &config{input: "missing.uai", output: filepath.Join(dir, "x.json"), colorMode: "auto", parts: 2, perJob: 4, quiet: true}); err == nil {
		t.Fatal("no error for a missing model")
	}
	if _, err := os.Stat(filepath.Join(dir, "x.json")); err == nil {
		t.Fatal("output written for a failed run")
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// On an MLN, the command grounds it as lifted compress --construction
// ground does and writes the same statistics (ground_* included) as the
// lifted binary, with --construction ground and by default (the
// first-order construction, where it applies, gives the same sizes), with
// evidence and with a query instead.
func TestColourpassMLN(t *testing.T) {
	ctx := context.Background()
	lifted := testbin.Lifted(t)
	mlnPath, db := "../../../examples/mln/smokers.mln", "../../../examples/mln/smokers.db"
	for _, c := range []config{
		{input: mlnPath, evidence: []string{db}},
		{input: mlnPath, query: []string{"Smokes,Cancer"}},
	} {
		dir := t.TempDir()
		c.output, c.colorMode, c.parts, c.perJob, c.quiet = filepath.Join(dir, "stats.json"), "auto", 2, 6, true
		if err := run(ctx, &c); err != nil {
			t.Fatal(err)
		}
		var got infer.MLNStats
		b, err := os.ReadFile(c.output)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &got); err != nil {
			t.Fatal(err)
		}
		args := []string{"compress", mlnPath, "--quiet"}
		for _, e := range c.evidence {
			args = append(args, "-e", e)
		}
		for _, q := range c.query {
			args = append(args, "-q", q)
		}
		for _, construction := range []string{"ground", ""} {
			a := args
			if construction != "" {
				a = append(a, "--construction", construction)
			}
			out, err := exec.Command(lifted, a...).Output()
			if err != nil {
				t.Fatalf("lifted %v: %v", a, err)
			}
			var want infer.MLNStats
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			g := got
			g.ColorSeconds, want.ColorSeconds, g.GroundSeconds, want.GroundSeconds = 0, 0, 0, 0
			g.ConstructionReason, want.ConstructionReason = "", ""
			want.LiftedConstruction, want.GroundAtomsBuilt, want.GroundFormulasBuilt = false, 0, 0
			if !reflect.DeepEqual(g, want) || want.Variables < 8 {
				t.Fatalf("%v: stats %+v, lifted %v: %+v", c.evidence, g, a, want)
			}
		}
	}
}

// On an edge list (lift.WriteEdgeList in 3 shards), the command writes
// lifted compress's statistics and every node's class, reading the shards
// only in the Beam jobs.
func TestColourpassEdgeList(t *testing.T) {
	ctx := context.Background()
	model, evid := "../../../examples/fg/smokers10.uai", "../../../examples/fg/smokers10.uai.evid"
	m, err := format.Load(model, format.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := format.LoadEvidence([]string{evid}, m.Graph)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ws := make([]io.Writer, 3)
	for i := range ws {
		f, err := os.Create(filepath.Join(dir, "edges-"+itoa(i)+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		ws[i] = f
	}
	if err := lift.WriteEdgeList(m.Graph, ev, lift.Options{}, ws); err != nil {
		t.Fatal(err)
	}
	c := config{input: filepath.Join(dir, "edges-*.txt"), output: filepath.Join(dir, "stats.json"), colorMode: "auto", parts: 3, perJob: 8, quiet: true}
	if err := run(ctx, &c); err != nil {
		t.Fatal(err)
	}
	cg, want, err := infer.Compress(ctx, m.Graph, ev, true, lift.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got infer.Stats
	b, err := os.ReadFile(c.output)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	got.ColorSeconds, want.ColorSeconds = 0, 0
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("stats %+v, lifted compress %+v", got, want)
	}
	cols, err := os.ReadFile(filepath.Join(dir, "stats.colours.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(cols)), "\n")
	var wantLines []string
	for v, x := range cg.NodeOf {
		wantLines = append(wantLines, "v "+itoa(v)+" "+itoa(int(x)))
	}
	for f, x := range cg.FactorOf {
		wantLines = append(wantLines, "f "+itoa(f)+" "+itoa(int(x)))
	}
	slices.Sort(lines)
	slices.Sort(wantLines)
	if !slices.Equal(lines, wantLines) {
		t.Fatalf("colour lines differ: %d lines, want %d", len(lines), len(wantLines))
	}
	c.evidence = []string{evid}
	if err := run(ctx, &c); err == nil || !strings.Contains(err.Error(), "do not apply") {
		t.Fatalf("--evidence with an edge list: %v", err)
	}
}
