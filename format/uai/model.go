package uai

import (
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/internal/tok"
	"github.com/lifted-dev/lifted/pos"
)

// Model types, the first token of a model file.
const (
	Markov = "MARKOV"
	Bayes  = "BAYES"
)

// Limits on what the readers accept. Inputs beyond them are refused before
// anything of that size is allocated.
const (
	// MaxVars is the largest number of variables in a model.
	MaxVars = 1 << 28
	// MaxFactors is the largest number of factors in a model.
	MaxFactors = 1 << 28
	// MaxTableSize is the largest number of entries in one table.
	MaxTableSize = 1 << 28
)

// Model is a model read from a UAI file.
type Model struct {
	// Type is Markov or Bayes. Write treats "" as Markov.
	Type string
	// Graph holds the variables and factors in file order: variable i of
	// the file is variable i of the graph, factor i is factor i. A BAYES
	// model's conditional probability tables are its factors.
	Graph *fg.Graph
}

// Read reads a model in UAI format (MARKOV or BAYES). name is the file name
// used in error messages, which are *pos.Error values. Line breaks are free;
// anything but white space and comments after the last table is an error.
func Read(r io.Reader, name string) (*Model, error) {
	rd := &modelReader{s: tok.NewScanner(r, name), b: fg.NewBuilder()}
	return rd.read()
}

// modelReader holds the state of one Read.
type modelReader struct {
	s    *tok.Scanner
	b    *fg.Builder
	card []int32
	// The scope of factor f is edges[start[f]:start[f+1]]; its table has
	// size[f] entries.
	edges []int32
	start []int
	size  []int
}

func (rd *modelReader) read() (*Model, error) {
	typ, err := rd.header()
	if err != nil {
		return nil, err
	}
	if err := rd.vars(); err != nil {
		return nil, err
	}
	if err := rd.scopes(); err != nil {
		return nil, err
	}
	if err := rd.tables(); err != nil {
		return nil, err
	}
	if err := rd.s.End("the last table"); err != nil {
		return nil, err
	}
	return &Model{Type: typ, Graph: rd.b.Build()}, nil
}

func (rd *modelReader) header() (string, error) {
	s := rd.s
	if !s.Next() {
		return "", s.EndErr(tok.About("the model type MARKOV or BAYES"))
	}
	switch t := string(s.Token()); t {
	case Markov, Bayes:
		return t, nil
	}
	return "", s.Errorf("unknown model type %s: expected MARKOV or BAYES", s.Quoted())
}

func (rd *modelReader) vars() error {
	s := rd.s
	n, err := s.Count(tok.About("the number of variables"), MaxVars)
	if err != nil {
		return err
	}
	rd.card = make([]int32, 0, min(n, 1<<16))
	for v := range n {
		c, ok := s.NextInt()
		if !ok {
			return s.IntErr(tok.About("the cardinality of variable %d", v))
		}
		if c < 1 {
			return s.Errorf("variable %d has cardinality %d; it must be at least 1", v, c)
		}
		if c > MaxTableSize {
			return s.Errorf("variable %d has cardinality %d, more than the largest table size %d", v, c, MaxTableSize)
		}
		rd.card = append(rd.card, int32(c))
		rd.b.AddVar(int(c))
	}
	return nil
}

func (rd *modelReader) scopes() error {
	s := rd.s
	m, err := s.Count(tok.About("the number of factors"), MaxFactors)
	if err != nil {
		return err
	}
	n := len(rd.card)
	rd.start = make([]int, 1, min(m, 1<<16)+1)
	rd.size = make([]int, 0, min(m, 1<<16))
	seen := make([]int32, n) // seen[v] == f+1: v is in the scope of factor f
	for f := range m {
		k, err := s.Count(tok.About("the number of variables in the scope of factor %d", f), MaxVars)
		if err != nil {
			return err
		}
		if k > n {
			return s.Errorf("factor %d has %d variables in its scope, but the model has only %d", f, k, n)
		}
		at := s.Pos()
		size, fits := uint64(1), true
		for p := range k {
			v, ok := s.NextInt()
			if !ok {
				return s.IntErr(tok.About("variable %d in the scope of factor %d", p, f))
			}
			if v < 0 || v >= int64(n) {
				return s.Errorf("variable %d in the scope of factor %d is out of range 0..%d", v, f, n-1)
			}
			if seen[v] == int32(f+1) {
				return s.Errorf("variable %d appears twice in the scope of factor %d", v, f)
			}
			seen[v] = int32(f + 1)
			rd.edges = append(rd.edges, int32(v))
			hi, lo := bits.Mul64(size, uint64(rd.card[v]))
			if hi != 0 || lo > MaxTableSize {
				fits = false
			} else {
				size = lo
			}
		}
		scope := rd.edges[rd.start[f]:]
		if !fits {
			return pos.Errorf(at, "the table of factor %d would have %s entries (%s), more than the limit of %d",
				f, tok.Product(scopeDims(rd.card, scope)), dimString(rd.card, scope), MaxTableSize)
		}
		rd.start = append(rd.start, len(rd.edges))
		rd.size = append(rd.size, int(size))
	}
	return nil
}

func (rd *modelReader) tables() error {
	s := rd.s
	var vals []float64
	var dims []int32
	for f := range rd.size {
		size := rd.size[f]
		cnt, err := s.Int(tok.About("the number of entries in the table of factor %d", f))
		if err != nil {
			return err
		}
		at := s.Pos()
		scope := rd.edges[rd.start[f]:rd.start[f+1]]
		if cnt != int64(size) {
			return s.Errorf("the table of factor %d has %d entries, but its scope (%s) needs %d",
				f, cnt, dimString(rd.card, scope), size)
		}
		vals = vals[:0]
		if cap(vals) < size {
			vals = make([]float64, 0, min(size, 1<<16))
		}
		for k := range size {
			x, ok := s.NextEntry()
			if !ok {
				return s.EntryErr(tok.About("entry %d of the table of factor %d", k, f))
			}
			vals = append(vals, x)
		}
		dims = dims[:0]
		for _, v := range scope {
			dims = append(dims, rd.card[v])
		}
		t, err := rd.b.Table(dims, vals)
		if err == nil {
			_, err = rd.b.AddFactorTable(scope, t)
		}
		if err != nil { // cannot happen: everything was checked above
			return pos.Errorf(at, "factor %d: %v", f, err)
		}
	}
	return nil
}

// dimString formats the cardinalities of a scope as "2×3×2", shortened when
// the scope is long.
func dimString(card []int32, scope []int32) string {
	if len(scope) == 0 {
		return "no variables"
	}
	var b strings.Builder
	for p, v := range scope {
		if p == 8 && len(scope) > 10 {
			fmt.Fprintf(&b, "×…(%d more)", len(scope)-p)
			break
		}
		if p > 0 {
			b.WriteString("×")
		}
		b.WriteString(strconv.Itoa(int(card[v])))
	}
	return b.String()
}

// Write writes m in UAI format. Read gives back an equal model.
func Write(w io.Writer, m *Model) error {
	if m == nil || m.Graph == nil {
		return errors.New("uai: Write: nil model")
	}
	typ := m.Type
	if typ == "" {
		typ = Markov
	}
	if typ != Markov && typ != Bayes {
		return fmt.Errorf("uai: Write: unknown model type %q", typ)
	}
	g := m.Graph
	if err := g.Validate(); err != nil {
		return fmt.Errorf("uai: Write: %w", err)
	}
	o := tok.NewWriter(w)
	o.Str(typ)
	o.NL()
	o.Int(int64(g.NumVars()))
	o.NL()
	for v, c := range g.Card {
		o.Sep(v)
		o.Int(int64(c))
	}
	o.NL()
	o.Int(int64(g.NumFactors()))
	o.NL()
	for f := range g.NumFactors() {
		scope := g.Scope(f)
		o.Int(int64(len(scope)))
		for _, v := range scope {
			o.Byte(' ')
			o.Int(int64(v))
		}
		o.NL()
	}
	for f := range g.NumFactors() {
		t := g.Table(f)
		o.NL()
		o.Int(int64(len(t.Values)))
		o.NL()
		row := 1 // entries per line: one line per setting of all but the last variable
		if len(t.Dims) > 0 {
			row = int(t.Dims[len(t.Dims)-1])
		}
		for k, x := range t.Values {
			if k%row != 0 {
				o.Byte(' ')
			}
			o.Float(x)
			if (k+1)%row == 0 {
				o.NL()
			}
		}
	}
	return o.Flush()
}

// scopeDims returns the cardinalities of a scope's variables.
func scopeDims(card, scope []int32) []int32 {
	dims := make([]int32, len(scope))
	for p, v := range scope {
		dims[p] = card[v]
	}
	return dims
}
