package dimacs

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/pos"
)

// Read parses a DIMACS CNF formula from r; name is used in error positions.
//
// Comment lines ("c ...") may appear anywhere between tokens at the start of
// a line. The header "p cnf V C" must precede every clause; a clause may span
// lines and ends with 0. A token starting with "%" at the start of a line
// (the SATLIB trailer) ends the input, and a last clause that lacks its 0 at
// the end of input is accepted. A literal out of range, a token that is not
// an integer, a missing or malformed header, and a number of clauses that
// differs from the header's are reported as a *pos.Error.
func Read(r io.Reader, name string) (*cnf.CNF, error) {
	p := &parser{r: bufio.NewReaderSize(r, 64<<10), file: name, line: 1}
	return p.parse()
}

// token is one whitespace-separated word of the input.
type token struct {
	text  []byte
	pos   pos.Position
	first bool // first token on its line
}

type parser struct {
	r    *bufio.Reader
	file string
	line int
	col  int  // column of the last byte read
	bol  bool // no token read yet on the current line
	buf  []byte
	// pending is a token read ahead by header and not yet consumed.
	pending *token
	// eofErr keeps a read error other than io.EOF, reported by ioError.
	eofErr error
}

// readByte returns the next byte and advances the position; io.EOF at the
// end. Other read errors are kept in p.eofErr and reported as end of input
// by the caller.
func (p *parser) readByte() (byte, bool) {
	b, err := p.r.ReadByte()
	if err != nil {
		if !errors.Is(err, io.EOF) {
			p.eofErr = err
		}
		return 0, false
	}
	if b == '\n' {
		p.line++
		p.col = 0
		p.bol = true
	} else {
		p.col++
	}
	return b, true
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}

// skipLine discards input up to and including the next newline.
func (p *parser) skipLine() {
	for {
		b, ok := p.readByte()
		if !ok || b == '\n' {
			return
		}
	}
}

// next returns the next token, or ok=false at end of input.
func (p *parser) next() (token, bool) {
	var b byte
	for {
		var ok bool
		b, ok = p.readByte()
		if !ok {
			return token{}, false
		}
		if !isSpace(b) {
			break
		}
	}
	t := token{pos: pos.Position{File: p.file, Line: p.line, Col: p.col}, first: p.bol}
	p.bol = false
	p.buf = append(p.buf[:0], b)
	for {
		nb, err := p.r.ReadByte()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				p.eofErr = err
			}
			break
		}
		if isSpace(nb) {
			if err := p.r.UnreadByte(); err != nil {
				p.eofErr = err
			}
			break
		}
		p.col++
		p.buf = append(p.buf, nb)
	}
	t.text = p.buf
	return t, true
}

// here is the current position (just past the last byte read).
func (p *parser) here() pos.Position {
	return pos.Position{File: p.file, Line: p.line, Col: p.col + 1}
}

// parseInt parses a decimal integer with optional sign, refusing values
// whose magnitude exceeds limit.
func parseInt(s []byte, limit int64) (v int64, ok bool) {
	if len(s) == 0 {
		return 0, false
	}
	neg := false
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	if len(s) == 0 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
		if v > limit {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

func isInt(s []byte) bool {
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if len(s) == 0 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (p *parser) errorf(at pos.Position, format string, args ...any) error {
	return pos.Errorf(at, format, args...)
}

// ioError reports a read failure other than end of input.
func (p *parser) ioError() error {
	if p.eofErr == nil {
		return nil
	}
	return p.errorf(p.here(), "read error: %v", p.eofErr)
}

// Memory per declared variable and clause, measured on lifted count and
// lifted infer of headers with few clauses (count: 138 MB for 10^6
// variables): the least any use of the formula takes.
const (
	bytesPerVar    = 140
	bytesPerClause = 200
)

// header parses "p cnf V C" after the "p" token t.
func (p *parser) header(t token) (nv, nc int64, err error) {
	if string(t.text) != "p" {
		return 0, 0, p.errorf(t.pos, "expected header \"p cnf <variables> <clauses>\", found %q", t.text)
	}
	line := p.line
	want := [3]string{"format \"cnf\"", "number of variables", "number of clauses"}
	var vals [2]int64
	for i := range 3 {
		u, ok := p.next()
		if !ok || u.pos.Line != line {
			at := p.here()
			if ok {
				at = u.pos
			}
			if err := p.ioError(); err != nil {
				return 0, 0, err
			}
			return 0, 0, p.errorf(at, "header: expected %s after \"p\"", want[i])
		}
		if i == 0 {
			if string(u.text) != "cnf" {
				return 0, 0, p.errorf(u.pos, "header: expected format \"cnf\", found %q", u.text)
			}
			continue
		}
		limit := int64(cnf.MaxVars)
		if i == 2 {
			limit = cnf.MaxClauses
		}
		v, ok := parseInt(u.text, limit)
		switch {
		case ok && v >= 0:
			vals[i-1] = v
		case isInt(u.text) && u.text[0] != '-':
			return 0, 0, p.errorf(u.pos, "header: %s %s exceeds the limit %d", want[i], u.text, limit)
		default:
			return 0, 0, p.errorf(u.pos, "header: expected %s (a non-negative integer), found %q", want[i], u.text)
		}
	}
	// What the declared sizes will take, checked before anything is
	// allocated for them (the formula, its graph, a count's tables).
	if err := memlimit.Check(fmt.Sprintf("a CNF of %d variables and %d clauses (as its header declares)", vals[0], vals[1]),
		bytesPerVar*float64(vals[0])+bytesPerClause*float64(vals[1])); err != nil {
		return 0, 0, p.errorf(t.pos, "%v", err)
	}
	// Nothing else may follow on the header line.
	if !p.bol {
		u, ok := p.next()
		if ok && u.pos.Line == line {
			return 0, 0, p.errorf(u.pos, "header: unexpected %q after the number of clauses", u.text)
		}
		if ok {
			p.pending = &u
		}
	}
	return vals[0], vals[1], nil
}

func (p *parser) parse() (*cnf.CNF, error) {
	p.bol = true
	var (
		nv, nc    int64 = -1, -1
		lits      []int32
		ends      []int
		inClause  bool
		sawHeader bool
	)
	for {
		if sawHeader && p.pending == nil {
			// The common case, the literals of the clauses, read
			// without making tokens.
			if err := p.clauses(nv, nc, &lits, &ends, &inClause); err != nil {
				return nil, err
			}
		}
		t, ok := p.token()
		if !ok {
			break
		}
		if t.first && t.text[0] == 'c' {
			p.skipLine()
			continue
		}
		if t.first && t.text[0] == '%' {
			break
		}
		if !sawHeader {
			if t.text[0] != 'p' {
				return nil, p.errorf(t.pos, "expected header \"p cnf <variables> <clauses>\" before the first clause, found %q", t.text)
			}
			var err error
			nv, nc, err = p.header(t)
			if err != nil {
				return nil, err
			}
			sawHeader = true
			lits = make([]int32, 0, min(4*nc, 1<<20))
			ends = make([]int, 0, min(nc, 1<<18))
			continue
		}
		if t.text[0] == 'p' && t.first {
			return nil, p.errorf(t.pos, "second header; expected a literal or 0")
		}
		v, ok := parseInt(t.text, nv)
		if !ok {
			if isInt(t.text) {
				return nil, p.errorf(t.pos, "literal %s out of range: the header declares %d variables", t.text, nv)
			}
			return nil, p.errorf(t.pos, "expected a literal (a non-zero integer) or 0, found %q", t.text)
		}
		if !inClause {
			if int64(len(ends)) == nc {
				return nil, p.errorf(t.pos, "more clauses than the %d declared in the header", nc)
			}
			inClause = true
		}
		if v == 0 {
			ends = append(ends, len(lits))
			inClause = false
			continue
		}
		lits = append(lits, int32(v))
	}
	if err := p.ioError(); err != nil {
		return nil, err
	}
	if !sawHeader {
		return nil, p.errorf(p.here(), "missing header \"p cnf <variables> <clauses>\"")
	}
	if inClause { // last clause without its terminating 0
		ends = append(ends, len(lits))
	}
	if int64(len(ends)) != nc {
		return nil, p.errorf(p.here(), "found %d clauses, but the header declares %d", len(ends), nc)
	}
	c := &cnf.CNF{NumVars: int(nv), Clauses: make([][]int32, len(ends))}
	start := 0
	for i, e := range ends {
		c.Clauses[i] = lits[start:e:e]
		start = e
	}
	return c, nil
}

// clauses reads the literals and 0s that follow in the buffered input, as
// parse's loop would one token at a time (the same formula, the same
// positions and errors), without making tokens: each one a decimal integer
// of at most nv in magnitude followed by whitespace. It stops before any
// other token (a comment, the trailer, an error, one at the end of the
// input), which parse reads with next.
func (p *parser) clauses(nv, nc int64, litsp *[]int32, endsp *[]int, inClausep *bool) error {
	lits, ends, inClause := *litsp, *endsp, *inClausep
	defer func() { *litsp, *endsp, *inClausep = lits, ends, inClause }()
	for {
		if p.r.Buffered() < 64 {
			// Fill the buffer (at the end of the input: what is left). A
			// read error is kept, as readByte keeps it: bufio reports it
			// once.
			if _, err := p.r.Peek(64); err != nil && !errors.Is(err, io.EOF) {
				p.eofErr = err
			}
		}
		buf, _ := p.r.Peek(p.r.Buffered())
		line, col := p.line, p.col // after the last literal taken
		done := 0                  // bytes taken, up to the end of that literal
		for len(buf)-done >= 64 || done == 0 {
			l, c := line, col
			i := done
			for i < len(buf) && isSpace(buf[i]) {
				if buf[i] == '\n' {
					l, c = l+1, 0
				} else {
					c++
				}
				i++
			}
			start := i
			neg := i < len(buf) && buf[i] == '-'
			if neg {
				i++
			}
			digits := i
			var v int64
			for i < len(buf) && buf[i] >= '0' && buf[i] <= '9' && v <= nv {
				v = v*10 + int64(buf[i]-'0')
				i++
			}
			if i == digits || v > nv || i == len(buf) || !isSpace(buf[i]) {
				break
			}
			if !inClause {
				if int64(len(ends)) == nc {
					return p.errorf(pos.Position{File: p.file, Line: l, Col: c + 1}, "more clauses than the %d declared in the header", nc)
				}
				inClause = true
			}
			if v == 0 {
				ends = append(ends, len(lits))
				inClause = false
			} else {
				if neg {
					v = -v
				}
				lits = append(lits, int32(v))
			}
			line, col, done = l, c+i-start, i
		}
		if done == 0 {
			return nil
		}
		p.line, p.col, p.bol = line, col, false
		p.r.Discard(done)
	}
}

// token returns a token pushed back by header, or the next one.
func (p *parser) token() (token, bool) {
	if p.pending != nil {
		t := *p.pending
		p.pending = nil
		return t, true
	}
	return p.next()
}
