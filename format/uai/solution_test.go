package uai

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestReadMARForms(t *testing.T) {
	want := [][]float64{{0.25, 0.75}, {1}, {0, 0.5, 0.5}}
	for _, in := range []string{
		"MAR\n3 2 0.25 0.75 1 1 3 0 0.5 0.5\n",
		"MAR\n3\n2 0.25 0.75\n1 1\n3 0 0.5 0.5\n",   // one variable per line
		"3 2 0.25 0.75 1 1 3 0 0.5 0.5",             // no header
		"MAR\n1\n3 2 0.25 0.75 1 1 3 0 0.5 0.5\n",   // 2010: one sample
		"MAR 2 3 2 0.25 0.75 1 1 3 0 0.5 0.5 1 1 1", // 2010: two samples
	} {
		got, err := ReadMAR(strings.NewReader(in), "in.MAR")
		if err != nil {
			t.Errorf("%q: %v", in, err)
			continue
		}
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%q: %v", in, got)
		}
	}
}

func TestReadMARErrors(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"empty", "", 1, 1, "unexpected end of file: expected the number of variables"},
		{"header only", "MAR\n", 2, 1, "unexpected end of file: expected the number of variables"},
		{"wrong header", "MPE\n1 0\n", 1, 1, `expected the number of variables (an integer), found "MPE"`},
		{"truncated", "MAR\n2 2 0.5 0.5 1", 2, 14, "unexpected end of file: expected probability 0 of variable 1"},
		{"zero cardinality", "MAR\n2 2 0.5 0.5 0 1\n", 2, 13, "variable 1 has cardinality 0; it must be at least 1"},
		{"negative probability", "MAR\n1 2 0.5 -0.5\n", 2, 9, `probability 1 of variable 0 is "-0.5"; entries must be finite and non-negative`},
		{"nan", "MAR\n1 2 NaN 1\n", 2, 5, `expected probability 0 of variable 0 (a number), found "NaN"`},
		{"trailing", "MAR\n1 2 0.5 0.5 9\n", 2, 13, `unexpected "9" after the marginals: expected end of file`},
		{"too many variables", "MAR 300000000", 1, 5, "the number of variables is 300000000, more than the limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := ReadMAR(strings.NewReader(tt.in), "in.MAR")
			if m != nil {
				t.Errorf("got marginals %v with the error", m)
			}
			checkPosError(t, err, "in.MAR", tt.line, tt.col, tt.msg)
		})
	}
}

func TestMARRoundTrip(t *testing.T) {
	m := [][]float64{{0.1, 0.9}, {1}, {1.0 / 3, 1.0 / 3, 1.0 / 3}, {5e-324, 1}}
	var buf bytes.Buffer
	if err := WriteMAR(&buf, m); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(buf.String()), "\n"); len(lines) != 2 || lines[0] != "MAR" || !strings.HasPrefix(lines[1], "4 2 0.1 0.9 1 1 3 ") {
		t.Errorf("WriteMAR wrote %q", buf.String())
	}
	got, err := ReadMAR(&buf, "w")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(got, m, slices.Equal) {
		t.Errorf("%v came back as %v", m, got)
	}
	if err := WriteMAR(&buf, [][]float64{{}}); err == nil {
		t.Error("empty marginal accepted")
	}
}

func TestWriteMPE(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteMPE(&buf, []int32{0, 2, 1}); err != nil {
		t.Fatal(err)
	}
	if buf.String() != "MPE\n3 0 2 1\n" {
		t.Errorf("WriteMPE wrote %q", buf.String())
	}
	if err := WriteMPE(&buf, []int32{-1}); err == nil {
		t.Error("negative value accepted")
	}
}

func TestReadPR(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"PR\n-17.2155\n", -17.2155},
		{"PR\n97.4412776799", 97.4412776799},
		{"3.5", 3.5},
		{"PR\n1\n-2.5\n", -2.5}, // 2010: one sample
		{"PR 2 -2.5 -3", -2.5},  // 2010: two samples
		{"PR\n-inf\n", math.Inf(-1)},
		{"PR\n-Infinity\n", math.Inf(-1)},
	}
	for _, tt := range tests {
		got, err := ReadPR(strings.NewReader(tt.in), "in.PR")
		if err != nil || got != tt.want {
			t.Errorf("%q: %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestReadPRErrors(t *testing.T) {
	tests := []struct {
		name, in  string
		line, col int
		msg       string
	}{
		{"empty", "", 1, 1, "unexpected end of file: expected the log10 partition function"},
		{"header only", "PR\n", 2, 1, "unexpected end of file: expected the log10 partition function"},
		{"not a number", "PR\nabc\n", 2, 1, `expected the log10 partition function (a number), found "abc"`},
		{"plus inf", "PR\n1e999\n", 2, 1, `the log10 partition function is "1e999"; it must be finite or -inf`},
		{"trailing", "PR\n1.5 2.5 3.5\n", 2, 5, `unexpected "2.5" after the log10 partition function`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadPR(strings.NewReader(tt.in), "in.PR")
			checkPosError(t, err, "in.PR", tt.line, tt.col, tt.msg)
		})
	}
}

func TestPRRoundTrip(t *testing.T) {
	for _, z := range []float64{-17.2155, 0, 1e-300, math.Inf(-1), 4685.25} {
		var buf bytes.Buffer
		if err := WritePR(&buf, z); err != nil {
			t.Fatal(err)
		}
		got, err := ReadPR(&buf, "w")
		if err != nil || got != z {
			t.Errorf("%v came back as %v, %v", z, got, err)
		}
	}
	if err := WritePR(&bytes.Buffer{}, math.NaN()); err == nil {
		t.Error("NaN accepted")
	}
}
