package dimacs

import (
	"bufio"
	"io"
	"strconv"

	"github.com/lifted-dev/lifted/cnf"
)

// Write writes c in DIMACS CNF: the header and one clause per line. Reading
// the output back gives a formula equal to c.
func Write(w io.Writer, c *cnf.CNF) error {
	bw := bufio.NewWriter(w)
	buf := make([]byte, 0, 256)
	buf = append(buf, "p cnf "...)
	buf = strconv.AppendInt(buf, int64(c.NumVars), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(len(c.Clauses)), 10)
	buf = append(buf, '\n')
	for _, cl := range c.Clauses {
		for _, l := range cl {
			buf = strconv.AppendInt(buf, int64(l), 10)
			buf = append(buf, ' ')
		}
		buf = append(buf, '0', '\n')
		if len(buf) > 4096 {
			if _, err := bw.Write(buf); err != nil {
				return err
			}
			buf = buf[:0]
		}
	}
	if _, err := bw.Write(buf); err != nil {
		return err
	}
	return bw.Flush()
}
