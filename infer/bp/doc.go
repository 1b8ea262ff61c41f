// Package bp is the one belief propagation engine of lifted. It runs on a
// counted graph (lift.Compressed): the ground graph is the compression with
// every count 1, so ground BP and lifted BP are the same code and cannot
// drift apart.
//
// Messages are normalised to sum 1. Variable-to-factor messages are formed in
// the log domain, because a clusternode raises incoming messages to counts
// that reach the domain size (Eq. 7 of the lifted BP paper); exact zeros (hard
// constraints, evidence) are tracked as counts rather than as -Inf, so no NaN
// can arise from "zero divided by zero". Factor-to-variable messages evaluate
// the representative ground factor with one message per position, which is
// the ground computation itself.
//
// Schedules: Flood computes every message from the previous iteration's
// messages. Sequential visits clusterfactors in order and, within one, its
// lifted edges by the index of the representative factor's variable, updating
// each factor-to-variable message at once from the current messages. On a
// ground graph that is libDAI 0.3's SEQFIX order (factors in order, each
// factor's variables in label order); on a compressed graph a whole slot is
// updated at once, so lifted and ground sequential runs take different paths
// to the same fixed point. ForwardBackward is the factored frontier protocol
// for graphs unrolled over time (Options.VarSlice gives each variable's step;
// package dynamic sets it): sequential updates ordered step by step, left to
// right and then right to left; on a chain one iteration is exact.
//
// Convergence is declared when the largest absolute change of any
// factor-to-variable message entry in an iteration is below Tol. Damping is
// linear: new = (1-d)·computed + d·old.
package bp
