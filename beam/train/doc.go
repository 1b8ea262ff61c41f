// Package train runs lifted online training (package online) with every
// mini-batch's gradient computed by an Apache Beam pipeline: one map over
// the mini-batch's pieces (online.Model.PieceGradient on each piece, on the
// workers) and one sum (a Combine of online.AddGradient), the map/reduce of
// Theorem 4 of Ahmadi et al. (2013). The driver keeps what online.Train
// does between mini-batches (shuffling under the seed, the SMD or SGD step),
// so the learned weights are those of online.Train up to the order of the
// floating-point sum.
package train
