// Package online trains the weights of a Markov logic network on one
// "mega-example" by lifted online learning (Ahmadi, Kersting, Mladenov and
// Natarajan, "Exploiting symmetries for scaling loopy belief propagation and
// relational training", Mach. Learn. 2013, Sections 6–8; Ahmadi, Kersting and
// Natarajan, "Lifted online training of relational models with stochastic
// gradient methods", ECML 2012).
//
// # Data
//
// NewModel compiles the MLN's formulas and the training database into ground
// clauses; quantifiers are expanded over the constants of their types (EXIST
// into a disjunction, FORALL into a conjunction). Every ground atom has a
// status: Evidence
// (atoms of the evidence predicates, closed world: fixed in every inference),
// Observed (atoms of the non-evidence predicates, the "--ne" list, with a value
// in the data) or Hidden (non-evidence atoms written "?P(A)" in the data:
// partially observed). Ground clauses whose value the evidence fixes carry no
// gradient and are dropped; the others, over their non-evidence atoms, are the
// factors of the ground network. A hard formula keeps its entry in the
// weight vector (formula indices stay aligned) but is no parameter: its
// ground clauses are factors with 0/1 tables, its gradient is 0, and no
// optimiser changes its entry. A hard ground clause that the evidence makes
// false, or that the data make false with no atom hidden, is an error.
// Functions, "+x", starred atoms and "!" are refused.
//
// # Pieces and mini-batches
//
// Pieces are rooted at the ground clauses of soft formulas (a piece rooted at
// a hard clause would carry no gradient); hard clauses join the pieces grown
// around them. FactorPieces makes one piece per soft ground clause (depth 0);
// NeighbourhoodPieces takes every clause within depth d (Fig. 9c). TreePieces
// implements RelTreeFinding (Algorithm 5 of the journal paper): per formula,
// a random ground clause grows a tree by a breadth-first random walk with
// discount t up to depth d, skipping every branch that would close a cycle;
// the tree is variabilised into a pattern and applied to every ground clause
// of that formula, with a random substitution where it is not unique and as
// much of the pattern as applies (at least the root).
//
// A mini-batch is a set of pieces turned into one factor graph of disjoint
// parts: every piece has its own copies of its atoms. A hard ground clause
// becomes a 0/1 factor over its atoms; each soft one a factor over its atoms
// and one auxiliary binary "feature" variable
// a with table exp(w·f(x))·[a = f(x)]: a is a leaf that is a deterministic
// function of the factor's atoms, so the BP fixed point of the other messages
// is unchanged, and a's belief is exactly the factor belief of "clause true".
// That gives expected counts from node marginals alone, through package bp,
// the one BP engine, on ground or lifted graphs (lift.Compress across and
// within pieces). The gradient of the negative conditional log-likelihood of
// a batch is E[n | evidence] − E[n | evidence, observed atoms] (two BP runs;
// the second is a plain count when nothing is hidden), each component divided
// by the number of ground clauses of its formula in the batch (Eq. 14).
// The gradient is a sum of per-piece terms (Theorem 4): PieceGradient is the
// map, SumGradients the reduce, and TrainOptions.Gradient hands every
// mini-batch to another engine (the Apache Beam pipeline in module beam/).
// GradOptions.Workers runs colour passing on several cores with results bit
// for bit those of one; GradOptions.Shards computes a batch as shards of
// pieces on several cores and sums them (lifting then works within a shard).
//
// # Optimisers
//
// SMD is stochastic meta-descent with the natural-gradient form of Eqs.
// 15–18, with C kept as a full k×k matrix (k formulas) regularised by the
// identity; SGD is plain stochastic gradient descent. Both process mini-batches
// in random order per pass. SCG (Møller 1993) and LBFGS (gonum's optimize)
// are the batch baselines on the full BP likelihood gradient of the whole
// mega-example. Sample draws synthetic mega-examples by Gibbs sampling
// (package gibbs, on the model's factor graph; with hard formulas, from a
// start that satisfies them, found by local search, and never moving to a
// world that violates one), and
// CMLL evaluates a weight vector on test data as the paper defines it.
//
// All randomness comes from a *rand.Rand passed in; nothing uses a global
// source.
package online
