// Package dynamic is inference in dynamic Markov logic networks (Section 4.1
// of the lifted BP paper): fluents, predicates whose last argument is a time
// step; intra-time formulas relating atoms of one step and inter-time
// formulas relating step t to succ(t) (written succ(t), t+1 or t++; at most
// one successor per term, the Markov assumption).
//
// Unroll writes the DMLN out as an ordinary MLN over steps 0..T (mln.Unroll),
// grounds it with the one grounder (package ground) and records the step of
// every variable and factor. Evidence on fluents is kept apart, by step, so
// that it can be clamped as it streams in (EvidenceUpTo).
//
// FF, the factored frontier algorithm of Murphy and Weiss, is BP on the
// unrolled graph with the forwards–backwards protocol (bp.ForwardBackward):
// messages left to right, step by step, a step hearing first from the
// previous step and then from within itself; then right to left; repeated to
// convergence. LFF is the same protocol on the graph compressed by colour
// passing (RunOptions.Lifted). Flooding (bp.Flood) runs on the same engine
// for comparison. On a chain (an HMM-shaped DMLN) one forwards–backwards
// iteration gives the exact marginals.
//
// Filter answers P(X_t | evidence of steps 0..t) for every step t, relifting
// through a Relifter as each step's evidence arrives; Smooth answers with all the
// evidence. Fluents are open-world: an atom the evidence does not name is
// unknown.
package dynamic
