// Package mlnfile reads Markov logic networks in Alchemy's .mln format and
// evidence in its .db format (the formats Tuffy, pracmln and LoMRF also
// read): a scanner, a parser and the evidence and query readers. The model
// they produce — the syntax tree, its type checking, evidence databases —
// is package mln; the parser builds it through an mln.Builder, which checks
// each formula. Printing is the String methods of the mln types: every
// node prints back in Alchemy syntax, and parsing that output gives an
// equal tree.
//
// The package is named mlnfile, not mln, so that it can be used next to
// package mln without renaming either: mlnfile.ParseFile gives an *mln.MLN.
//
// # Reading
//
//	m, err := mlnfile.ParseFile("smokers.mln")      // or ParseFiles, ParseFS, Parse
//	db, err := mlnfile.ReadDBFiles(m, "smokers.db") // or ReadDB(r, name, m)
//	doms := mln.Domains(m, db)                      // type → constants
//	cw, err := mln.ClosedWorld(m, db, []string{"Cancer"}, nil, nil)
//
// Errors are pos.ErrorList values: every message reads
// "file:line:col: message", most carry a hint ("did you mean Smokes?"), and
// several errors are reported at once where that is natural. Readers return
// what they could parse together with the error.
//
// # The .mln syntax
//
// One statement per line; a formula may continue on the next line after a
// binary operator or a comma, and type declarations may span lines inside
// their braces. Comments are // to end of line and /* … */.
//
//	#include "other.mln"                  // relative to this file; cycles are errors
//	person = {Anna, Bob, "Carl Smith", 3} // a type with its constants
//	time = {0,...,9}                      // an integer range
//	Friends(person, person)               // a predicate declaration
//	Raining                               // nullary (also Raining())
//	Has(person, color!)                   // exactly one color per person
//	person motherOf(person)               // an Alchemy function
//	1.5 Smokes(x) => Cancer(x)            // a weighted formula
//	Friends(x, y) ^ !(x = y) => Knows(x, y). // a hard formula
//	Smokes(x) v !Smokes(x)                // no weight: to be learned
//	1.0 Smokes(+x)                        // one weight per constant of x's type
//	EXIST y Friends(x, y)                 // also EXISTS, FORALL (any case)
//
// Operators, loosest first: <=>, =>, v, ^, then ! and atoms. Binary operators
// are left-associative as in Alchemy's grammar, so a => b => c means
// (a => b) => c; the printer parenthesizes nested => and <=> so its output
// means the same under either convention. Quantifiers extend as far right
// as possible. "v" is disjunction only where an operator is expected;
// inside an argument list it is an ordinary variable, so "P(v) v Q(v)"
// reads as expected. x != y is !(x = y).
//
// Names: variables start with a lowercase letter (or '_'); constants start
// with an uppercase letter, are integers, or are "double-quoted strings"
// (kept with their quotes, so "Anna" and Anna are different constants, as in
// Alchemy). Identifiers may contain letters, digits, underscores,
// apostrophes and inner hyphens (Protein_YLR438c-a). A weight is a number:
// -2, .5, 1e-3, or 3. (an integer written with a trailing period).
//
// Declarations and unit formulas look alike: "Smokes(person)" declares
// Smokes when it is not yet declared and is a unit formula over the
// variable person otherwise, exactly as in Alchemy. An exact repeat of a
// declaration is reported as a warning and ignored. Types named only in
// predicate declarations are open: their domain is whatever constants the
// formulas and evidence mention. Constants met in formulas join their
// type's domain (with a warning if the type was declared with an explicit
// list), as Alchemy does.
//
// Dynamic MLNs. The successor of a time variable, "succ(t)" (when no function
// succ is declared), "t+1" or LoMRF's "t++", is a variable term with
// mln.Term.Succ set; package dynamic unrolls such formulas over the time
// steps. "succ(succ(t))", "t+2" and "t++ +1" link slices more than one step
// apart and are positioned errors (the Markov assumption).
//
// # Dialects
//
// Tuffy, pracmln and LoMRF read Alchemy's format with extensions and, in
// places, other semantics. ParseWith and ParseFilesWith take the dialect
// (Options.Dialect, "--dialect alchemy|tuffy|pracmln|lomrf"); by default
// (mln.DialectAuto) it is detected from the syntax: the earliest construct
// that only one dialect has decides, and mln.MLN.Dialect records the
// dialect and why (the construct and its position), for the command to
// report. DetectDialect does the same for one source. Syntax of two
// dialects in one model is a warning.
//
//   - Tuffy: "*Pred(types)" declares a closed-world predicate; "@2.5 F" is a
//     fixed weight. Semantics: only starred predicates are closed-world;
//     every other one is open-world even with evidence (mln.ClosedWorld).
//   - pracmln: weights written as arithmetic expressions, up to the first
//     blank as in pracmln ("log(0.9/0.1) bird(x) => flies(x)"; numbers,
//     the operators + - * and /, parentheses, log, logx (pracmln's:
//     logx(0) = -100), exp, sqrt); "#fixweight" before a formula (Formula.FixedWeight);
//     "#group" (ignored) and "#fuzzy" (a warning: the predicate stays
//     binary, as in pracmln's first-order logic); "?x" variables of its
//     PRACGrammar, in whose files a name without "?" is a constant
//     whatever its case; "=/=" for "!="; lowercase constants in type
//     declarations and (for a pracmln model) in evidence, where names may
//     hold the characters pracmln allows (FLAKES_00.000_); "#unique{+?a,
//     +?b}" before a soft formula (the formula gets ?a =/= ?b: an instance
//     that is never true contributes nothing). Refused with a positioned
//     message: probability constraints "P(f) = p", "R(f) = p", #unique
//     before a hard formula, "---" between databases, soft evidence.
//     pracmln's StandardGrammar binds v tighter than ^; formulas are read
//     with Alchemy's precedence, with a warning where a pracmln formula
//     mixes the two without parentheses. Semantics:
//     pracmln's default world (cw=False): every predicate is open-world,
//     evidence atoms keep their values.
//   - LoMRF: definite clauses "[w] Head(args) :- L1 ^ … ^ Lk [.]", head one
//     positive atom, body a conjunction of literals. As LoMRF infers (its
//     decomposed predicate completion), each clause is the formula
//     "[w] L1 ^ … ^ Lk => Head(args)", and for each head predicate P one
//     hard formula P(_h1,…,_hn) => B1' v … v Bm' is added, Bi' being
//     clause i's body with its head unified with P(_h1,…,_hn) (equalities
//     for constants, repeated variables and function terms of the head)
//     and its other variables existentially quantified. So ground heads
//     that no clause defines are false. Semantics otherwise Alchemy's.
//
// A .db file in any dialect may declare constants, "person = {P1, P2}"
// (pracmln), adding them to the type's domain.
//
// Extensions and restrictions. Tuffy's closed-world marker "*Pred(types)"
// and fixed weights "@2.5 F" are accepted. Alchemy's "*P(x)" inside a
// formula (all sign combinations) is kept in the tree as Atom.Star.
// Not supported, each with its own error message: linked-in functions and
// internal predicates and functions (<, >, +…), "[ ]" indivisible
// formulas, utilities (":"; ":-" is LoMRF's definite clause), hybrid real-valued terms, #include of .db or
// .cpp files, Forclift's weighted predicate declarations,
// and "|" / "&" as connectives. Within one formula a quantifier may not
// rebind a variable name that an enclosing quantifier binds or that occurs
// free elsewhere in the formula (Alchemy renames such variables); sibling
// quantifiers may reuse a name.
//
// # Evidence
//
// A .db file lists one ground atom per line: P(A,B), !P(A,B) (false),
// ?P(A,B) (explicitly unknown), nullary atoms, and Alchemy function values
// "C = f(A,B)". Constants new to a type join its domain. Unknown predicates,
// wrong arities, variables, contradictory atoms and two true atoms in one
// mutually exclusive block are positioned errors; soft evidence (a weight
// before the atom) is rejected. ReadQuery reads query atoms, which may have
// variables.
package mlnfile
