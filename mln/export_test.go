package mln

// Internals for the tests of package mln_test (which parse with
// format/mlnfile, so cannot be in package mln).
var StarredAtoms = starredAtoms
