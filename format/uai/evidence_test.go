package uai

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

func readEvidenceFile(t *testing.T, path string, g *fg.Graph) fg.Evidence {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ev, err := ReadEvidence(f, path, g)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func TestReadEvidenceForms(t *testing.T) {
	g := readFile(t, "testdata/markov.uai").Graph
	want := fg.Evidence{1, -1, 2}
	for _, path := range []string{"testdata/markov.uai.evid", "testdata/markov2010.evid"} {
		if ev := readEvidenceFile(t, path, g); !slices.Equal(ev, want) {
			t.Errorf("%s: %v, want %v", path, ev, want)
		}
	}
	// Two samples: the first is used.
	if ev := readEvidenceFile(t, "testdata/markov2010two.evid", g); !slices.Equal(ev, fg.Evidence{1, -1, -1}) {
		t.Errorf("two samples: %v", ev)
	}
}

func TestReadEvidenceValid(t *testing.T) {
	g := readFile(t, "testdata/markov.uai").Graph
	tests := []struct {
		in   string
		want fg.Evidence
	}{
		{"0", fg.Evidence{-1, -1, -1}},
		{"\n 0 \n\n", fg.Evidence{-1, -1, -1}},
		{"1 1 0", fg.Evidence{-1, 0, -1}},
		{"2 0 1 0 1", fg.Evidence{1, -1, -1}}, // repeated, same value
		{"1\n0\n", fg.Evidence{-1, -1, -1}},   // 2010 form, one empty sample
		{"1 1 2 0", fg.Evidence{-1, -1, 0}},   // 2010 form, four tokens
		{"# comment\n1 2 1", fg.Evidence{-1, -1, 1}},
		{"3 2 2 1 1 0 0", fg.Evidence{0, 1, 2}},
	}
	for _, tt := range tests {
		ev, err := ReadEvidence(strings.NewReader(tt.in), "in.evid", g)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if !slices.Equal(ev, tt.want) {
			t.Errorf("%q: %v, want %v", tt.in, ev, tt.want)
		}
	}
}

func TestReadEvidenceErrors(t *testing.T) {
	g := readFile(t, "testdata/markov.uai").Graph // cardinalities 2 2 3
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"empty", "", 1, 1, "unexpected end of file: expected the number of observed variables"},
		{"not an integer", "1 0 x", 1, 5, `expected an integer, found "x"`},
		{"negative count", "-1", 1, 1, "expected the number of observed variables (or of samples), found -1"},
		{"variable out of range", "1 3 0", 1, 3, "observed variable 3 is out of range 0..2"},
		{"negative variable", "1 -1 0", 1, 3, "observed variable -1 is out of range 0..2"},
		{"value out of range", "1 2 3", 1, 5, "value 3 of variable 2 is out of range 0..2"},
		{"negative value", "1 0 -1", 1, 5, "value -1 of variable 0 is out of range 0..1"},
		{"conflict", "2 0 1\n0 0", 2, 1, "variable 0 observed twice with different values, 1 and 0"},
		{"zero samples", "0 0", 1, 1, "number of evidence samples is 0; there must be at least one (UAI-2010 evidence: the file has 2 tokens, not 2×0+1"},
		{"truncated 2010 pair", "1 3 0 1 1", 1, 10, "unexpected end of file: expected the value of observed variable 2 of 3 in sample 1 (UAI-2010 evidence"},
		{"truncated 2010 sample", "1 2 0 1", 1, 8, "unexpected end of file: expected observed variable 2 of 2 in sample 1 (UAI-2010 evidence"},
		// A truncated 2014 file has the wrong token count, so it reads as 2010.
		{"truncated 2014", "3 0 1 1", 1, 8, "unexpected end of file: expected the value of observed variable 1 of 1 in sample 2 (UAI-2010 evidence: the file has 4 tokens, not 2×3+1"},
		{"missing sample", "2\n1 0 1\n", 3, 1, "unexpected end of file: expected evidence sample 2 of 2"},
		{"trailing token", "1\n1 0 1\n5\n", 3, 1, "unexpected 5 after the 1 evidence samples (UAI-2010 evidence: the file has 5 tokens, not 2×1+1"},
		{"bad later sample", "2\n1 0 1\n1 0 2\n", 3, 5, "value 2 of variable 0 in sample 2 is out of range 0..1"},
		{"conflict in later sample", "2\n1 0 1\n2 1 0 1 1\n", 3, 7, "variable 1 observed twice in sample 2 with different values, 0 and 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := ReadEvidence(strings.NewReader(tt.in), "in.evid", g)
			if ev != nil {
				t.Errorf("got evidence %v with the error", ev)
			}
			checkPosError(t, err, "in.evid", tt.line, tt.col, tt.msg)
		})
	}
	if _, err := ReadEvidence(strings.NewReader("0"), "in.evid", nil); err == nil {
		t.Error("nil graph accepted")
	}
}

func TestEvidenceRoundTrip(t *testing.T) {
	g := readFile(t, "testdata/markov.uai").Graph
	for _, ev := range []fg.Evidence{{-1, -1, -1}, {1, -1, 2}, {0, 1, 0}, {-1, 1, -1}} {
		var buf bytes.Buffer
		if err := WriteEvidence(&buf, ev); err != nil {
			t.Fatal(err)
		}
		got, err := ReadEvidence(&buf, "w", g)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, ev) {
			t.Errorf("%v came back as %v", ev, got)
		}
	}
	var buf bytes.Buffer
	if err := WriteEvidence(&buf, fg.Evidence{1, -1, 2}); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "2 0 1 2 2\n" {
		t.Errorf("WriteEvidence wrote %q", buf.String())
	}
	buf.Reset()
	if err := WriteEvidence(&buf, nil); err != nil || buf.String() != "0\n" {
		t.Errorf("WriteEvidence(nil) wrote %q, %v", buf.String(), err)
	}
}
