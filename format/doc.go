// Package format is the one place that knows which file formats lifted
// reads and how to tell them apart. Its subpackages read and write one
// format each: uai (UAI models, evidence and solutions), libdai (libDAI .fg
// factor graphs) and dimacs (DIMACS CNF formulas); package mln reads Markov
// logic networks.
//
// Load reads a model file in any registered format and returns a *Model: the
// factor graph plus what writers and other consumers need (the format's name,
// the formula for CNF input, the UAI model type, the libDAI labels). The
// format comes from Options.Format when set (as the --format flag of the
// command line gives it) and otherwise from the file's extension:
//
//	name        extensions      kind   read by
//	uai         .uai            Graph  format/uai
//	fg          .fg             Graph  format/libdai
//	cnf         .cnf .dimacs    Graph  format/dimacs, converted by cnf.ToGraph
//	mln         .mln            MLN    format/mlnfile (Load refuses it)
//	wfomcs      .wfomcs         MLN    format/wfomcs (the WFOMC tool's files)
//	wfomcs-mln  (by name only)  MLN    format/wfomcs (the tool's .mln syntax)
//
// Extensions match without regard to case. Reader errors are *pos.Error
// values naming the file, line and column. A format that cannot be told, or
// an unknown Options.Format, is a *UsageError, whose message names the
// choices, so that a command line can tell it apart from a bad file.
//
// IsMLN tells an MLN, which Load does not read, from a factor graph, and
// LoadEvidence reads evidence files (UAI .evid) for a loaded graph. An MLN
// format other than lifted's .mln has a Format.ReadMLN, which returns the
// MLN and the evidence its file lists (the WFOMC tool's files: a sentence
// or rules, a domain, weights, cardinality constraints, unary evidence).
//
// The table of formats is built when the package is initialised, from a
// literal list, so it never depends on the order of package initialisation;
// Register adds a format to it.
package format
