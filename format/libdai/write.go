package libdai

import (
	"bufio"
	"io"
	"strconv"
)

// writer formats tokens onto a buffered writer; the first error sticks and
// comes back from flush.
type writer struct {
	w   *bufio.Writer
	tmp []byte
}

func newWriter(w io.Writer) *writer {
	return &writer{w: bufio.NewWriterSize(w, 64<<10), tmp: make([]byte, 0, 32)}
}

func (o *writer) str(s string) { o.w.WriteString(s) }
func (o *writer) byte(c byte)  { o.w.WriteByte(c) }
func (o *writer) nl()          { o.w.WriteByte('\n') }

// sep writes a space before every item but the first.
func (o *writer) sep(i int) {
	if i > 0 {
		o.w.WriteByte(' ')
	}
}

func (o *writer) int(x int64) { o.w.Write(strconv.AppendInt(o.tmp[:0], x, 10)) }

// float writes x in the shortest form that reads back exactly.
func (o *writer) float(x float64) { o.w.Write(strconv.AppendFloat(o.tmp[:0], x, 'g', -1, 64)) }

func (o *writer) flush() error { return o.w.Flush() }
