package libdai

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/lifted-dev/lifted/pos"
)

// maxToken is the longest token the scanner accepts; no number needs more.
const maxToken = 1 << 10

// scanner splits its input into whitespace-separated tokens and records
// where each one starts. A token that begins with '#' starts a comment that
// runs to the end of the line.
type scanner struct {
	r    io.Reader
	file string

	buf  []byte // read buffer; unread bytes are buf[i:n]
	i, n int
	rerr error // first error from r (io.EOF at the end)

	line, col int // position of buf[i]

	tok  []byte       // current token; may alias buf
	acc  []byte       // holds a token that straddles two reads
	tpos pos.Position // where tok starts, or the end of input after next fails
	long bool         // tok was cut at maxToken
	back bool         // next returns the current token again
}

func newScanner(r io.Reader, file string) *scanner {
	return &scanner{r: r, file: file, buf: make([]byte, 64<<10), line: 1, col: 1}
}

// fill reads more input into an empty buffer; it reports whether any arrived.
func (s *scanner) fill() bool {
	for tries := 0; s.rerr == nil; tries++ {
		if tries == 100 {
			s.rerr = io.ErrNoProgress
			break
		}
		var k int
		k, s.rerr = s.r.Read(s.buf)
		s.i, s.n = 0, k
		if k > 0 {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// skip moves past white space and comments; it reports whether a token
// follows.
func (s *scanner) skip() bool {
	comment := false
	for {
		if s.i == s.n && !s.fill() {
			return false
		}
		c := s.buf[s.i]
		switch {
		case c == '\n':
			s.line++
			s.col = 1
			comment = false
		case comment || isSpace(c):
			s.col++
		case c == '#':
			comment = true
			s.col++
		default:
			return true
		}
		s.i++
	}
}

// next advances to the next token and reports whether there is one. When it
// returns false, tpos is the end of the input and endErr tells why.
func (s *scanner) next() bool {
	if s.back {
		s.back = false
		return true
	}
	s.tok, s.long = nil, false
	if !s.skip() {
		s.tpos = s.here()
		return false
	}
	s.tpos = s.here()
	// Fast path: the whole token is in the buffer.
	j := s.i
	for j < s.n && !isSpace(s.buf[j]) {
		j++
	}
	if j < s.n && j-s.i <= maxToken {
		s.tok = s.buf[s.i:j]
		s.col += j - s.i
		s.i = j
		return true
	}
	s.acc = s.acc[:0]
	for {
		for s.i < s.n && !isSpace(s.buf[s.i]) {
			if len(s.acc) < maxToken {
				s.acc = append(s.acc, s.buf[s.i])
			} else {
				s.long = true
			}
			s.i++
			s.col++
		}
		if s.i < s.n || !s.fill() {
			break
		}
	}
	s.tok = s.acc
	return true
}

// unread makes next return the current token again.
func (s *scanner) unread() { s.back = true }

func (s *scanner) here() pos.Position {
	return pos.Position{File: s.file, Line: s.line, Col: s.col}
}

// endErr returns the reason next returned false: a read error, if any, or else
// a truncated input where w was expected.
func (s *scanner) endErr(w subject) error {
	if err := s.ioErr(); err != nil {
		return err
	}
	return pos.Errorf(s.tpos, "unexpected end of file: expected %v", w)
}

// errorf returns an error at the current token.
func (s *scanner) errorf(format string, args ...any) error {
	return pos.Errorf(s.tpos, format, args...)
}

// quoted returns the current token quoted for a message, shortened if long.
func (s *scanner) quoted() string {
	t := s.tok
	if len(t) > 40 || s.long {
		return strconv.Quote(string(t[:min(len(t), 40)])) + "..."
	}
	return strconv.Quote(string(t))
}

// nextInt reads an integer token. When it fails, intErr tells why.
func (s *scanner) nextInt() (int64, bool) {
	if !s.next() || s.long {
		return 0, false
	}
	return parseInt(s.tok)
}

// intErr explains why nextInt failed; w names what was expected.
func (s *scanner) intErr(w subject) error {
	if s.tok == nil {
		return s.endErr(w)
	}
	return s.errorf("expected %v (an integer), found %s", w, s.quoted())
}

// nextEntry reads a table entry: a finite, non-negative number. When it
// fails, entryErr tells why.
func (s *scanner) nextEntry() (float64, bool) {
	if !s.next() || s.long {
		return 0, false
	}
	v, ok := parseFloat(s.tok)
	return v, ok && v >= 0 && v <= math.MaxFloat64
}

// entryErr explains why nextEntry failed; w names what was expected.
func (s *scanner) entryErr(w subject) error {
	if s.tok == nil {
		return s.endErr(w)
	}
	if _, ok := parseFloat(s.tok); !ok || s.long {
		return s.errorf("expected %v (a number), found %s", w, s.quoted())
	}
	return s.errorf("%v is %s; entries must be finite and non-negative", w, s.quoted())
}

// int reads an integer token.
func (s *scanner) int(w subject) (int64, error) {
	v, ok := s.nextInt()
	if !ok {
		return 0, s.intErr(w)
	}
	return v, nil
}

// count reads a non-negative integer no larger than limit.
func (s *scanner) count(w subject, limit int64) (int, error) {
	v, err := s.int(w)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, s.errorf("%v must not be negative, found %d", w, v)
	}
	if v > limit {
		return 0, s.errorf("%v is %d, more than the limit of %d", w, v, limit)
	}
	return int(v), nil
}

// float reads a decimal number token.
func (s *scanner) float(w subject) (float64, error) {
	if !s.next() {
		return 0, s.endErr(w)
	}
	v, ok := parseFloat(s.tok)
	if !ok || s.long {
		return 0, s.errorf("expected %v (a number), found %s", w, s.quoted())
	}
	return v, nil
}

// entry reads a table entry: a finite, non-negative number.
func (s *scanner) entry(w subject) (float64, error) {
	v, ok := s.nextEntry()
	if !ok {
		return 0, s.entryErr(w)
	}
	return v, nil
}

// end checks that nothing but white space and comments follows.
func (s *scanner) end(after string) error {
	if s.next() {
		return s.errorf("unexpected %s after %s: expected end of file", s.quoted(), after)
	}
	return s.ioErr()
}

// ioErr returns the reader's error, if it failed other than at the end.
func (s *scanner) ioErr() error {
	if s.rerr != nil && !errors.Is(s.rerr, io.EOF) {
		return pos.Errorf(s.tpos, "read error: %v", s.rerr)
	}
	return nil
}

// parseInt parses an optionally signed decimal integer that fits in int64.
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var u uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (1<<63)/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
		if u > 1<<63 {
			return 0, false
		}
	}
	if neg {
		return -int64(u), true // -(1<<63) wraps to itself, which is right
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// parseFloat parses a decimal number: sign, digits, point and exponent only,
// so no "inf", "nan", hex or underscores. A number too large for float64
// comes back as ±Inf with ok set.
func parseFloat(b []byte) (float64, bool) {
	if v, ok := fastFloat(b); ok {
		return v, true
	}
	for _, c := range b {
		if (c < '0' || c > '9') && c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+' {
			return 0, false
		}
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	return v, true
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// fastFloat parses the common numbers cheaply: a decimal with at most 15
// significant digits and a decimal exponent within ±22. Both the digits and
// the power of ten are then exact in float64, so one multiplication or
// division gives the correctly rounded result, as strconv would. It reports
// false for anything else, which parseFloat then hands to strconv.
func fastFloat(b []byte) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i++
	}
	var mant uint64
	digits, nd, exp := false, 0, 0 // nd counts significant digits
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		digits = true
		if mant > 0 || b[i] != '0' {
			mant = mant*10 + uint64(b[i]-'0')
			nd++
		}
		if nd > 15 {
			return 0, false
		}
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			digits = true
			if mant > 0 || b[i] != '0' {
				mant = mant*10 + uint64(b[i]-'0')
				nd++
			}
			if nd > 15 {
				return 0, false
			}
			exp--
		}
	}
	if !digits {
		return 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		e, ed := 0, 0
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if e < 1000 {
				e = e*10 + int(b[i]-'0')
			}
			ed++
		}
		if ed == 0 {
			return 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(b) {
		return 0, false
	}
	f := float64(mant)
	switch {
	case mant == 0 || exp == 0:
	case exp > 0 && exp < len(pow10):
		f *= pow10[exp]
	case exp < 0 && -exp < len(pow10):
		f /= pow10[-exp]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// subject names what the reader expects next, for error messages. It is
// formatted only when an error is reported, so hot loops stay cheap.
type subject struct {
	format string
	n      int
	args   [3]int
}

// about returns a subject; format takes only %d verbs, one per arg, and at
// most three.
func about(format string, args ...int) subject {
	w := subject{format: format}
	w.n = copy(w.args[:], args)
	return w
}

func (w subject) String() string {
	a := make([]any, w.n)
	for i := range a {
		a[i] = w.args[i]
	}
	return fmt.Sprintf(w.format, a...)
}
