// Package mln is the Markov logic network model: the declarations and the
// positioned syntax tree of formulas (MLN), their type checking (Builder,
// through which every MLN is built), evidence databases (DB), Alchemy's
// open/closed-world rule (ClosedWorld) and the rewrites learners need
// (Expand, MutexAsFormulas). It knows nothing about grounding, factor
// graphs or inference; those packages consume the model built here.
//
// The model is read from Alchemy's .mln and .db text formats (the formats
// Tuffy, pracmln and LoMRF also read) by package format/mlnfile, whose package
// name is mlnfile; the syntax is described there.
//
//	m, err := mlnfile.ParseFile("smokers.mln")      // or ParseFiles, ParseFS, Parse
//	db, err := mlnfile.ReadDBFiles(m, "smokers.db") // or ReadDB(r, name, m)
//	doms := mln.Domains(m, db)                      // type → constants
//	cw, err := mln.ClosedWorld(m, db, []string{"Cancer"}, nil, nil)
//
// Errors are pos.ErrorList values: every message reads
// "file:line:col: message", most carry a hint ("did you mean Smokes?"), and
// several errors are reported at once where that is natural.
//
// # The tree
//
// An MLN holds TypeDecls, PredDecls, FuncDecls and Formulas, each with its
// position. A Formula keeps its weight, whether it is hard, the source Text
// (as learners write it back), its free Vars with inferred types, and an
// Expr built from *Atom, *Equal, *Not, *And, *Or, *Implies, *Iff, *Exists
// and *Forall, whose arguments are Terms. Every node prints back in Alchemy
// syntax with String, and parsing that output gives an equal tree.
//
// # Checking
//
// A Builder takes declarations and formulas in order and checks each
// formula against the declarations before it: atoms name declared
// predicates with the right number of arguments, each variable gets one
// type from the argument positions it occupies ("=" passes types between
// its sides), constants join the domain of their type, and quantified
// variables are used, do not shadow and do not also occur free. Errors
// carry the positions the nodes were built with.
//
// # Evidence
//
// A DB holds ground atoms with their truth values and Alchemy function
// values, and the domain of every type as extended by the constants the
// evidence mentions. Contradictory atoms and two true atoms in one
// mutually exclusive block are positioned errors. A DB keeps atoms in the
// order they were added and finds them by (predicate, constant indices)
// through a hashed packed key.
package mln
