// Package uai reads and writes the file formats of the UAI inference
// competitions: models (.uai, MARKOV and BAYES), evidence (.evid, in both the
// 2010 and the 2014 form) and solutions (.MAR marginals, .MPE assignments and
// .PR log10 partition functions).
//
// A model file is a sequence of white-space separated tokens:
//
//	MARKOV                  (or BAYES)
//	3                       number of variables
//	2 2 3                   their cardinalities
//	2                       number of factors
//	1 0                     scope of factor 0: its size, then variable ids
//	2 0 2                   scope of factor 1
//	2                       table of factor 0: number of entries,
//	 0.4 0.6                then the entries
//	6
//	 1 2 3 4 5 6
//
// Tables list their entries with the last scope variable changing fastest,
// the same order package fg uses, so entries are copied as they are. A BAYES
// file lists conditional probability tables with the child last; they are
// read as ordinary factors. A '#' at the start of a token begins a comment
// that runs to the end of the line.
//
// Every reader reports bad input as one *pos.Error naming the file, line and
// column of the offending token, and refuses absurd sizes before allocating.
package uai
