package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/dimacs"
	"github.com/lifted-dev/lifted/format/libdai"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/lift"
)

// loaded is a factor graph read from a file, with what the writers need.
type loaded struct {
	graph  *fg.Graph
	format string // uai, fg or cnf
}

// detectFormat picks the format from the flag or the file extension.
func detectFormat(path, flag string) (string, error) {
	if flag != "" {
		switch flag {
		case "uai", "fg", "cnf":
			return flag, nil
		}
		return "", usageError{fmt.Errorf("unknown --format %q (want uai, fg or cnf)", flag)}
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".uai":
		return "uai", nil
	case ".fg":
		return "fg", nil
	case ".cnf", ".dimacs":
		return "cnf", nil
	}
	return "", usageError{fmt.Errorf("%s: cannot tell the format from the extension; use --format uai|fg|cnf", path)}
}

func loadGraph(path, formatFlag string) (*loaded, error) {
	format, err := detectFormat(path, formatFlag)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	l := &loaded{format: format}
	switch format {
	case "uai":
		m, err := uai.Read(f, path)
		if err != nil {
			return nil, err
		}
		l.graph = m.Graph
	case "fg":
		m, err := libdai.Read(f, path)
		if err != nil {
			return nil, err
		}
		l.graph = m.Graph
	case "cnf":
		c, err := dimacs.Read(f, path)
		if err != nil {
			return nil, err
		}
		if l.graph, err = cnf.ToGraph(c); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return l, nil
}

func loadEvidence(paths []string, g *fg.Graph) (fg.Evidence, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if len(paths) > 1 {
		return nil, usageError{fmt.Errorf("a factor graph takes one evidence file, got %d", len(paths))}
	}
	path := paths[0]
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return uai.ReadEvidence(f, path, g)
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
