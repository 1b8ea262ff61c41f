package format

import (
	"fmt"
	"io"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/format/dimacs"
	"github.com/lifted-dev/lifted/format/libdai"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/format/wfomcs"
	"github.com/lifted-dev/lifted/mln"
)

// builtin returns the formats lifted knows from the start, in the order
// messages list them.
func builtin() []Format {
	return []Format{
		{Name: "uai", Exts: []string{".uai"}, Kind: Graph, Read: readUAI},
		{Name: "fg", Exts: []string{".fg"}, Kind: Graph, Read: readLibDAI},
		{Name: "cnf", Exts: []string{".cnf", ".dimacs"}, Kind: Graph, Read: readCNF},
		{Name: "mln", Exts: []string{".mln"}, Kind: MLN},
		{Name: "wfomcs", Exts: []string{".wfomcs"}, Kind: MLN, ReadMLN: readWFOMCS(wfomcs.Read)},
		{Name: "wfomcs-mln", Kind: MLN, ReadMLN: readWFOMCS(wfomcs.ReadMLN)},
	}
}

// readWFOMCS adapts a reader of the WFOMC tool's files (package
// format/wfomcs) to Format.ReadMLN.
func readWFOMCS(read func(io.Reader, string) (*wfomcs.File, error)) func(io.Reader, string) (*mln.MLN, *mln.DB, error) {
	return func(r io.Reader, name string) (*mln.MLN, *mln.DB, error) {
		f, err := read(r, name)
		if err != nil {
			return nil, nil, err
		}
		return f.MLN, f.DB, nil
	}
}

func readUAI(r io.Reader, name string, _ Options) (*Model, error) {
	m, err := uai.Read(r, name)
	if err != nil {
		return nil, err
	}
	return &Model{Format: "uai", Graph: m.Graph, UAIType: m.Type}, nil
}

func readLibDAI(r io.Reader, name string, _ Options) (*Model, error) {
	m, err := libdai.Read(r, name)
	if err != nil {
		return nil, err
	}
	return &Model{Format: "fg", Graph: m.Graph, Labels: m.Labels}, nil
}

// readCNF reads DIMACS CNF and, unless opt.NoGraph, builds the formula's
// graph; a formula the graph cannot hold (an empty clause, a clause too
// long for a table) is an error prefixed with name.
func readCNF(r io.Reader, name string, opt Options) (*Model, error) {
	c, err := dimacs.Read(r, name)
	if err != nil {
		return nil, err
	}
	m := &Model{Format: "cnf", CNF: c}
	if opt.NoGraph {
		return m, nil
	}
	if m.Graph, err = cnf.ToGraph(c); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return m, nil
}
