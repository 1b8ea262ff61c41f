// Package lbg is lifted blocked Gibbs sampling (Venugopal and Gogate,
// "On Lifting the Gibbs Sampling Algorithm", NIPS 2012) on a Markov logic
// network with evidence.
//
// The first-order atoms (predicates) are partitioned into clusters, the
// vertices of the Gibbs cluster graph, built greedily as the paper's
// Algorithm 2 (Model.Clusters): starting from one atom per cluster, the pair
// of clusters sharing the most formulas is merged while the merge does not
// raise the schematic time or space of a sweep, or keeps them within the
// bounds α and β (Options.Alpha, Beta). A sweep (Algorithm 1) redraws every
// cluster jointly from its conditional distribution given the rest.
//
// A cluster of one predicate A that occurs at most once in every formula
// (no self-join) and whose formulas are quantifier-free without equality is
// lifted: given the other atoms its groundings are independent, and A(X)'s
// log-odds is Σ_f w_f·(N_f(X,1) − N_f(X,0)), N_f(X,v) the number of true
// groundings of f with A(X) = v. N_f is Theorem 2's count message: a sum
// over the formula's other variables of a product of indicators of the
// other atoms (one truth-table row at a time), computed by variable
// elimination on the formula's variables, never by visiting its ground
// formulas — on R(x,y) v S(y,z), S(y,z) v T(z,u) a sweep costs O(n²) where
// the grounding has n³ formulas. Hard formulas count violations instead
// (a value with one is impossible). The atoms whose messages agree are
// exchangeable (the shattered blocks): from each such class of m atoms with
// probability p the sampler draws the number k of true atoms from
// Binomial(m, p), exactly, and then which k uniformly — the generalised
// binomial rule on the partially grounded singleton atom.
//
// Any other cluster (several predicates, a self-join, quantifiers, ...) is
// ground: it is redrawn by blocked Gibbs (gibbs.NewBlocking, BlockSweep) on
// the grounding, every variable outside the cluster clamped. Cluster.Lifted
// and Cluster.Why say which and why; Model.LiftedClusters counts them.
//
// Evidence atoms keep their values; a hard formula, or a ground cluster,
// makes the model ground its MLN once (package ground) for the ground
// clusters and for a start state that satisfies the hard formulas
// (gibbs.Start). Otherwise nothing is grounded: the state is one value per
// ground atom and the count messages are computed on the formulas, so a
// caller that has not grounded the MLN need not (Options.NoGround asks
// Compile to say ErrNeedsGrounding instead of grounding).
package lbg
