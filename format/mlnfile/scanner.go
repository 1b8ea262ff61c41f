package mlnfile

import (
	"strconv"
	"unicode/utf8"
)

// scanner splits Alchemy .mln and .db text into tokens. It never fails:
// malformed input becomes a tIllegal token whose msg says what is wrong, and
// the parser turns that into a positioned error.
//
// Lexical rules (Alchemy's, with the extensions noted):
//   - "//" comments run to the end of the line; "/* */" comments may span lines
//     and then count as a line break (as in Go).
//   - Identifiers are a letter or '_' followed by letters, digits, '_', '\”
//     and '-' (a '-' only when a letter, digit or '_' follows), so constants
//     such as Protein_YLR438c-a lex as one identifier, as in Alchemy.
//   - Numbers are an optional '-', digits, an optional fraction and an
//     optional exponent; ".5" and "-.5" are numbers too. A '.' that is not
//     followed by a digit is not part of the number ("3." lexes as 3 and a
//     period; the parser glues them back together where a weight is
//     expected).
//   - Strings are double-quoted with backslash escapes and may not span lines.
//   - "v" is an ordinary identifier here; the parser treats it as the
//     disjunction operator where an operator is expected.
type scanner struct {
	src  []byte
	text string // src as a string; token texts are substrings of it
	off  int
	line int
	col  int // column of src[off]
}

func newScanner(src []byte) *scanner {
	s := &scanner{src: src, text: string(src), line: 1, col: 1}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		s.off = 3 // UTF-8 byte order mark
	}
	return s
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isIdentStart(c byte) bool {
	return isLetter(c) || c == '_'
}
func isIdentChar(c byte) bool {
	return isLetter(c) || isDigit(c) || c == '_' || c == '\''
}

func (s *scanner) peekAt(i int) byte {
	if s.off+i < len(s.src) {
		return s.src[s.off+i]
	}
	return 0
}

// advance moves n bytes forward on the current line.
func (s *scanner) advance(n int) {
	s.off += n
	s.col += n
}

func (s *scanner) newline(n int) {
	s.off += n
	s.line++
	s.col = 1
}

// next returns the next token.
func (s *scanner) next() token {
	for {
		// Skip blanks and comments.
		for s.off < len(s.src) {
			c := s.src[s.off]
			if c == ' ' || c == '\t' || c == '\f' || c == '\v' {
				s.advance(1)
				continue
			}
			break
		}
		if s.off >= len(s.src) {
			return token{kind: tEOF, off: s.off, end: s.off, line: s.line, col: s.col}
		}
		t := token{off: s.off, line: s.line, col: s.col}
		c := s.src[s.off]
		switch {
		case c == '\n' || c == '\r':
			n := 1
			if c == '\r' && s.peekAt(1) == '\n' {
				n = 2
			}
			s.newline(n)
			t.kind, t.end, t.text = tNewline, s.off, "\n"
			return t
		case c == '/' && s.peekAt(1) == '/':
			for s.off < len(s.src) && s.src[s.off] != '\n' && s.src[s.off] != '\r' {
				s.advance(1)
			}
			continue
		case c == '/' && s.peekAt(1) == '*':
			spansLines := false
			s.advance(2)
			closed := false
			for s.off < len(s.src) {
				switch d := s.src[s.off]; {
				case d == '*' && s.peekAt(1) == '/':
					s.advance(2)
					closed = true
				case d == '\r' && s.peekAt(1) == '\n':
					s.newline(2)
					spansLines = true
				case d == '\n' || d == '\r':
					s.newline(1)
					spansLines = true
				default:
					s.advance(1)
				}
				if closed {
					break
				}
			}
			if !closed {
				t.kind, t.end, t.text = tIllegal, s.off, "/*"
				t.msg = "comment not terminated: \"/*\" has no matching \"*/\""
				return t
			}
			if spansLines {
				t.kind, t.end, t.text = tNewline, s.off, "\n"
				return t
			}
			continue
		case isIdentStart(c):
			s.advance(1)
			for s.off < len(s.src) {
				d := s.src[s.off]
				if isIdentChar(d) || d == '-' && isIdentChar(s.peekAt(1)) && s.peekAt(1) != '\'' {
					s.advance(1)
					continue
				}
				break
			}
			t.kind, t.end, t.text = tIdent, s.off, s.text[t.off:s.off]
			return t
		case isDigit(c) || (c == '-' || c == '.') && isDigit(s.peekAt(1)) || c == '-' && s.peekAt(1) == '.' && isDigit(s.peekAt(2)):
			return s.number(t)
		case c == '"':
			return s.str(t)
		}
		// Operators and punctuation.
		kind, n := tIllegal, 1
		switch c {
		case '(':
			kind = tLParen
		case ')':
			kind = tRParen
		case '{':
			kind = tLBrace
		case '}':
			kind = tRBrace
		case '[':
			kind = tLBrack
		case ']':
			kind = tRBrack
		case ',':
			kind = tComma
		case '^':
			kind = tAnd
		case '+':
			kind = tPlus
		case '*':
			kind = tStar
		case '?':
			kind = tQuestion
		case '@':
			kind = tAt
		case ':':
			kind = tColon
			if s.peekAt(1) == '-' {
				kind, n = tIf, 2
			}
		case '/':
			kind = tSlash
		case '!':
			kind = tNot
			if s.peekAt(1) == '=' {
				kind, n = tNeq, 2
			}
		case '=':
			kind = tEq
			if s.peekAt(1) == '>' {
				kind, n = tImplies, 2
			} else if s.peekAt(1) == '/' && s.peekAt(2) == '=' {
				kind, n = tNeq, 3 // pracmln's "=/="
			}
		case '<':
			kind = tLt
			if s.peekAt(1) == '=' {
				kind, n = tLe, 2
				if s.peekAt(2) == '>' {
					kind, n = tIff, 3
				}
			} else if s.peekAt(1) == '-' && s.peekAt(2) == '>' {
				kind, n = tIllegal, 3 // "<->", reported with a hint
			}
		case '-':
			if s.peekAt(1) == '>' {
				n = 2 // "->", reported with a hint
			} else {
				kind = tMinus
			}
		case '|', '&':
			if s.peekAt(1) == c {
				n = 2 // "||", "&&"
			}
		case '>':
			kind = tGt
			if s.peekAt(1) == '=' {
				kind, n = tGe, 2
			}
		case '.':
			kind = tDot
			if s.peekAt(1) == '.' && s.peekAt(2) == '.' {
				kind, n = tEllipsis, 3
			}
		case '#':
			const inc = "#include"
			if len(s.src)-s.off >= len(inc) && string(s.src[s.off:s.off+len(inc)]) == inc &&
				(s.off+len(inc) == len(s.src) || !isIdentChar(s.src[s.off+len(inc)])) {
				kind, n = tInclude, len(inc)
			} else {
				// Take the whole word for the message: "#domains".
				for s.off+n < len(s.src) && isIdentChar(s.src[s.off+n]) {
					n++
				}
			}
		default:
			if c >= utf8.RuneSelf {
				_, n = utf8.DecodeRune(s.src[s.off:])
			}
		}
		s.advance(n)
		t.kind, t.end, t.text = kind, s.off, s.text[t.off:s.off]
		return t
	}
}

// number scans a numeric literal starting at t.off.
func (s *scanner) number(t token) token {
	if s.src[s.off] == '-' {
		s.advance(1)
	}
	digits := func() {
		for s.off < len(s.src) && isDigit(s.src[s.off]) {
			s.advance(1)
		}
	}
	digits()
	if s.peekAt(0) == '.' && isDigit(s.peekAt(1)) {
		s.advance(1)
		digits()
	} else if s.peekAt(0) == '.' && (s.peekAt(1) == 'e' || s.peekAt(1) == 'E') &&
		(isDigit(s.peekAt(2)) || (s.peekAt(2) == '-' || s.peekAt(2) == '+') && isDigit(s.peekAt(3))) {
		s.advance(1) // "3.e5"
	}
	if c := s.peekAt(0); (c == 'e' || c == 'E') &&
		(isDigit(s.peekAt(1)) || (s.peekAt(1) == '-' || s.peekAt(1) == '+') && isDigit(s.peekAt(2))) {
		s.advance(2)
		digits()
	}
	t.kind = tNumber
	// A number glued to letters, digits or further dots ("3D", "1.2.3",
	// "1e") is malformed; swallow the rest so the error names all of it.
	if s.off < len(s.src) && (isIdentChar(s.src[s.off]) || s.src[s.off] == '.' && isDigit(s.peekAt(1))) {
		for s.off < len(s.src) && (isIdentChar(s.src[s.off]) || s.src[s.off] == '.' && (isDigit(s.peekAt(1)) || isIdentChar(s.peekAt(1)))) {
			s.advance(1)
		}
		t.kind = tIllegal
		t.msg = "malformed number " + strconv.Quote(s.text[t.off:s.off])
	}
	t.end, t.text = s.off, s.text[t.off:s.off]
	return t
}

// str scans a double-quoted string; the token text keeps the quotes.
func (s *scanner) str(t token) token {
	s.advance(1)
	for s.off < len(s.src) {
		switch c := s.src[s.off]; c {
		case '"':
			s.advance(1)
			t.kind, t.end, t.text = tString, s.off, s.text[t.off:s.off]
			return t
		case '\\':
			if d := s.peekAt(1); d != 0 && d != '\n' && d != '\r' {
				s.advance(2)
				continue
			}
			s.advance(1)
		case '\n', '\r':
			goto unterminated
		default:
			s.advance(1)
		}
	}
unterminated:
	t.kind, t.end, t.text = tIllegal, s.off, s.text[t.off:s.off]
	t.msg = "string not terminated: add the closing '\"' on the same line"
	return t
}
