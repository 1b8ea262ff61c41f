// Package fg holds the discrete factor graph that every algorithm in lifted
// works on: variables of finite cardinality, factors of any arity over them,
// and non-negative tables (zeros allowed, so hard constraints are ordinary
// input).
//
// Storage is flat and index based so that ten million factor–variable edges fit
// in a few hundred megabytes: variable and factor ids are int32, a factor's
// scope is a slice of one shared edge array (CSR), the variable→edge adjacency
// is a second CSR built once, and identical tables are stored once and shared
// through a table id. Table identity is decided when the graph is built, so
// colour passing can start from it directly.
//
// Table layout follows the UAI convention: the last variable of a scope
// changes fastest.
package fg
