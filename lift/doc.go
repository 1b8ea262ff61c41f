// Package lift compresses a factor graph by colour passing (Kersting et al.,
// "CFG", Algorithm 1 of the lifted BP paper) and represents the result as a
// counted graph: clusternodes (sets of variables), clusterfactors (sets of
// factors) and lifted edges carrying counts.
//
// A counted graph is the one input of the BP engine. The ground graph is the
// trivial compression (every variable and factor its own cluster, every count
// 1), built by Ground, so ground and lifted BP are the same code.
//
// Lifted edges are "slots": the positions of a clusterfactor's representative
// factor grouped by what can be told apart. In the default positional mode
// every position is its own slot (the paper's c(f, X, p)), with positions
// numbered in the canonical order of the factor's table (the order that makes
// the table smallest, so that a table and its transpose are one factor colour)
// and positions the table cannot tell apart (swapping them changes no entry)
// sharing a slot when their variables share a colour. For tables declared
// symmetric, positions whose variables share a colour form one slot, and in
// CNF mode clause positions are told apart only by literal sign and colour
// (the paper's two positions, negated and unnegated, for LBPCount). A ground
// variable in clusternode X lies on Count ground edges of a slot; messages
// along a slot are equal for all of them, which is what makes lifted BP equal
// ground BP.
//
// Colour passing (ColourPassing, Compress) re-signs only the nodes next to
// a node that changed class, groups signatures (integer sequences) exactly
// through an open-addressing table, and never re-signs a node alone in its
// class. Parallel is the same refinement with the signing of large steps
// spread over all cores (the same rounds and class ids). A Recolourer keeps a stable colouring while the evidence changes
// (clamped variables in LBPCount, the evidence of each time step in dynamic
// filtering): an Update recolours from the previous colouring, starting at
// the changed variables, and yields exactly the colouring, class ids
// included, that colour passing from scratch gives on the new evidence.
//
// Approximate colour passing (Options.CountTolerance, with MaxIter as an
// early stop, and QuantiseFields in front of it) pools variables whose
// neighbourhoods differ only in counts within a factor 1+ε or in slightly
// different local evidence; its counted graph carries rounded mean counts
// (Compressed.Approximate) and maps every ground edge to its slot
// (GroundSlot), from which infer/bp estimates the error against ground BP.
// CountTolerance 0 is exact colour passing, unchanged.
//
// Where the paper's Eq. (8) raises the incoming messages of a clusterfactor to
// powers, we instead evaluate the representative ground factor with the
// message of each position's slot: that is exactly the ground computation, and
// the counts then appear only on the variable side (Eqs. 7 and 9).
package lift
