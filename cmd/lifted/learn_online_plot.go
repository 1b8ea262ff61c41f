package main

import "github.com/lifted-dev/lifted/online/curveplot"

// plotFormat returns the gonum/plot format for a --plot file name
// (curveplot.Format); a wrong extension is a usage error.
func plotFormat(path string) (string, error) {
	f, err := curveplot.Format(path)
	if err != nil {
		return "", usageError{err}
	}
	return f, nil
}
