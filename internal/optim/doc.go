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
// in the Result.
package optim
