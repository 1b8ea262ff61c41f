package main

import (
	"errors"
	"fmt"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/lift"
)

// loaded is a factor graph read from a file, with what the writers need.
type loaded struct {
	graph  *fg.Graph
	format string        // uai, fg or cnf
	model  *format.Model // all that format.Load returned
}

// cliError marks the errors format reports as usage mistakes as usage
// errors of the command line.
func cliError(err error) error {
	var ue *format.UsageError
	if errors.As(err, &ue) {
		return usageError{err}
	}
	return err
}

// loadGraph reads a factor graph in the format that formatFlag names or the
// extension tells (format.Load).
func loadGraph(path, formatFlag string) (*loaded, error) {
	m, err := format.Load(path, format.Options{Format: formatFlag})
	if err != nil {
		return nil, cliError(err)
	}
	return &loaded{graph: m.Graph, format: m.Format, model: m}, nil
}

// loadEvidence reads the evidence files for g (format.LoadEvidence).
func loadEvidence(paths []string, g *fg.Graph) (fg.Evidence, error) {
	ev, err := format.LoadEvidence(paths, g)
	if err != nil {
		return nil, cliError(err)
	}
	return ev, nil
}

// colourMode resolves --color-mode; auto is CNF mode for CNF input (clauses
// are told apart only by literal signs) and positional otherwise.
func colourMode(flag, format string) (lift.Mode, error) {
	switch flag {
	case "auto", "":
		if format == "cnf" {
			return lift.CNF, nil
		}
		return lift.Positional, nil
	case "positional":
		return lift.Positional, nil
	case "cnf":
		return lift.CNF, nil
	case "symmetric":
		return lift.Symmetric, nil
	}
	return 0, usageError{fmt.Errorf("unknown --color-mode %q (want auto, positional, symmetric or cnf)", flag)}
}

// symmetricTables marks the tables invariant under every permutation of their
// positions, for --color-mode symmetric.
func symmetricTables(g *fg.Graph) []bool {
	sym := make([]bool, len(g.Tables))
	for t := range g.Tables {
		sym[t] = lift.IsSymmetric(&g.Tables[t])
	}
	return sym
}
