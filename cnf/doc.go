// Package cnf holds propositional formulas in conjunctive normal form, the
// model of model counting (package count), and their conversions to and from
// factor graphs.
//
// A CNF has variables 1..NumVars and clauses of literals +v and -v. ToGraph
// builds a factor graph with one binary variable per CNF variable and one 0/1
// factor per clause, so that the graph's partition function is the formula's
// model count; fg.ClauseSigns recognises such clause factors again. FromGraph
// goes the other way for any graph of binary variables with 0/1 tables (a
// constraint network): every zero entry becomes a clause.
//
// The package depends only on fg. Reading and writing the DIMACS text format
// is package format/dimacs.
package cnf
