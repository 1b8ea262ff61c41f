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
// A cluster of two or more such predicates is lifted when one of them, A
// (the pivot), has an argument that separates it from each other one B:
// in every formula mentioning A and B, A's atom has distinct variables,
// the one at that argument (y) is an argument of B at a fixed position,
// and A's other variables occur in no other atom of the formula; and no
// formula mentions two of the B's. Examples: the paper's {R,S} of
// R(x,y) v S(y,z), S(y,z) v T(z,u); {R,S} of M1's R(x) v S(x,y); the star
// {Smokes,Asthma,Cancer} of Asthma(x) => !Smokes(x), Smokes(x) => Cancer(x).
// Given the rest, the cluster splits into one independent sub-problem per
// constant of y (the power rule; identical sub-problems are computed
// once), and in each the number k of true A atoms has the generalised
// binomial distribution P(k) ∝ e_k·Π_B-classes (Σ_b e^{L(b; k)})^{m}, e_k
// the convolution over A's exchangeable classes of C(m_i,k_i)·e^{k_i·ℓ_i},
// L the log weight of a B atom given k true A atoms (count messages of
// the formulas mentioning both, Theorem 2), all in log space: k is drawn
// from it, then its split over A's classes, which atoms uniformly, then
// the B's classes as independent binomials given k. On R,S,T Algorithm 2
// builds the paper's clustering {R,S}, {T}. Cluster.Why says why a
// cluster of several predicates is not lifted.
//
// Any other cluster (a self-join, a quantifier, equality, a mutually
// exclusive predicate, no separator, a formula mentioning three of its
// predicates, ...) is ground: it is redrawn by blocked Gibbs
// (gibbs.NewClampedBlocking, BlockSweep) on the grounding, every variable
// outside the cluster clamped. A formula counts for every predicate it mentions,
// inside quantifiers too: `1 EXIST y Loyal(x,y)` makes {Loyal} ground
// ("formula 2 has a quantifier"), never a lifted cluster that ignores it.
// The ground blocks keep a mutual-exclusion block (and any unit a hard
// factor ties, gibbs.NewClampedBlocking) whole, with only its legal joint
// states.
// Clusters that a ground factor ties — its positive entries not connected
// by changing one atom (gibbs.Tied), as a hard P(x) <=> Q(x) across {P}
// and {Q} — are merged into one cluster (lifted if a rule draws it
// jointly; otherwise ground, its Why says so), since drawn apart neither
// could ever change. Cluster.Lifted and Cluster.Why say which and why;
// Model.LiftedClusters counts them.
//
// Evidence atoms keep their values; a hard formula, or a ground cluster,
// makes the model ground its MLN once (package ground) for the ground
// clusters and for a start state that satisfies the hard formulas
// (gibbs.Start). Otherwise nothing is grounded: the state is one value per
// ground atom and the count messages are computed on the formulas, so a
// caller that has not grounded the MLN need not (Options.NoGround asks
// Compile to say ErrNeedsGrounding instead of grounding).
package lbg
