// Package curveplot draws the learning curves of the online learners
// (online.Curve: test CMLL against passes over the mega-example, one line
// per run, a dashed line at one pass) with gonum/plot, for "lifted learn
// --plot" and the Apache Beam trainer's --plot.
package curveplot
