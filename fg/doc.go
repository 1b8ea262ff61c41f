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
//
// Graph.Components splits a graph, given evidence, into its connected
// components (union-find over the factors' scopes; observed variables
// connect nothing) with their size histogram; Graph.Subgraph gives a
// component as a graph of its own, conditioned on the evidence, and
// Graph.ConstantLogScore the part of the score no component holds, so that
// MAP worlds, marginals and log Z can be computed component by component
// (package infer/mws and infer/mapauto do for MAP):
//
//	comps, _ := g.Components(ev)
//	for i := range comps.Len() {
//		sub := g.Subgraph(comps, i, ev) // variable j is comps.CompVars(i)[j]
//		...
//	}
package fg
