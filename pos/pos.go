// Package pos gives every reader in lifted one kind of error: a message tied
// to a file, line and column, printed as "file:line:col: message" the way Go's
// own tools print them, so editors can jump to the spot.
package pos

import (
	"fmt"
	"sort"
	"strings"
)

// Position is a place in a named input. Line and Col count from 1; Col counts
// bytes. A zero Line means the whole file.
type Position struct {
	File string
	Line int
	Col  int
}

// String formats the position as file:line:col (omitting unknown parts).
func (p Position) String() string {
	s := p.File
	if s == "" {
		s = "<input>"
	}
	if p.Line > 0 {
		s += fmt.Sprintf(":%d", p.Line)
		if p.Col > 0 {
			s += fmt.Sprintf(":%d", p.Col)
		}
	}
	return s
}

// Error is an error at a position.
type Error struct {
	Pos Position
	Msg string
}

// Error returns the message of the Error.
func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Errorf returns an *Error at p.
func Errorf(p Position, format string, args ...any) *Error {
	return &Error{Pos: p, Msg: fmt.Sprintf(format, args...)}
}

// ErrorList collects several errors, for readers that report more than the
// first problem. Its Error method prints up to ten of them.
type ErrorList []*Error

// Add appends an error at p.
func (l *ErrorList) Add(p Position, format string, args ...any) {
	*l = append(*l, Errorf(p, format, args...))
}

// Sort orders the list by file, line and column.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Error returns the message of the ErrorList.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	for i, e := range l {
		if i == 10 {
			fmt.Fprintf(&b, "\n(and %d more errors)", len(l)-10)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns nil for an empty list and the list otherwise.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}
