package dimacs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/lifted-dev/lifted/internal/shareddata"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/pos"
)

var sharedDir = shareddata.Path("cnf")

func mustRead(t *testing.T, s string) *cnf.CNF {
	t.Helper()
	c, err := Read(strings.NewReader(s), "test.cnf")
	if err != nil {
		t.Fatalf("Read(%q): %v", s, err)
	}
	return c
}

func TestReadValid(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want *cnf.CNF
	}{
		{"simple", "p cnf 3 2\n1 -2 0\n2 3 0\n", &cnf.CNF{NumVars: 3, Clauses: [][]int32{{1, -2}, {2, 3}}}},
		{"comments", "c hello\nc\np cnf 2 1\nc inside\n1 2 0\n", &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1, 2}}}},
		{"spanning", "p cnf 3 2\n1\n-2 0 2\n 3 0", &cnf.CNF{NumVars: 3, Clauses: [][]int32{{1, -2}, {2, 3}}}},
		{"two per line", "p cnf 2 2\n1 0 -2 0\n", &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1}, {-2}}}},
		{"missing final 0", "p cnf 2 2\n1 0\n-2 1", &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1}, {-2, 1}}}},
		{"satlib trailer", "p cnf 2 1\n1 2 0\n%\n0\n\n", &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1, 2}}}},
		{"trailer after open clause", "p cnf 2 1\n1 2\n%\n0\n", &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1, 2}}}},
		{"empty clause", "p cnf 1 2\n1 0\n0\n", &cnf.CNF{NumVars: 1, Clauses: [][]int32{{1}, {}}}},
		{"no clauses", "p cnf 5 0\n", &cnf.CNF{NumVars: 5, Clauses: [][]int32{}}},
		{"crlf and tabs", "p cnf 2 1\r\n1\t-2 0\r\n", &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1, -2}}}},
		{"plus sign", "p cnf 2 1\n+1 -2 0\n", &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1, -2}}}},
		{"header spaces", "p  cnf   20  1 \n1 0\n", &cnf.CNF{NumVars: 20, Clauses: [][]int32{{1}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustRead(t, tt.in)
			if !equalCNF(got, tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func equalCNF(a, b *cnf.CNF) bool {
	if a.NumVars != b.NumVars || len(a.Clauses) != len(b.Clauses) {
		return false
	}
	for i := range a.Clauses {
		if len(a.Clauses[i]) != len(b.Clauses[i]) {
			return false
		}
		for j := range a.Clauses[i] {
			if a.Clauses[i][j] != b.Clauses[i][j] {
				return false
			}
		}
	}
	return true
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		line, col int
		msg       string
	}{
		{"no header", "1 2 0\n", 1, 1, "expected header"},
		{"empty input", "", 1, 1, "missing header"},
		{"only comments", "c x\nc y\n", 3, 1, "missing header"},
		{"bad format", "p wcnf 2 1\n", 1, 3, "expected format \"cnf\""},
		{"header bad vars", "p cnf x 1\n", 1, 7, "number of variables"},
		{"header negative", "p cnf -3 1\n", 1, 7, "number of variables"},
		{"header short", "p cnf 3\n1 0\n", 2, 1, "expected number of clauses"},
		{"header trailing", "p cnf 3 1 7\n1 0\n", 1, 11, "unexpected \"7\""},
		{"header absurd vars", "p cnf 99999999999999 1\n", 1, 7, "exceeds the limit"},
		{"header absurd clauses", "p cnf 3 99999999999\n", 1, 9, "exceeds the limit"},
		{"second header", "p cnf 2 1\np cnf 2 1\n", 2, 1, "second header"},
		{"out of range", "p cnf 3 1\n1 -4 0\n", 2, 3, "literal -4 out of range"},
		{"huge literal", "p cnf 3 1\n1 99999999999999999999 0\n", 2, 3, "out of range"},
		{"not integer", "p cnf 3 1\n1 x 0\n", 2, 3, "expected a literal"},
		{"float", "p cnf 3 1\n1 2.5 0\n", 2, 3, "expected a literal"},
		{"lone minus", "p cnf 3 1\n1 - 0\n", 2, 3, "expected a literal"},
		{"too few clauses", "p cnf 3 3\n1 0\n2 0\n", 4, 1, "found 2 clauses, but the header declares 3"},
		{"too many clauses", "p cnf 3 1\n1 0\n2 0\n", 3, 1, "more clauses than the 1 declared"},
		{"comment mid line", "p cnf 3 1\n1 c 0\n", 2, 3, "expected a literal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Read(strings.NewReader(tt.in), "f.cnf")
			if err == nil {
				t.Fatalf("Read(%q) = %+v, want error", tt.in, c)
			}
			var pe *pos.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *pos.Error", err, err)
			}
			if pe.Pos.File != "f.cnf" || pe.Pos.Line != tt.line || pe.Pos.Col != tt.col {
				t.Errorf("error %q at %d:%d, want %d:%d", err, pe.Pos.Line, pe.Pos.Col, tt.line, tt.col)
			}
			if !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("error %q does not mention %q", err, tt.msg)
			}
		})
	}
}

type failingReader struct{ data string }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadIOError(t *testing.T) {
	_, err := Read(&failingReader{"p cnf 2 1\n1 "}, "f")
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("got %v, want the read error", err)
	}
}

func TestWriteRoundTrip(t *testing.T) {
	c := &cnf.CNF{NumVars: 7, Clauses: [][]int32{{1, -2, 3}, {}, {-7}, {4, 4, -4}}}
	var buf bytes.Buffer
	if err := Write(&buf, c); err != nil {
		t.Fatal(err)
	}
	want := "p cnf 7 4\n1 -2 3 0\n0\n-7 0\n4 4 -4 0\n"
	if buf.String() != want {
		t.Errorf("Write = %q, want %q", buf.String(), want)
	}
	got := mustRead(t, buf.String())
	if !equalCNF(got, c) {
		t.Errorf("round trip %+v, want %+v", got, c)
	}
}

// sharedFiles lists the .cnf files of the shared data directory, skipping
// the test when it is absent.
func sharedFiles(t testing.TB) []string {
	var files []string
	for _, pat := range []string{"*.cnf", "generated/*.cnf"} {
		m, err := filepath.Glob(filepath.Join(sharedDir, pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		shareddata.Skipf(t, "no shared CNF files in %s (directory absent); skipping", sharedDir)
	}
	return files
}

func TestReadShared(t *testing.T) {
	for _, path := range sharedFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Read(bytes.NewReader(data), path)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := Write(&buf, c); err != nil {
				t.Fatal(err)
			}
			c2, err := Read(&buf, "roundtrip")
			if err != nil {
				t.Fatal(err)
			}
			if !equalCNF(c, c2) {
				t.Fatal("round trip differs")
			}
		})
	}
}

func TestReadSharedHeaders(t *testing.T) {
	want := map[string][2]int{
		"uf20-01.cnf":      {20, 91},
		"2bitmax_6.cnf":    {252, 766},
		"lang12.cnf":       {576, 13584},
		"ls5-norm-gen.cnf": {125, 835},
	}
	for _, path := range sharedFiles(t) {
		w, ok := want[filepath.Base(path)]
		if !ok {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Read(f, path)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if c.NumVars != w[0] || len(c.Clauses) != w[1] {
			t.Errorf("%s: %d vars %d clauses, want %v", path, c.NumVars, len(c.Clauses), w)
		}
	}
}

// A formula several times the reader's buffer, read whole, one byte at a
// time and in halves, gives the same clauses as generated, and an error
// past the first buffer is placed where the generator put it: the literals
// are read straight from the buffer, and their positions carried across
// its refills.
func TestReadBufferBoundaries(t *testing.T) {
	var b strings.Builder
	want := &cnf.CNF{NumVars: 1000}
	for i := range 20000 {
		var cl []int32
		for k := range 1 + i%5 {
			v := int32(1 + (i*7+k*13)%1000)
			if (i+k)%3 == 0 {
				v = -v
			}
			cl = append(cl, v)
		}
		want.Clauses = append(want.Clauses, cl)
	}
	b.WriteString("c generated\np cnf 1000 20000\n")
	for i, cl := range want.Clauses {
		switch i % 97 {
		case 0:
			b.WriteString("c a comment between clauses\n")
		case 1:
			b.WriteString(strings.Repeat(" ", 100) + "\t\r\n") // a run of blanks longer than a refill's margin
		}
		for _, v := range cl {
			fmt.Fprintf(&b, "%d ", v)
		}
		if i%11 == 0 {
			b.WriteString("\n") // a clause across lines
		}
		b.WriteString("0\n")
	}
	in := b.String()
	if len(in) < 3*64<<10 {
		t.Fatalf("input of %d bytes: not several buffers", len(in))
	}
	for name, r := range map[string]io.Reader{
		"whole":    strings.NewReader(in),
		"one byte": iotest.OneByteReader(strings.NewReader(in)),
		"halves":   iotest.HalfReader(strings.NewReader(in)),
	} {
		got, err := Read(r, "big.cnf")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !equalCNF(got, want) {
			t.Errorf("%s: the clauses differ from those written", name)
		}
	}
	// An out-of-range literal on the line after the first 100,000 bytes,
	// as the third literal of its line.
	cut := strings.IndexByte(in[100000:], '\n') + 100001
	line := strings.Count(in[:cut], "\n") + 1
	bad := in[:cut] + "5 -6 1001 0\n" + in[cut:]
	for name, r := range map[string]io.Reader{"whole": strings.NewReader(bad), "one byte": iotest.OneByteReader(strings.NewReader(bad))} {
		_, err := Read(r, "big.cnf")
		var pe *pos.Error
		if !errors.As(err, &pe) || pe.Pos.Line != line || pe.Pos.Col != 6 || !strings.Contains(pe.Msg, "literal 1001 out of range") {
			t.Errorf("%s: got %v, want literal 1001 out of range at %d:6", name, err, line)
		}
	}
}
