// Package count counts the models of propositional formulas in CNF.
//
// Exact is an exact model counter in the design of sharpSAT (Thurley, SAT
// 2006): a DPLL search with unit propagation over watched literals,
// conflict-clause learning, failed-literal tests after each decision,
// decomposition of the residual formula into connected components that are
// counted independently, and a bounded cache of component counts keyed by
// the component's variables and partially assigned clauses. Counts are
// exact big integers. A conflict-driven satisfiability check runs first, so
// unsatisfiable formulas are answered quickly; then, as in sharpSAT's
// preprocessing, every literal is tested at the root (failed literals) and
// the formula is reduced by the values found before the counting search.
//
// Condition restricts a formula by a partial assignment, for counting the
// models that extend it.
package count
