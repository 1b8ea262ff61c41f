// Package jtree is exact inference by a junction tree: the method "jtree".
//
// It answers, on a ground factor graph with evidence, the marginal of every
// variable and the exact log Z (sum-product), or a most probable assignment
// with the max-marginals and the world's log score (max-product, --max-product).
//
// # How
//
//  1. Evidence first: observed variables leave the graph (each factor is
//     read at the observed states), so tables are over unobserved
//     variables only; a factor with no unobserved variable is a constant.
//  2. Plan (NewPlan): a greedy min-fill elimination order (ties by the
//     smallest clique table, then the variable id), kept with a lazy heap
//     whose scores are recomputed only around the variable eliminated.
//     Eliminating v makes the clique v ∪ neighbours; the clique's parent is
//     the clique of the neighbour eliminated first (an elimination tree, a
//     junction tree with one clique per variable). Before any table is
//     allocated the plan predicts the treewidth, the largest table and the
//     total memory; JTree refuses a plan over MaxTable (property
//     max-table, 2^24 entries = 128 MiB by default) or MaxTotal (max-total,
//     2^27 entries), saying both the prediction and the property. The
//     planner stops at the first clique over the limit, so refusing a
//     large model is cheap.
//  3. Tables in log space: each factor's log table is added into the clique
//     of its first-eliminated variable; an upward pass sends each clique's
//     log-sum-exp (max for MAP) over its own variable (the table's last,
//     contiguous, dimension) to its parent; the roots give log Z (one root
//     per connected component); a downward Hugin pass adds to each child
//     the parent's new separator marginal less the child's own upward
//     message (0/0 = 0 where the upward message is zero); every variable's
//     marginal is read from its own clique. Every log-sum-exp is relative to
//     the maximum of the entries summed into that one output entry, so no
//     entry underflows relative to its group: weights of e^±700 in one
//     table and hard zeros are exact (see TestUnderflowGroups). A model
//     with no world of positive weight is ErrNoWorld.
//  4. MAP: decoding from the upward max tables in reverse elimination order
//     (a clique's other variables are eliminated later, so they are
//     assigned already), lowest state on ties.
//
// The hot loops run over flat []float64 tables with precomputed strides
// (an odometer over the clique's dimensions); no maps. Run checks ctx
// between cliques.
//
// # Lifting
//
// jtree runs on the ground graph (the method is registered with Lifted
// false). Where colour classes allow, it could be lifted cheaply in two
// ways, not done yet: (a) connected components that colour passing puts in
// one class and that are isomorphic (the same tables in the same
// structure, which holds for the disjoint copies colour passing finds in
// relational models) need one junction tree each class, log Z multiplied
// by the class size; (b) an elimination step that removes a whole class
// of interchangeable variables with identical neighbourhoods at once is
// the counting elimination of lifted variable elimination (C-FOVE). Colour
// classes alone do not suffice: variables of one colour class need not
// have equal exact marginals (two triangles and a hexagon are one class
// for colour passing), so (a) has to check isomorphism, not colours.
//
// # Truth
//
// Tests compare with brute-force enumeration on 1500 random factor graphs
// (arity up to 4, 2–4 states, a fifth of the entries zero, evidence,
// entries up to e^±400) to 1e-9 for marginals, log Z and the MAP score,
// and with the verified reference marginals and log10 Z of the UAI 2014
// models of ../shared/data/uai.
package jtree
