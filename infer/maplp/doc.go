// Package maplp answers MAP queries (the most probable world) by the LP
// relaxation of MAP, lifted over the symmetries of the model, after Bui,
// Huynh and Riedel, "Automorphism groups of graphical models and lifted
// variational inference" (UAI 2013). It registers the infer methods "lp"
// and "ilp" (MAP task; properties relaxation, symmetry, solver, tol,
// max-rounds, time-limit).
//
// The LP. With θ = ln φ, maximise Σ_f Σ_x θ_f(x) μ_f(x) over the LOCAL
// polytope: μ ≥ 0, Σ_a μ_i(a) = 1, and Σ_{x: x[i]=a} μ_f(x) = μ_i(a) for
// every factor f and variable i in it. Zero entries are not −∞
// coefficients: their μ is fixed at 0, as are the states evidence rules out.
// The CYCLE relaxation adds the cycle inequalities of Sontag and Jaakkola
// (2007) over the binary variables, Σ_F cut_ij − Σ_{C∖F} cut_ij ≤ |F| − 1 for
// every cycle C and odd F ⊆ C, where cut_ij = μ_ij(0,1) + μ_ij(1,0) is taken
// from the pairwise marginals that the factors over i and j induce
// (averaged over those factors). They are added as cutting planes: after
// each LP solve, a shortest path from i to its mirror i' in the doubled
// graph (edges i–j, i'–j' of length cut_ij; i–j', i'–j of length 1 − cut_ij)
// shorter than 1 is a violated inequality; the most violated (at most
// max(20, #variables) a round) are added and the LP solved again until none
// is violated by more than tol. The LP value is an upper bound on the log
// score of every world; CYCLE's is at most LOCAL's.
//
// Lifting. A Symmetry gives a Partition of the variables and factors; the
// LP has one variable per (variable class, state) and per (factor class,
// entry), with the factor class's size as objective multiplicity, and
// constraints from one representative factor per class. None is the
// ground LP. Colour (colour passing, an equitable partition) has the ground
// LOCAL optimum but is refused for CYCLE (ErrColourCycle): colour classes
// are not orbits, and the Frucht graph shows that the CYCLE LP over them can
// fall below the MAP value. Orbit partitions (Partition.Orbits: orbits of a
// group of automorphisms that keep tables, argument positions and
// evidence) are valid for both (Theorem 5.1): an optimum is constant on
// orbits. Lifted cycle separation follows Theorem 7.1 when the Symmetry
// gives stabilisers (StabiliserSymmetry: Orbits and Renaming): for one
// representative v per variable orbit it takes the orbits of the subgroup
// fixing v and builds the lifted graph fixing v (stabiliser variable
// orbits as nodes, edge orbits as edges, self-loops and multi-edges
// allowed, cut values from the lifted solution); a shortest path from v to
// its mirror there is a shortest closed ground walk through v, and its cut
// is written directly in the lifted columns. Otherwise (or with
// Config.GroundSeparation) it expands the lifted solution to the ground
// edge marginals, separates on the ground graph from one variable per
// orbit, and folds each cut onto the orbit cells. Both give the ground
// CYCLE value. The methods "lp" and "ilp" default to the ground separation
// (property separation=ground): the stabiliser computations made the
// Theorem 7.1 path 2.8–12× slower on the semi-transitive model
// (experiments/map). The automorphism orbits of package
// lift/orbit are the symmetries "orbits" (Orbits: search on the factor graph)
// and "renaming" (Renaming: read off the MLN; lp and ilp give it the
// grounding through RunModel).
//
// Solvers. PDLP (restarted primal–dual hybrid gradient with Ruiz and
// Pock–Chambolle diagonal preconditioning, Applegate et al. 2021) is the
// large-LP solver: it needs only sparse matrix–vector products, handles
// the general LP that cutting planes produce (arbitrary ≤ rows), warm
// starts nothing and stops at 1e-7 relative KKT error. AD3 (Martins et al.
// 2015) was the alternative; it is specialised to the LOCAL polytope's
// factor structure, so every cycle inequality would need its own factor
// with its own projection, while PDLP takes cuts as plain rows. Simplex
// is an exact two-phase dense tableau simplex for small LPs (Bland's rule
// against cycling on these degenerate LPs): the cross-check of PDLP in the
// tests and the solver of branch and bound. Auto uses Simplex up to 1000
// LP columns and PDLP above.
//
// Decoding. Each variable takes its state of largest LP marginal
// (rounding), then greedy one-variable moves (iterated conditional modes)
// improve the world, lexicographically on (number of zero factors, log
// score); if a zero factor is left, MaxWalkSAT (package mws) searches for a
// world of the hard constraints. An integral LP solution is a proved MAP
// world (Result.Optimal).
//
// Exact MAP ("ilp"): depth-first branch and bound on the ground LP
// (CYCLE cuts of the root kept), branching on the most fractional μ_i(a)
// into x_i = a and x_i ≠ a, pruning by the LP bound. For small models.
package maplp
