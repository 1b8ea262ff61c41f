package fg

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
)

// Builder assembles a Graph. Add variables and factors, then call Build.
// Identical tables (same dimensions, bitwise-equal entries) get one table id.
type Builder struct {
	card        []int32
	factorStart []int64
	edgeVar     []int32
	factorTable []int32
	tables      []Table
	index       map[uint64][]int32 // table hash → table ids with that hash
	seed        maphash.Seed
	buf         []byte
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{factorStart: []int64{0}, index: map[uint64][]int32{}, seed: maphash.MakeSeed()}
}

// AddVar adds a variable with card states and returns its id.
func (b *Builder) AddVar(card int) int32 {
	b.card = append(b.card, int32(card))
	return int32(len(b.card) - 1)
}

// AddVars adds n variables with card states each and returns the first id.
func (b *Builder) AddVars(n, card int) int32 {
	first := int32(len(b.card))
	for i := 0; i < n; i++ {
		b.card = append(b.card, int32(card))
	}
	return first
}

// Grow makes room for nFactors more factors with nEdges edges in all, so
// that adding them does not reallocate (a caller that knows the size saves
// the copies of repeated growth).
func (b *Builder) Grow(nFactors, nEdges int) {
	b.edgeVar = slices.Grow(b.edgeVar, nEdges)
	b.factorStart = slices.Grow(b.factorStart, nFactors)
	b.factorTable = slices.Grow(b.factorTable, nFactors)
}

// NumVars returns the number of variables added so far.
func (b *Builder) NumVars() int { return len(b.card) }

// Card returns the cardinality of variable v added so far.
func (b *Builder) Card(v int32) int32 { return b.card[v] }

// NumFactors returns the number of factors added so far.
func (b *Builder) NumFactors() int { return len(b.factorTable) }

// Table interns a table and returns its id; an identical table already
// interned returns the same id. The values slice is copied on first sight.
// It returns an error for a size mismatch or a negative, NaN or infinite
// entry.
func (b *Builder) Table(dims []int32, values []float64) (int32, error) {
	t := Table{Dims: dims, Values: values}
	if err := t.check(); err != nil {
		return -1, err
	}
	h := b.hash(dims, values)
	for _, id := range b.index[h] {
		o := &b.tables[id]
		if slices.Equal(o.Dims, dims) && equalBits(o.Values, values) {
			return id, nil
		}
	}
	id := int32(len(b.tables))
	b.tables = append(b.tables, Table{Dims: slices.Clone(dims), Values: slices.Clone(values)})
	b.index[h] = append(b.index[h], id)
	return id, nil
}

func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

func (b *Builder) hash(dims []int32, values []float64) uint64 {
	buf := b.buf[:0]
	for _, d := range dims {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(d))
	}
	buf = append(buf, 0xff)
	for _, v := range values {
		if v == 0 {
			v = 0 // fold -0 into +0
		}
		buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(v))
	}
	b.buf = buf
	return maphash.Bytes(b.seed, buf)
}

// AddFactor adds a factor over scope with the given table values (scope
// order, last variable fastest) and returns its id. Dimensions are taken from
// the variables' cardinalities.
func (b *Builder) AddFactor(scope []int32, values []float64) (int32, error) {
	dims := make([]int32, len(scope))
	for p, v := range scope {
		if v < 0 || int(v) >= len(b.card) {
			return -1, fmt.Errorf("variable %d out of range 0..%d", v, len(b.card)-1)
		}
		dims[p] = b.card[v]
	}
	t, err := b.Table(dims, values)
	if err != nil {
		return -1, err
	}
	return b.AddFactorTable(scope, t)
}

// ErrDuplicateVar reports a scope that names one variable twice.
var ErrDuplicateVar = errors.New("variable appears twice in one factor")

// AddFactorTable adds a factor over scope with an interned table id.
func (b *Builder) AddFactorTable(scope []int32, table int32) (int32, error) {
	if table < 0 || int(table) >= len(b.tables) {
		return -1, fmt.Errorf("table id %d out of range", table)
	}
	dims := b.tables[table].Dims
	if len(dims) != len(scope) {
		return -1, fmt.Errorf("scope has %d variables, table has %d dimensions", len(scope), len(dims))
	}
	for p, v := range scope {
		if v < 0 || int(v) >= len(b.card) {
			return -1, fmt.Errorf("variable %d out of range 0..%d", v, len(b.card)-1)
		}
		if b.card[v] != dims[p] {
			return -1, fmt.Errorf("variable %d has %d states, table dimension %d is %d", v, b.card[v], p, dims[p])
		}
		for _, w := range scope[:p] {
			if w == v {
				return -1, fmt.Errorf("%w: %d", ErrDuplicateVar, v)
			}
		}
	}
	b.edgeVar = append(b.edgeVar, scope...)
	b.factorStart = append(b.factorStart, int64(len(b.edgeVar)))
	b.factorTable = append(b.factorTable, table)
	return int32(len(b.factorTable) - 1), nil
}

// Build finishes the graph; the builder must not be used afterwards.
func (b *Builder) Build() *Graph {
	g, _ := b.BuildContext(context.Background())
	return g
}

// BuildContext is Build under a context: indexing the edges of millions
// of factors takes a second or more; it returns ctx's error (and no graph)
// when ctx has ended before or during it.
func (b *Builder) BuildContext(ctx context.Context) (*Graph, error) {
	g := &Graph{
		Card:        b.card,
		FactorStart: b.factorStart,
		EdgeVar:     b.edgeVar,
		FactorTable: b.factorTable,
		Tables:      b.tables,
	}
	if g.Card == nil {
		g.Card = []int32{}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.buildVarIndex()
	*b = Builder{}
	if err := ctx.Err(); err != nil {
		return nil, err // the index took long: the caller stops sooner than with the graph
	}
	return g, nil
}

// buildVarIndex fills VarStart/VarEdges by counting sort, so each variable's
// edges come in increasing factor order.
func (g *Graph) buildVarIndex() {
	n := len(g.Card)
	g.VarStart = make([]int64, n+1)
	for _, v := range g.EdgeVar {
		g.VarStart[v+1]++
	}
	for v := 0; v < n; v++ {
		g.VarStart[v+1] += g.VarStart[v]
	}
	g.VarEdges = make([]int64, len(g.EdgeVar))
	next := slices.Clone(g.VarStart[:n])
	for e, v := range g.EdgeVar {
		g.VarEdges[next[v]] = int64(e)
		next[v]++
	}
}
