// Package ground grounds a Markov logic network and its evidence into a
// factor graph, keeping the map between the graph's variables and the ground
// atoms.
//
//	m, _ := mln.ParseFile("smokers.mln")
//	db, _ := mln.ReadDBFiles(m, "smokers.db")
//	gr, err := ground.Ground(ctx, m, db, ground.Options{Query: []string{"Smokes"}})
//	res, _ := infer.Run(ctx, gr.Graph, nil, infer.DefaultOptions())
//	v, _ := gr.Var(m.PredIndex("Smokes"), []int{1}) // Smokes(<second person>)
//	p := res.BP.Marginal(int(v))[1]
//	logZ := res.BP.LogZ + gr.LogZOffset
//
// Query atoms with constants or variables, as "lifted infer -q" takes them,
// are parsed by ParseQuery and resolved by the grounding:
//
//	q, err := ground.ParseQuery(m, db, []string{"Smokes,Friends(Anna,y)"})
//	gr, err := ground.Ground(ctx, m, db, ground.Options{QueryAtoms: q})
//	for _, a := range gr.Queries {
//		fmt.Println(a.Name, res.BP.Marginal(int(a.Var))[1])
//	}
//
// # Semantics
//
// The distribution is Richardson and Domingos': P(x) ∝ exp(Σᵢ wᵢ nᵢ(x)),
// nᵢ(x) the number of true groundings of formula i, with hard formulas
// making the worlds that violate them impossible. It is not Alchemy's
// approximation, which converts each formula to clauses and divides its
// weight among them (Options.AlchemyCNF reproduces that for comparison).
//
// Variables are the binary ground atoms whose value the evidence leaves
// open: every atom of an open-world predicate not in the evidence, and the
// atoms marked unknown ("?P(A)") in closed-world ones. Which predicates are
// closed-world is the rule of the MLN's dialect (mln.ClosedWorld; reported
// as Grounding.WorldRule): Alchemy's and LoMRF's, a predicate with evidence
// that is not queried is closed-world, query predicates and predicates
// without evidence are open-world; Tuffy's, only "*"-marked predicates are
// closed-world; pracmln's, none is. Options.ClosedWorld and OpenWorld
// override. Open-world predicates that no formula mentions and that are not
// queried get no variables (each such atom only doubles Z, which
// LogZOffset accounts for).
//
// # Ground formulas and factors
//
// Each binding of a formula's free variables is a ground formula. Its value
// under the evidence is computed in three-valued logic; if the evidence
// fixes it, the ground formula vanishes and only multiplies Z by a constant
// (exp(w) if true, 1 if false), which is added, in log space, to
// LogZOffset, so that log Z of the model given the evidence is log Z of
// Graph plus LogZOffset. A hard ground formula that the evidence makes false
// is an error wrapping ErrContradiction that names the formula, its
// position and the binding; so is a pair of hard ground formulas that fix
// one atom to opposite values (one step of unit propagation).
//
// A ground formula that survives becomes one factor over its distinct
// unknown atoms, in the order of their first occurrence in the formula, with
// table exp(w·[formula true]) scaled so that its largest entry is 1 (the
// scale goes to LogZOffset), or 0/1 for a hard formula. Atoms on which the
// table does not depend are dropped, and a table that depends on none of
// them is a constant. Quantifiers are expanded over their domains within
// the ground formula (EXIST as a disjunction, FORALL as a conjunction);
// equality is evaluated at grounding time; "+x" is an ordinary variable at
// inference (its expansion into one formula per constant gives every copy
// the written weight); Alchemy's starred atoms "*P(x)" expand into all sign
// combinations. Hard formulas are split at top-level conjunctions into
// separate ground formulas, which is exact (a 0/1 product); soft ones are
// never split. Ground formulas with the same formula, evidence pattern and
// arrangement of atoms get bitwise-identical tables in identical position
// order, and fg.Builder gives them one table id, so colour passing starts
// from the right colours. Options.MergeDuplicates combines ground formulas
// over the same atoms into one factor, as Alchemy does with duplicate ground
// clauses.
//
// Alchemy functions have LoMRF's semantics: a formula F with function terms
// is grounded as !ReturnValueOf_f(r, args) v … v F[r/f(args)], one fresh
// variable r per distinct function term (inner terms first for nested
// ones), where ReturnValueOf_f is a closed-world evidence predicate true
// exactly for the values listed in the evidence ("C = f(A)",
// mln.DB.Funcs). A binding whose function terms are all defined thus
// yields F with the values substituted, and one with an undefined term a
// true ground formula; the guards are drivers, so the enumeration follows
// the function values instead of the return types' domains. Statistics and
// LogZOffset count one grounding per binding of F's own variables (LoMRF's
// rewrite would count one per value of each fresh variable, which shifts
// log Z by a constant and leaves marginals alone). A hard formula split
// into conjuncts keeps the guards of all its function terms in every
// conjunct. Function terms may use the formula's free variables and
// constants, not quantified variables (an error with the term's position).
//
// A ground formula over more than Options.MaxArity unknown atoms (12 by
// default) is represented exactly with one auxiliary variable a, φ(x) =
// Σₐ g(a) Πᵢ hᵢ(a, xᵢ), when it is a clause or a conjunction of literals (an
// EXIST over a large domain, typically): with c₁ the factor value when all
// literals l'ᵢ are false and c₀ otherwise, a binary a gives the mixture c₀ +
// (c₁−c₀)·[all l' false] when c₁ ≥ c₀ (pairwise tables equal for all atoms
// of one sign, so colour passing keeps them together), and otherwise a
// ranges over 0..k and names the first true literal. The distribution over
// the atoms is unchanged (summing a out gives φ back) and BP has the same
// fixed points, because the star around a is a tree. Other formulas that
// large (an equivalence with an EXIST over a large domain, say) get
// Tseitin auxiliary variables: bottom-up, a subformula s is replaced by a
// new binary variable y with a hard factor y ⇔ s, and long conjunctions or
// disjunctions are cut into chunks defined the same way, until every
// factor has at most max(MaxArity, 3) variables. Each y is a function of
// the atoms, so summing or maximising it out gives the formula back: the
// distribution over the atoms, log Z and MAP are exact, there is no limit
// on a formula's number of atoms, and no weight is split (unlike
// Options.AlchemyCNF). Auxiliary variables are not atoms: their ids follow
// the atoms' and they are never reported or queried. Mutual exclusion ("p(x, y!)")
// adds, for each binding of the other arguments, a hard "exactly one"
// factor over the block's unknown atoms (an auxiliary variable naming the
// true atom when there are more than MaxArity), unit factors when the
// evidence has the true atom, and an error when the evidence leaves none.
//
// # Enumeration
//
// Grounding is a backtracking join over the free variables, not a Cartesian
// product filtered afterwards. At each step the formula is evaluated with
// the atoms bound so far and a subtree whose value the evidence already
// fixes is accounted for at once. Otherwise the grounder looks for a driver:
// an atom of a closed-world predicate such that the formula's value is fixed
// whenever that atom is false (a negative literal of a clause, for
// instance). Only bindings that make the driver true or unknown can yield
// factors; they are read off an index of the predicate's evidence by the
// arguments already bound, and all other bindings vanish together. Without
// a driver, the variable that completes the most nearly bound atom ranges
// over its domain. A reference mode that visits every binding serves the
// tests.
//
// # Size
//
// Before building, Estimate (and Ground itself) predicts the number of
// ground atoms and ground formulas: the bindings of every formula (an upper
// bound) and a join estimate that follows the drivers with the average
// number of evidence atoms per bound argument. Ground refuses, with an error
// wrapping ErrTooLarge that names the largest formula, when the ground atoms
// or the join estimate of the ground formulas exceed Options.MaxGround (by
// default the memory budget, a share of the available memory, over the
// memory one ground formula takes in the whole pipeline, Options.Memory:
// about 1.2 kB for marginal inference, and for MAP 364 bytes for a ground
// formula over two unknown atoms, 528 over three, MAPBytes), and stops if
// the grounding passes the limit anyway. Options.Progress reports progress.
//
// # The formula evaluator
//
// The compiled formulas are exported for the packages that evaluate ground
// formulas themselves, so that there is one compiler and one evaluator:
// Compile turns an MLN formula into a Formula (quantifiers expanded over
// the domains, constants folded, equal atom occurrences shared), whose
// EachBinding enumerates the bindings of its free variables and whose Eval
// evaluates it at one binding, in three-valued logic, from the values the
// caller gives its occurrences. Builder builds a Formula from connectives
// directly (the WFOMC compiler's ground fallback, whose formulas are not an
// MLN's), and AtomIndex numbers all ground atoms densely. The online
// learners ground their clauses with these (without evidence pruning: a
// clause per binding, in binding order), PLL and LWL count true groundings
// with them, and wfomc's ground fallback counts with them.
//
// # Restricted groundings
//
// Options.Restrict grounds over a subset of each type's constants, with
// the evidence restricted to them, and reports the binding of every factor
// (Restriction). Package lift/firstorder grounds a small model of
// representatives with it and counts the full model's ground atoms and
// formulas combinatorially.
package ground
