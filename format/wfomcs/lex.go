package wfomcs

import (
	"strings"

	"github.com/lifted-dev/lifted/pos"
)

type kind uint8

const (
	tEOF      kind = iota
	tIdent         // a name: predicate, variable, constant, domain
	tNumber        // 12, 2.7, 1e-3
	tForall        // \forall
	tExists        // \exists
	tCounting      // \exists_{
	tPunct         // ( ) [ ] { } , : . ~ & | -> <-> = != <= >= < > + -
)

type token struct {
	k    kind
	text string
	off  int // byte offset of the start
	end  int // byte offset after the end
	line int
	col  int
}

// lex splits src into tokens; '#' starts a comment that runs to the end of
// the line. A character that starts no token is a positioned error.
func lex(src []byte, file string) ([]token, *pos.Error) {
	var out []token
	line, col := 1, 1
	i := 0
	adv := func(n int) {
		for range n {
			if src[i] == '\n' {
				line++
				col = 1
			} else if src[i]&0xC0 != 0x80 {
				col++
			}
			i++
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			adv(1)
			continue
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				adv(1)
			}
			continue
		}
		t := token{off: i, line: line, col: col}
		n := 0
		switch {
		case isLetter(c):
			n = 1
			for i+n < len(src) && (isLetter(src[i+n]) || isDigit(src[i+n])) {
				n++
			}
			t.k = tIdent
		case isDigit(c) || c == '.' && i+1 < len(src) && isDigit(src[i+1]):
			n = numberLen(src[i:])
			t.k = tNumber
		case c == '\\':
			rest := string(src[i:min(len(src), i+10)])
			switch {
			case strings.HasPrefix(rest, `\exists_{`):
				t.k, n = tCounting, len(`\exists_{`)
			case strings.HasPrefix(rest, `\exists`) && !identAt(src, i+len(`\exists`)):
				t.k, n = tExists, len(`\exists`)
			case strings.HasPrefix(rest, `\forall`) && !identAt(src, i+len(`\forall`)):
				t.k, n = tForall, len(`\forall`)
			}
		default:
			t.k = tPunct
			rest := string(src[i:min(len(src), i+3)])
			switch {
			case strings.HasPrefix(rest, "<->"):
				n = 3
			case strings.HasPrefix(rest, "->"), strings.HasPrefix(rest, "!="), strings.HasPrefix(rest, "<="), strings.HasPrefix(rest, ">="):
				n = 2
			case strings.ContainsRune("()[]{},:.~&|=<>+-", rune(c)):
				n = 1
			}
		}
		if n == 0 {
			return out, pos.Errorf(pos.Position{File: file, Line: line, Col: col}, "unexpected character %q", printable(src[i:]))
		}
		t.text = string(src[i : i+n])
		adv(n)
		t.end = i
		out = append(out, t)
	}
	out = append(out, token{k: tEOF, off: len(src), end: len(src), line: line, col: col})
	return out, nil
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func identAt(src []byte, i int) bool { return i < len(src) && (isLetter(src[i]) || isDigit(src[i])) }

// numberLen returns the length of the number at the start of s: digits,
// an optional fraction and an optional exponent.
func numberLen(s []byte) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	if n < len(s) && s[n] == '.' && n+1 < len(s) && isDigit(s[n+1]) {
		n++
		for n < len(s) && isDigit(s[n]) {
			n++
		}
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && isDigit(s[m]) {
			for m < len(s) && isDigit(s[m]) {
				m++
			}
			n = m
		}
	}
	return n
}

// printable returns the first character of s for a message.
func printable(s []byte) string {
	r := []rune(string(s[:min(len(s), 4)]))
	if len(r) == 0 {
		return ""
	}
	return string(r[0])
}
