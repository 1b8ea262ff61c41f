// Package score scores probabilistic answers against a true world: the
// conditional log-likelihood (CLL), the area under the precision-recall
// curve (Davis and Goadrich's interpolation, tied atoms grouped), the
// area under the ROC curve, accuracy and F1 at 0.5, and the Brier score,
// per predicate and overall (Compute on probabilities and labels; Score
// on an Answer read from a result file against a truth database under the
// closed-world rule; ScoreFiles reads the files first). It is what
// "lifted score" prints and what the learning benchmark (bench/learning)
// reports; PRCurves and WritePRCurveSVG draw the precision-recall curves
// without a plotting library (internal/svgplot).
package score
