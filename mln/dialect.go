package mln

import (
	"fmt"

	"github.com/lifted-dev/lifted/pos"
)

// Dialect is the MLN system whose syntax and semantics a model follows.
// The syntax of all four is read by package format/mlnfile (which decides
// the dialect: given, or detected from the syntax used); the semantics
// that differ are the closed-world rule (ClosedWorld) and LoMRF's predicate
// completion of definite clauses (done by the parser).
type Dialect uint8

const (
	// DialectAuto, as a request, means: detect the dialect from the
	// syntax. A parsed MLN never has it.
	DialectAuto Dialect = iota
	// DialectAlchemy: predicates with evidence are closed-world, others
	// and query predicates open-world (Alchemy's infer).
	DialectAlchemy
	// DialectTuffy: only predicates declared with Tuffy's "*" mark are
	// closed-world; all others are open-world even when they have evidence
	// (evidence atoms keep their values).
	DialectTuffy
	// DialectPracmln: pracmln's syntax (weights as arithmetic expressions,
	// #fixweight, ?x variables, lowercase constants, domain declarations
	// in databases) and its default world (cw=False): every predicate is
	// open-world; evidence atoms keep their values.
	DialectPracmln
	// DialectLoMRF: LoMRF's syntax (definite clauses "head :- body" with
	// predicate completion) and world rule, Alchemy's: evidence predicates
	// closed-world.
	DialectLoMRF
)

var dialectNames = [...]string{"auto", "alchemy", "tuffy", "pracmln", "lomrf"}

// String returns the dialect's name as --dialect takes it.
func (d Dialect) String() string {
	if int(d) < len(dialectNames) {
		return dialectNames[d]
	}
	return fmt.Sprintf("dialect(%d)", d)
}

// Dialects lists the dialect names --dialect takes, auto first.
func Dialects() []string { return dialectNames[:] }

// WorldRule names the closed-world rule of the dialect, as a summary line
// or a JSON field reports it: "alchemy" (predicates with evidence are
// closed-world; LoMRF's too), "tuffy" (only *-marked predicates) or
// "open" (pracmln: none).
func (d Dialect) WorldRule() string {
	switch d {
	case DialectTuffy:
		return "tuffy"
	case DialectPracmln:
		return "open"
	}
	return "alchemy"
}

// WorldRuleText describes the closed-world rule in words.
func (d Dialect) WorldRuleText() string {
	switch d {
	case DialectTuffy:
		return "only predicates marked with * are closed-world (Tuffy)"
	case DialectPracmln:
		return "every predicate is open-world; evidence atoms keep their values (pracmln, cw=False)"
	}
	return "non-query predicates with evidence are closed-world (Alchemy, LoMRF)"
}

// DialectInfo records which dialect an MLN follows and why.
type DialectInfo struct {
	Dialect Dialect
	// Given is true when the caller named the dialect (--dialect), false
	// when the parser detected it.
	Given bool
	// Reason says what decided: "given", or the first syntax of the
	// dialect met ("Tuffy's closed-world mark *Friends"), or "no
	// dialect-specific syntax" for the Alchemy default.
	Reason string
	// At is where that syntax was met (zero when given or by default).
	At pos.Position
	// PracGrammar: a file was read in pracmln's PRACGrammar (variables
	// written ?x, constants of any characters such as FLAKES_00.000_):
	// mlnfile.Options.PracGrammar reads a printed copy the same way.
	PracGrammar bool
}

// String reads "tuffy (detected: Tuffy's closed-world mark *Friends at
// prog.mln:2:1)".
func (i DialectInfo) String() string {
	switch {
	case i.Given:
		return i.Dialect.String() + " (given)"
	case i.At.Line > 0:
		return fmt.Sprintf("%s (detected: %s at %s)", i.Dialect, i.Reason, i.At)
	}
	return fmt.Sprintf("%s (%s)", i.Dialect, i.Reason)
}
