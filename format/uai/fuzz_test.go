package uai

import (
	"bytes"
	"os"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/pos"
)

// fuzzSeeds are small valid and broken model files.
var fuzzSeeds = []string{
	"MARKOV\n1\n2\n1\n1 0\n2\n0.5 0.5\n",
	"BAYES\n2\n2 3\n2\n1 0\n2 0 1\n2\n0.4 0.6\n6\n0.1 0.2 0.7\n1 0 0\n",
	"MARKOV\n0\n\n1\n0\n1\n3\n",
	"MARKOV\n2\n2 2\n1\n2 0 0\n4\n1 1 1 1\n",
	"MARKOV\n2\n2 2\n1\n2 0 1\n3\n1 1 1\n",
	"MARKOV\n1\n2\n1\n1 0\n2\n-1 nan\n",
	"MARKOV\n2\n65536 65536\n1\n2 0 1\n",
	"MARKOV\n1\n2\n1\n1 0\n2\n1e-320 -0\n# end\n",
	"MARKOV 1 2 1 1 0 2 1",
	"",
}

func FuzzRead(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	for _, path := range []string{"testdata/markov.uai", "testdata/bayes.uai"} {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Read(bytes.NewReader(data), "fuzz.uai")
		if err != nil {
			if _, ok := err.(*pos.Error); !ok {
				t.Fatalf("error %v is a %T, not a *pos.Error", err, err)
			}
			if m != nil {
				t.Fatal("model returned with an error")
			}
			return
		}
		if err := m.Graph.Validate(); err != nil {
			t.Fatalf("read an invalid graph: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, m); err != nil {
			t.Fatalf("Write: %v", err)
		}
		m2, err := Read(&buf, "rewritten.uai")
		if err != nil {
			t.Fatalf("reading what Write wrote: %v", err)
		}
		if m2.Type != m.Type {
			t.Fatalf("type %q became %q", m.Type, m2.Type)
		}
		if err := fg.Diff(m.Graph, m2.Graph); err != nil {
			t.Fatalf("round trip: %v", err)
		}
	})
}

func FuzzReadEvidence(f *testing.F) {
	for _, s := range []string{
		"0", "1 0 1", "2 0 1 2 2", "1\n2 0 1 2 2\n", "2\n1 0 1\n1 2 0\n",
		"1 3 0", "2 0 1 0 0", "0 0", "-1", "1 2 0 1", "x",
	} {
		f.Add([]byte(s))
	}
	b := fg.NewBuilder()
	b.AddVar(2)
	b.AddVar(1)
	b.AddVar(3)
	g := b.Build()
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := ReadEvidence(bytes.NewReader(data), "fuzz.evid", g)
		if err != nil {
			if _, ok := err.(*pos.Error); !ok {
				t.Fatalf("error %v is a %T, not a *pos.Error", err, err)
			}
			return
		}
		if len(ev) != g.NumVars() {
			t.Fatalf("evidence has %d entries for %d variables", len(ev), g.NumVars())
		}
		for v, x := range ev {
			if x < -1 || x >= g.Card[v] {
				t.Fatalf("value %d for variable %d", x, v)
			}
		}
		var buf bytes.Buffer
		if err := WriteEvidence(&buf, ev); err != nil {
			t.Fatal(err)
		}
		ev2, err := ReadEvidence(&buf, "rewritten.evid", g)
		if err != nil {
			t.Fatalf("reading what WriteEvidence wrote: %v", err)
		}
		for v := range ev {
			if ev[v] != ev2[v] {
				t.Fatalf("round trip: %v became %v", ev, ev2)
			}
		}
	})
}

func FuzzReadMAR(f *testing.F) {
	for _, s := range []string{
		"MAR\n2 2 0.5 0.5 1 1\n", "MAR\n1\n1 2 0 1\n", "MAR 2 2 0.5 0.5 0 1", "PR\n-1.5\n", "PR 1 -inf", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, err := range []error{
			func() error { _, err := ReadMAR(bytes.NewReader(data), "fuzz.MAR"); return err }(),
			func() error { _, err := ReadPR(bytes.NewReader(data), "fuzz.PR"); return err }(),
		} {
			if _, ok := err.(*pos.Error); err != nil && !ok {
				t.Fatalf("error %v is a %T, not a *pos.Error", err, err)
			}
		}
	})
}
