package dimacs

import (
	"bytes"
	"testing"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/internal/memlimit"
)

func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"p cnf 3 2\n1 -2 0\n2 3 0\n",
		"c comment\np cnf 2 1\n1 2\n",
		"p cnf 2 1\n1 2 0\n%\n0\n",
		"p cnf 1 1\n0\n",
		"p cnf 0 0\n",
		"p cnf 3 1\n1 -4 0\n",
		"p cnf 3 1 1\n",
		"p cnf 2147483648 1\n",
		"1 2 0\n",
		"p cnf 2 2\n1 0 -2 0",
		"\r\np\tcnf 2 1\r\n+2 -1 0\r\n",
		"p cnf 268435456 1\n1 0\n", // the variable limit: refused by the memory budget
		"p cnf 10000000 1\n1 -2 0\n",
	} {
		f.Add([]byte(s))
	}
	// A budget of 64 MB: headers declaring more are refused (about 450,000
	// variables), so that no input makes the fuzzer allocate gigabytes.
	memlimit.Set(64 << 20)
	defer memlimit.Set(0)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Read(bytes.NewReader(data), "fuzz")
		if err != nil {
			if c != nil {
				t.Fatalf("Read returned both a formula and error %v", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Read accepted an invalid formula: %v", err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, c); err != nil {
			t.Fatal(err)
		}
		c2, err := Read(&buf, "roundtrip")
		if err != nil {
			t.Fatalf("reading Write's output: %v\n%s", err, buf.Bytes())
		}
		if !equalCNF(c, c2) {
			t.Fatalf("round trip differs: %+v vs %+v", c, c2)
		}
		for _, cl := range c.Clauses {
			if len(cl) > 12 {
				return // keep tables small
			}
		}
		if g, err := cnf.ToGraph(c); err == nil {
			if g.NumVars() != c.NumVars {
				t.Fatalf("graph has %d variables, formula %d", g.NumVars(), c.NumVars)
			}
		}
	})
}
