// Package dimacs reads and writes propositional formulas in DIMACS CNF, the
// format of SAT and model-counting benchmarks, and turns them into factor
// graphs.
//
// A file has optional comment lines starting with "c", one header
// "p cnf V C" naming the number of variables V and clauses C, and then C
// clauses, each a list of non-zero literals terminated by 0 (a literal is +v
// or -v for a variable 1 ≤ v ≤ V; a clause may span lines). Read also accepts
// the SATLIB trailer (a line starting with "%", after which the input is
// ignored) and a last clause without its terminating 0 at end of input.
// Every problem is reported as a *pos.Error with line and column.
//
// ToGraph builds a factor graph with one binary variable per CNF variable and
// one 0/1 factor per clause, so that the graph's partition function is the
// formula's model count; Signs recognises such clause factors again.
package dimacs
