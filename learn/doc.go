// Package learn fits the weights of Markov logic networks to data.
//
// Two generative learners share one L-BFGS driver (gonum's optimize) and a
// Gaussian prior N(mean, σ²) on every soft formula's weight (default
// N(0, 100²), as Forclift and Alchemy's generative learning use); hard
// formulas and Tuffy fixed weights ("@w") keep their weights.
//
//   - LWL (lifted weight learning; Van den Broeck, Meert and Davis 2013)
//     maximises the exact log-likelihood Σ_db Σ_j w_j·n_j(db) − log Z_db(w)
//     of closed-world databases, each with its own domain sizes. Its
//     gradient, counts in the data minus expected counts, comes from one
//     weighted first-order model count per database and iteration (package
//     wfomc); the model is compiled once, so each iteration only evaluates
//     it. Only the databases' sizes and formula counts (Data) are needed.
//   - PLL maximises the pseudo-log-likelihood on the ground model,
//     Σ_X log P(X = x | all other atoms), Alchemy's default generative
//     learner, with predicates weighted equally by default.
//
// Discriminative maximises the conditional log-likelihood of the
// non-evidence predicates given the evidence ones (Alchemy's and Tuffy's
// -d): diagonal Newton with a trust region (Lowd and Domingos 2007) and
// expected counts from MC-SAT on the ground network that package ground
// builds (exact enumeration when it has at most DiscOptions.ExactVars
// variables), with no limit on the size of a ground clause; "lifted learn
// --method dn", and the fallback of --method scg when a ground clause is too
// large for BP.
//
// CountDB computes a database's Data: the number of true groundings of
// every formula (closed world), in time linear in the domains and the true
// binary atoms for quantifier-free two-variable formulas. LogLikelihood is
// the exact test-set log-likelihood. WriteMLN writes a learned model in the
// format every learner of this project writes: declarations, then one line
// per formula, the weight, a space and the formula as written in the input.
package learn
