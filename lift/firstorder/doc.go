// Package firstorder builds the counted graph of a Markov logic network
// (lift.Compressed) from the MLN and its evidence without grounding it: the
// fixpoint of colour passing computed on the first-order structure, as in
// Singla and Domingos' lifted first-order BP and Kersting et al.'s lifted
// network construction.
//
//	net, err := firstorder.Build(ctx, m, db, firstorder.Options{Ground: ground.Options{Query: []string{"Smokes"}}})
//	if errors.Is(err, firstorder.ErrNotApplicable) { /* ground and compress instead */ }
//	ans, err := infer.RunCounted(ctx, lbp, net.Compressed, opt)
//	X, _ := net.Node(m.PredIndex("Smokes"), []int{41}) // clusternode of Smokes(<42nd person>)
//
// The result is the Compressed that grounding (ground.Ground) and colour
// passing (lift.Compress) give: the same clusternodes with the same ground
// atoms, the same clusterfactors and counts per slot, up to renumbering;
// BP on it gives the same marginals. Its cost depends on the number of
// constants that the evidence and the formulas tell apart, not on the
// domain sizes: friends-and-smokers with evidence on a few people has the
// same network at a thousand people as at a million.
//
// Constants are split into classes of interchangeable ones (a constant a
// formula names or an evidence atom of two or more arguments mentions is
// alone; the others are grouped by their unary evidence); each class keeps
// as many representatives as a formula has variables of its type, and
// package ground grounds that reduced model (ground.Restriction), with
// all its simplifications. Ground atoms and formulas of the full model are
// described by patterns (predicate or formula, and per argument a constant
// or a class with the equalities among the arguments in it), each standing
// for a product of falling factorials of class sizes; colour passing runs
// on the network of patterns with those counts. See Build.
//
// It lives in its own package above lift and ground because it needs both
// (the grounder's restricted grounding and lift's slot keys and counted
// graph), and lift may not import ground: ground's tests run inference,
// which imports lift.
//
// Where it does not apply (quantifiers over a type with interchangeable
// constants, functions, mutually exclusive
// arguments, ground formulas that need auxiliary variables, merged
// duplicate ground formulas, Symmetric colour mode) Build returns an error
// wrapping ErrNotApplicable that says why, and the caller grounds. With
// Options.LogZ the grounder's evidence offset of log Z is counted too, over
// the binding patterns of the reduced model (Network.LogZOffset).
package firstorder
