// Package optim is the project's one driver of gonum's L-BFGS (optimize.LBFGS
// with the More–Thuente line search): the generative learners of package
// learn (LWL, PLL) and the BP baseline online.LBFGS minimise through it.
//
// Minimize takes the objective as one function that writes the gradient and
// returns the value, evaluates it at most once per point (gonum asks for the
// value and the gradient separately), stops on the first evaluation error,
// on an error from the per-iteration callback or when the context is
// cancelled, and returns these errors as its error. Why the run ended
// otherwise — the gradient below its tolerance, no progress in the objective,
// the iteration limit, or a line search that could not progress — comes back
// in the Result (Stop, Converged), with the gradient's max-norm at the point
// returned; Result.Reason says it in words for users ("converged: gradient
// max-norm 3.2e-09 below the tolerance 1e-08", "stopped at the iteration
// limit of 1000 (gradient max-norm 0.0031)", "line search could not lower
// the objective further (gradient max-norm 4.5e-07): …") instead of gonum's
// status names ("Failure (linesearch: no change in location…)").
package optim
