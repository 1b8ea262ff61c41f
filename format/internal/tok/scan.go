package tok

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/lifted-dev/lifted/pos"
)

// maxToken is the longest token the Scanner keeps; a longer one is cut and
// reported by Long. No number needs more.
const maxToken = 1 << 10

// Scanner splits its input into whitespace-separated tokens and records
// where each one starts. A token that begins with '#' starts a comment that
// runs to the end of the line. Errors it returns are *pos.Error values at the
// current token (or at the end of the input).
type Scanner struct {
	r    io.Reader
	file string

	buf  []byte // read buffer; unread bytes are buf[i:n]
	i, n int
	rerr error // first error from r (io.EOF at the end)

	line, col int // position of buf[i]

	tok  []byte       // current token; may alias buf
	acc  []byte       // holds a token that straddles two reads
	tpos pos.Position // where tok starts, or the end of input after Next fails
	long bool         // tok was cut at maxToken
	back bool         // Next returns the current token again
}

// NewScanner returns a Scanner reading r; file names the input in error
// positions.
func NewScanner(r io.Reader, file string) *Scanner {
	return &Scanner{r: r, file: file, buf: make([]byte, 64<<10), line: 1, col: 1}
}

// fill reads more input into an empty buffer; it reports whether any arrived.
func (s *Scanner) fill() bool {
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

// isSpace reports whether c is ASCII white space.
func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// skip moves past white space and comments; it reports whether a token
// follows.
func (s *Scanner) skip() bool {
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

// Next advances to the next token and reports whether there is one. When it
// returns false, Pos is the end of the input, Token is nil and EndErr tells
// why.
func (s *Scanner) Next() bool {
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

// Unread makes the next call of Next return the current token again.
func (s *Scanner) Unread() { s.back = true }

// Token returns the current token, or nil after Next returned false. The slice
// may alias the read buffer and is valid only until the next call of Next.
func (s *Scanner) Token() []byte { return s.tok }

// Long reports whether the current token was longer than 1024 bytes and was
// cut (no number needs that many).
func (s *Scanner) Long() bool { return s.long }

// Pos returns where the current token starts, or the end of the input after
// Next returned false.
func (s *Scanner) Pos() pos.Position { return s.tpos }

// File returns the input's name as given to NewScanner.
func (s *Scanner) File() string { return s.file }

// here returns the position of the next unread byte.
func (s *Scanner) here() pos.Position {
	return pos.Position{File: s.file, Line: s.line, Col: s.col}
}

// EndErr returns the reason Next returned false: a read error, if any, or else
// a truncated input where w was expected.
func (s *Scanner) EndErr(w Subject) error {
	if err := s.IOErr(); err != nil {
		return err
	}
	return pos.Errorf(s.tpos, "unexpected end of file: expected %v", w)
}

// Errorf returns a *pos.Error at the current token.
func (s *Scanner) Errorf(format string, args ...any) error {
	return pos.Errorf(s.tpos, format, args...)
}

// Quoted returns the current token quoted for a message, shortened if long.
func (s *Scanner) Quoted() string {
	t := s.tok
	if len(t) > 40 || s.long {
		return strconv.Quote(string(t[:min(len(t), 40)])) + "..."
	}
	return strconv.Quote(string(t))
}

// NextInt reads an integer token. When it fails, IntErr tells why; it builds
// no error itself, which keeps hot loops cheap.
func (s *Scanner) NextInt() (int64, bool) {
	if !s.Next() || s.long {
		return 0, false
	}
	return ParseInt(s.tok)
}

// IntErr explains why NextInt failed; w names what was expected.
func (s *Scanner) IntErr(w Subject) error {
	if s.tok == nil {
		return s.EndErr(w)
	}
	return s.Errorf("expected %v (an integer), found %s", w, s.Quoted())
}

// NextEntry reads a table entry: a finite, non-negative number. When it
// fails, EntryErr tells why; it builds no error itself, which keeps hot loops
// cheap.
func (s *Scanner) NextEntry() (float64, bool) {
	if !s.Next() || s.long {
		return 0, false
	}
	v, ok := ParseFloat(s.tok)
	return v, ok && v >= 0 && v <= math.MaxFloat64
}

// EntryErr explains why NextEntry failed; w names what was expected.
func (s *Scanner) EntryErr(w Subject) error {
	if s.tok == nil {
		return s.EndErr(w)
	}
	if _, ok := ParseFloat(s.tok); !ok || s.long {
		return s.Errorf("expected %v (a number), found %s", w, s.Quoted())
	}
	return s.Errorf("%v is %s; entries must be finite and non-negative", w, s.Quoted())
}

// Int reads an integer token; w names what was expected.
func (s *Scanner) Int(w Subject) (int64, error) {
	v, ok := s.NextInt()
	if !ok {
		return 0, s.IntErr(w)
	}
	return v, nil
}

// Count reads a non-negative integer no larger than limit; w names what was
// expected.
func (s *Scanner) Count(w Subject, limit int64) (int, error) {
	v, err := s.Int(w)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, s.Errorf("%v must not be negative, found %d", w, v)
	}
	if v > limit {
		return 0, s.Errorf("%v is %d, more than the limit of %d", w, v, limit)
	}
	return int(v), nil
}

// Float reads a decimal number token (any sign; ±Inf when out of range); w
// names what was expected.
func (s *Scanner) Float(w Subject) (float64, error) {
	if !s.Next() {
		return 0, s.EndErr(w)
	}
	v, ok := ParseFloat(s.tok)
	if !ok || s.long {
		return 0, s.Errorf("expected %v (a number), found %s", w, s.Quoted())
	}
	return v, nil
}

// Entry reads a table entry: a finite, non-negative number; w names what was
// expected.
func (s *Scanner) Entry(w Subject) (float64, error) {
	v, ok := s.NextEntry()
	if !ok {
		return 0, s.EntryErr(w)
	}
	return v, nil
}

// End checks that nothing but white space and comments follows; after names
// the last thing read, for the error message.
func (s *Scanner) End(after string) error {
	if s.Next() {
		return s.Errorf("unexpected %s after %s: expected end of file", s.Quoted(), after)
	}
	return s.IOErr()
}

// IOErr returns the reader's error, if it failed other than at the end.
func (s *Scanner) IOErr() error {
	if s.rerr != nil && !errors.Is(s.rerr, io.EOF) {
		return pos.Errorf(s.tpos, "read error: %v", s.rerr)
	}
	return nil
}

// ParseInt parses an optionally signed decimal integer that fits in int64.
func ParseInt(b []byte) (int64, bool) {
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

// ParseFloat parses a decimal number: sign, digits, point and exponent only,
// so no "inf", "nan", hex or underscores. A number too large for float64
// comes back as ±Inf with ok set.
func ParseFloat(b []byte) (float64, bool) {
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
// false for anything else, which ParseFloat then hands to strconv.
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

// Subject names what a reader expects next, for error messages. It is
// formatted only when an error is reported, so hot loops stay cheap. Make one
// with About.
type Subject struct {
	format string
	n      int
	args   [3]int
}

// About returns a Subject; format takes only %d verbs, one per arg, and at
// most three.
func About(format string, args ...int) Subject {
	w := Subject{format: format}
	w.n = copy(w.args[:], args)
	return w
}

// String formats the subject.
func (w Subject) String() string {
	a := make([]any, w.n)
	for i := range a {
		a[i] = w.args[i]
	}
	return fmt.Sprintf(w.format, a...)
}
