// Package wfomc computes, exactly and without grounding, the partition
// function of a Markov logic network, the expected number of true
// groundings of every formula, and the marginal probability of any ground
// atom or ground formula, by weighted first-order model counting (WFOMC).
//
// # Use
//
//	m, _ := mln.ParseFile("smokers.mln")
//	q, _ := wfomc.ParseQuery(m, "Friends(Anna,Bob)")
//	mod, err := wfomc.Compile(m, &wfomc.Options{Queries: []wfomc.Query{q}})
//	res, err := mod.Evaluate(weights, map[string]int64{"person": 1000000})
//	// res.LogZ, res.ExpectedCounts[j], res.Marginals[0]
//
// Compile does all the work that depends neither on the weights nor on the
// domain sizes; Evaluate is cheap and is what a weight learner calls once
// per iteration and database (package learn). Since ∂log Z/∂w_j is the
// expected count of formula j, Evaluate computes log Z and all expected
// counts in one pass (forward-mode differentiation through the sum).
//
// # Method
//
// The input is an MLN (package mln) and domain sizes. The semantics is
// Markov logic's: a world's weight is exp(Σ_j w_j·n_j), n_j the number of
// true groundings of formula j (groundings with x = y included), hard
// formulas must hold, and every ground atom of every declared predicate is a
// variable (those no formula mentions contribute a factor 2 each).
//
//  1. Shattering. Constants named in formulas (and in evidence on binary
//     atoms) become distinct elements: each type splits into its named
//     constants and the anonymous rest R, formulas are instantiated for
//     every way their free variables can be a named constant or an element
//     of R, quantifiers expand over the named constants, and each predicate
//     splits into pieces (P(x,Guy) becomes a unary predicate over R,
//     P(Guy,Nima) a nullary one). The result mentions no constants.
//  2. Decomposition. Formulas that share no predicate are independent:
//     log Z is the sum over the connected components.
//  3. Quantifiers. Each quantified subformula ∃z ψ(x,z) is replaced by an
//     atom B(x) defined exactly by hard clauses with a Skolem predicate S(x)
//     of weights (1, −1) (see normalize); a top-level hard ∃ needs only S.
//     Universal quantifiers are negated existentials.
//  4. FO2 components are counted by the cell algorithm (Beame et al. 2015;
//     van Bremen and Kuželka 2021). A cell is an assignment to an element's
//     unary atoms P(x) and reflexive atoms R(x,x); its weight w_i collects
//     the factors of every grounding that involves that element alone; the
//     pair weight r_ij sums, over the binary atoms between two elements in
//     cells i and j, the factors of every grounding involving both. Then
//     Z = Σ_k multinomial(n; k)·Π_i w_i^k_i·Π_i r_ii^C(k_i,2)·Π_{i<j}
//     r_ij^(k_i·k_j), per type (and per evidence block). A weighted formula
//     (w, φ) is the fresh predicate A ⇔ φ with weights (e^w, 1)
//     summed out on the spot: it contributes the factor e^(w·[φ]) to the
//     cell or pair weights, which are kept as polynomials in e^w (poly), so
//     that structure can be compared exactly.
//  5. Nullary atoms (ground atoms over named constants; nullary.go) form a
//     ground factor graph inside the plan: those that only closed formulas
//     use are summed out by variable elimination (polys as values, largest
//     table predicted), the others — the interface, which the cells of the
//     anonymous elements read — are enumerated with pruning, and
//     assignments that give the formulas the same bodies share one cell
//     structure. Cell weights are likewise computed by elimination over an
//     element's atoms outside the pair projection when it has many
//     (cellve.go).
//  6. Speed-ups (cells.go, sum.go): cells are enumerated per projection onto
//     the atoms that pair weights read (all other atoms are summed into the
//     cell weight); cells with identical rows of pair weights merge; groups
//     with a single cell are absorbed into the others' weights, after which
//     more cells merge; in each group a set of cells with uniform mutual
//     pair weights is summed in closed form by the multinomial theorem. What
//     remains is enumerated: friends-and-smokers has n + 1 terms. When a
//     single explicit class remains (friends-and-smokers and most FO2
//     models) and the sum has at least 8192 terms, only the terms that
//     matter are summed (window.go): interval bounds on the terms, from the
//     concavity of log C(n,k), the convexity of the log of the collapsed
//     classes' weight sums and the exact quadratic rest, are refined best
//     first until what is left out is certified below 2^-60 of the sum of
//     the terms' magnitudes (and of their gradients): tens to thousands of
//     terms instead of n + 1, so n = 10^9 takes milliseconds. Otherwise,
//     or when that would touch more than a quarter of the terms, or a
//     weight is zero, the outermost sum is split into fixed chunks summed
//     in parallel and merged in order, so results do not depend on the
//     number of processors.
//     Conditioning on projection counts (condition.go): the pair weight is
//     a product over the connected components of the binary atoms between
//     two elements, each reading some cell atoms of either. With S a set
//     of cell atoms such that every component reads only atoms of S on one
//     of its sides, r_ij = ψ(i,[j])·ψ(j,[i])·κ([i],[j]), [i] the projection
//     of cell i onto S (its class); given the class counts the elements
//     pick their cells independently, so the sum runs over class counts
//     only, each class contributing (Σ_{i∈v} w_i·Π_u ψ(i,u)^(c_u−[u=v]))^c_v.
//     S is searched for the fewest classes, the split is checked
//     symbolically on every pair of cells, and Evaluate uses whichever of
//     the two sums has fewer terms: the model with five unary and two
//     binary predicates whose formulas read A, C, E of one element and
//     B, D, A of the other (F(x,y) ^ A(x) => B(y), ...) has 32 cells but 8
//     classes (S = {A, B, D}): C(n+7,7) terms instead of C(n+31,31).
//  7. Counting quantifiers (C2; count.go). A hard ∀x ∃=k y ψ(x,y) (also
//     ∃≤k, ∃≥k) is a counting constraint on A ⇔ ψ, and the hard
//     P(x,y) ^ P(x,z) => y = z is ∀x ∃≤1 y P(x,y). A component with such
//     constraints is summed by dynamic programming over its elements: the
//     state is how many elements so far are in each (cell, counts so far)
//     group; adding an element multiplies by its cell weight and, for each
//     group, by the multinomial ways its elements split among the classes
//     of the pair weight by the values of the counted atoms (one group and
//     one class at a time, the states merged in between, so the splits are
//     summed, not enumerated jointly). Cardinality constraints |P| = k
//     (<=, >=) add P's running total to the state; a state whose total
//     plus the P atoms its missing counts will still add exceeds k is
//     dropped, so |F| = n with ∃ y F(x,y) costs what ∃=1 does. A linear
//     cardinality constraint Σ a_i·|P_i| cmp k (mln.Cardinality) keeps
//     each P_i's total in the state (up to its n^arity atoms) and accepts
//     the final states whose sum meets it; a state whose sum can no longer
//     reach it (the atoms among elements still to come bound what each
//     total may add) is dropped after every step. Beside
//     them a hard ∃ becomes ∃≥1, so no Skolem weights cancel: the perfect
//     matchings of 1,000 elements are exact. Unary evidence: the state
//     also counts the elements added from each evidence block, and Z is
//     divided by the number of the blocks' sequences. One type without
//     named constants only.
//  8. Beyond FO2. A component that is not FO2 is tried with the power rule
//     (independent partial grounding): when a variable occurs in every atom
//     at a fixed argument position of each predicate, Z = Z₁^m with Z₁ the
//     model with that variable fixed to a new named constant — compiled
//     recursively, so TaughtBy(c,p,q) => Professor(p) lifts. Otherwise the
//     atom counting rule (generalised binomial; atomcount.go) counts the
//     true atoms of a unary predicate P over a type of size n:
//     Z = Σ_k C(n,k)·Z_k, Z_k the model with P true on a fixed set of k
//     elements and false on the other n − k. The type splits into two
//     types of sizes k and n − k (formulas instantiated per side of each
//     variable of the type, quantifiers expanded over both sides,
//     predicates split into pieces, P replaced by its value); that model no
//     longer mentions P, is compiled once, recursively (decomposition, the
//     power rule, the cell algorithm, further counting), and evaluated for
//     each k; expected counts and marginals come from the same sum. So
//     P(x) ^ Q(x,y,z) => R(y,z) lifts (count P, then the power rule on y),
//     also next to FO2 formulas on P. The candidates P are tried in order
//     within a budget. If no rule applies, Compile fails with an error
//     naming the formula and why, unless Options.AllowGround asks for exact
//     enumeration of the component's ground worlds (small domains only).
//  9. The linear order axiom (order.go; Tóth and Kuželka, AAAI 2023). The
//     reserved predicates LEQ, PRED/PREDk and CIRCULAR_PRED (binary over one
//     type) are an order of the type and its successors; Z sums over the n!
//     orders. The counting dynamic program of 7 adds the elements in the
//     order's sequence, with the pair weights of a before b (LEQ(a,b)
//     true, LEQ(b,a) false) and, for PREDk, the groups of the last k
//     elements kept in the state; every order without evidence gives the
//     same sum, so log n! is added (with unary evidence, the blocks'
//     sequences are summed and log Π n_b! added).
//
// # Evidence and queries
//
// Evidence (Options.Evidence) conditions the model. Unary evidence stays
// lifted (Van den Broeck and Davis 2012): the anonymous elements with the
// same evidence form a block whose cells are those consistent with it, and
// blocks are summed over like types. Evidence on atoms of higher arity names
// its constants (exponential in their number). Options.Counts fixes how many
// anonymous elements satisfy a unary predicate.
//
// A query is answered by symmetry, as the paper's equiprobable sets: its
// anonymous constants become variables ranging over their blocks (pairwise
// distinct), the query becomes a formula with a weight of its own held at
// 0, and its probability is its expected count divided by its number of
// groundings. So all queries come from the same single pass.
//
// # Numbers
//
// Everything is summed in log space with signs (Skolem weights are −1, so
// terms cancel): positive and negative terms are accumulated apart, each
// relative to its running maximum, and subtracted once with expm1; the
// digits lost to cancellation are reported. Exponents such as C(k,2) and
// k_i·k_j are int64, multinomials use exact log-factorial tables, so domain
// sizes up to 2^31 are handled and n = 10^6 is exact to double precision
// (relative error about 1e-15 in log Z). The certified window changes the
// order and grouping of the additions only: against the sum over every
// term it agrees to 1e-13 relative in log Z and 1e-11 in expected counts and
// marginals (TestWindowMatchesFullSum, up to n = 10^7).
//
// The logs of the cell and pair weights are double-doubles too (products of
// exponents and weights exact by FMA), so the absolute error of a log is
// about 2^-102 of M = Σ_j |w_j|·G_j + 2·(ground atoms)·ln 2 (G_j the
// groundings of formula j). Huge weights (huge.go) are reduced to their hard
// limit first: when the largest weights, integer multiples of the smallest
// of them β, exceed what everything else can add up to by e^64, only the
// worlds that maximise their count matter, at β as at any T above that
// margin, so they are evaluated at T and log Z is shifted by (β − T)·N*
// exactly; levels of such weights are reduced one after the other. So
// weights up to ±1e300 are exact (TestHugeWeightsAgainstBruteForce, against
// enumeration with exact log weights). Result.RelError estimates the
// relative error (from M and the cancellation); Result.Exact says whether
// it is at most 1e-9, and Evaluate refuses with a PrecisionError what it
// cannot reduce below 1e-9 (huge weights of incommensurable magnitudes).
// Where the Skolem sum of a quantified formula with a huge weight cancels
// completely, the formulas far above the rest are made hard (φ, or ¬φ for
// a negative weight) and the model recompiled: when it has a world, those
// are the dominant worlds; otherwise (the extreme counts conflict) the
// PrecisionError stands.
//
// # Limits
//
// Not supported, each with its own error: per-constant weights (+x),
// starred atoms, Alchemy functions, mutually exclusive arguments (!), more
// than 22 unary and reflexive atoms of one type in one component, and named
// constants whose nullary atoms are predicted to need an elimination table
// over more than 18 of them at once or more than 2^16 assignments of the
// interface atoms (or 2^26 cell evaluations over them) — a component beyond
// the latter is still computed, by elimination alone, at domain sizes where
// it has no anonymous element (every element named), and refused at others; the power rule
// and atom counting do not apply to a component whose types are split by
// unary evidence or count evidence. The cell sum is polynomial in the domain
// sizes with a degree that grows with the number of cell classes left after
// merging (or of projection classes when conditioned); Evaluate refuses, before starting, sums of more than
// Options.MaxTerms terms (default 10^9; at most 2·10^10) with a TermsError.
//
// # Progress and cancellation
//
// WithProgress attaches a progress callback to the context of
// CompileContext, EvaluateContext and RunFileContext: work units with a
// total (cell-pair weights while compiling; terms of the cell sums while
// evaluating). All three poll the context in their long loops and stop
// within milliseconds of its end; RunFileContext then returns a
// StoppedError saying in which phase and after how long.
//
// WithWorkLimit bounds a run in work units instead of time (steps of
// compilation's loops, cell-pair weights, steps of the sums, ground worlds,
// each weighed to about 0.1 µs of one core: Work): the count of a run is
// the same whatever the load and the processors, so whether a run fits a
// limit is decided the same way every time (auto's wfomc share uses it).
// The context ends with a *WorkError cause once the limit is passed. The cell
// algorithm computes a weight for every pair of cells of a case, and a
// compilation refuses more than 2^22 of them in all (Options.MaxCellPairs;
// its cases and atom counting's attempts together; the models of the tests
// need at most 2.8·10^5): with ground computation allowed, such a part is
// then grounded. Atom counting
// multiplies the cost of the counted part by n + 1 (per nested count) and
// refuses more than 10^7 terms.
package wfomc
