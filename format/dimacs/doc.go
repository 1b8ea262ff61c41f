// Package dimacs reads and writes propositional formulas in DIMACS CNF, the
// format of SAT and model-counting benchmarks. The formula itself is a
// *cnf.CNF (package cnf, which also turns formulas into factor graphs and
// back).
//
// A file has optional comment lines starting with "c", one header
// "p cnf V C" naming the number of variables V and clauses C, and then C
// clauses, each a list of non-zero literals terminated by 0 (a literal is +v
// or -v for a variable 1 ≤ v ≤ V; a clause may span lines). Read also accepts
// the SATLIB trailer (a line starting with "%", after which the input is
// ignored) and a last clause without its terminating 0 at end of input.
// Headers beyond cnf.MaxVars variables or cnf.MaxClauses clauses are
// refused. Every problem is reported as a *pos.Error with line and column.
package dimacs
