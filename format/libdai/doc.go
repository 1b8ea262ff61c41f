// Package libdai reads and writes factor graphs in the .fg format of libDAI.
//
// A file is a sequence of white-space separated tokens: the number of
// factors, then one block per factor:
//
//	2        number of variables of the factor
//	4 1      their labels: non-negative integers, in any order
//	2 3      their cardinalities
//	3        number of listed entries
//	0 0.5    entry index and value; unlisted entries are 0
//	1 2.0
//	5 1e-3
//
// Entry indices put the first listed variable fastest: above, index 1 means
// label 4 in state 1 and label 1 in state 0. Package fg puts the last scope
// variable fastest, so Read transposes each table and Write transposes it
// back. A '#' at the start of a token begins a comment that runs to the end
// of the line; libDAI files use such lines as headers.
//
// Variables are identified by label across factors. Read numbers them 0..n-1
// in increasing label order, as libDAI itself orders them, and keeps each
// factor's scope in the order the file lists it.
//
// Read reports bad input as one *pos.Error naming the file, line and column
// of the offending token, and refuses absurd sizes before allocating.
package libdai
