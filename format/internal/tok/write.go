package tok

import (
	"bufio"
	"io"
	"math/bits"
	"strconv"
)

// Writer formats tokens onto a buffered writer. The methods do not report
// write errors: the first one sticks in the buffer and comes back from Flush.
type Writer struct {
	w   *bufio.Writer
	tmp []byte
}

// NewWriter returns a Writer buffering onto w; call Flush when done.
func NewWriter(w io.Writer) *Writer {
	return &Writer{w: bufio.NewWriterSize(w, 64<<10), tmp: make([]byte, 0, 32)}
}

// Str writes s.
func (o *Writer) Str(s string) { o.w.WriteString(s) }

// Byte writes c.
func (o *Writer) Byte(c byte) { o.w.WriteByte(c) }

// NL writes a newline.
func (o *Writer) NL() { o.w.WriteByte('\n') }

// Sep writes a space before every item but the first: call it with the
// item's index before writing the item.
func (o *Writer) Sep(i int) {
	if i > 0 {
		o.w.WriteByte(' ')
	}
}

// Int writes x in decimal.
func (o *Writer) Int(x int64) { o.w.Write(strconv.AppendInt(o.tmp[:0], x, 10)) }

// Float writes x in the shortest form that reads back exactly.
func (o *Writer) Float(x float64) { o.w.Write(strconv.AppendFloat(o.tmp[:0], x, 'g', -1, 64)) }

// Flush writes out the buffer and returns the first error of any write.
func (o *Writer) Flush() error { return o.w.Flush() }

// Product formats the product of dims (a table's size), exactly when it fits
// in 64 bits and to four significant digits otherwise, for size errors.
func Product(dims []int32) string {
	p, f := uint64(1), 1.0
	exact := true
	for _, d := range dims {
		hi, lo := bits.Mul64(p, uint64(d))
		exact = exact && hi == 0
		p = lo
		f *= float64(d)
	}
	if exact {
		return strconv.FormatUint(p, 10)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}
