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
//  2. Plan (NewPlan): greedy min-fill elimination orders, each kept with
//     a lazy heap whose scores are recomputed only around the variable
//     eliminated: min-fill with ties by the smallest clique table, by the
//     lowest id, weighted min-fill (a fill edge costs the product of its
//     ends' cardinalities), then min-fill with ties by a seeded
//     pseudo-random rank (deterministic seeds; at most 48 restarts, while
//     the planning work stays below the best plan's table entries, each
//     stopping at its first clique larger than the best's largest). The
//     plan with the smallest largest table, then the smallest total, is
//     kept: on the UAI 2014 models the restarts make the largest table 2
//     to 8 times smaller than plain min-fill's (Promedus_14: 2^24 entries
//     instead of libDAI's and plain min-fill's 2^27). Eliminating v makes
//     the clique v ∪ neighbours; the clique's parent is the clique of the
//     neighbour eliminated first (an elimination tree). Before any table
//     is allocated the plan predicts the treewidth, the largest table and
//     the total memory of the maximal cliques' tables; JTree refuses a
//     plan over MaxTable (property max-table, 2^24 entries = 128 MiB by
//     default) or MaxTotal (max-total, 2^27 entries), saying both the
//     prediction and the property. The planner stops at the first clique
//     over the limit, so refusing a large model is cheap.
//  3. Maximal cliques: an elimination clique whose parent's clique is
//     its own separator absorbs that parent (a subset of it), so a chain
//     of such cliques is one table that eliminates several variables; the
//     table lists its separator with its parent first (in the parent's
//     order), then the variables it eliminates, so a message is a sum
//     over contiguous rows.
//  4. Tables in the linear domain with per-table scaling: factor tables
//     are divided by their maximum (its log kept as the table's scale),
//     each clique table is the product of its factors and of its
//     children's messages (children with the same separator multiplied
//     together first), each message is divided by its maximum, and only
//     the scales are logs — no exp per table entry. A product of many
//     items is built by splitting the dimensions where fewest items span
//     the split, multiplying each side's items into a small table, and
//     broadcasting only the spanning items over the clique table. Factors
//     over the same unobserved variables of a much larger clique are
//     first summed in log space into one small table (one exp per entry of
//     that small table). The upward pass sends each clique's row sums (max
//     for MAP) to its parent; the roots give log Z; a downward Hugin pass
//     multiplies each child's rows by the parent's new separator marginal
//     over the child's own message (0/0 = 0), one reduction of the parent
//     per distinct separator; a clique's table summed onto its eliminated
//     variables is halved recursively into their marginals (about two
//     passes for any number of them).
//  5. Exactness of the linear domain: the dynamic range ln(max/min) of
//     every factor table and message is known, so before a clique table
//     is built its range is bounded by their sum; where the bound exceeds
//     690 (a nonzero entry could flush to zero below e^-708) the model is
//     solved in log space instead: each log-sum-exp relative to the
//     maximum of its own group, so weights of e^±700 in one table and hard
//     zeros are exact (TestUnderflowGroups, TestLinearAgreesWithLog). A
//     model with no world of positive weight is ErrNoWorld.
//  6. MAP: decoding roots first from the upward max tables (a clique's
//     separator variables are assigned already; the best row entry
//     assigns the variables it eliminates).
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
