package libdai

import (
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/internal/tok"
	"github.com/lifted-dev/lifted/pos"
)

// Limits on what Read accepts. Inputs beyond them are refused before
// anything of that size is allocated. Tables are sparse in the file but
// dense in memory, so the table limits bound memory, not file size.
const (
	// MaxFactors is the largest number of factors in a file.
	MaxFactors = 1 << 28
	// MaxVars is the largest number of variables in one factor.
	MaxVars = 1 << 28
	// MaxTableSize is the largest number of entries in one table.
	MaxTableSize = 1 << 28
	// MaxTotalSize is the largest number of table entries in one file.
	MaxTotalSize = 1 << 30
)

// tableLimit and totalLimit are MaxTableSize and MaxTotalSize; the fuzz
// test lowers them so that inputs a few bytes long cannot ask for gigabytes.
var (
	tableLimit = MaxTableSize
	totalLimit = MaxTotalSize
)

// Model is a factor graph read from a libDAI file.
type Model struct {
	// Graph has variables 0..n-1 in increasing label order and the
	// factors in file order, each with its scope in file order.
	Graph *fg.Graph
	// Labels[v] is the file's label of variable v. Write uses v itself
	// when Labels is nil.
	Labels []int64
}

// Read reads a factor graph in libDAI format. name is the file name used in
// error messages, which are *pos.Error values. Read is stricter than libDAI
// in two ways: an entry index listed twice in one factor is an error (libDAI
// keeps the last), and so is anything but white space and comments after
// the last factor.
func Read(r io.Reader, name string) (*Model, error) {
	rd := &reader{s: tok.NewScanner(r, name), b: fg.NewBuilder(), vars: map[int64]varInfo{}}
	return rd.read()
}

// varInfo is what the reader knows about one label.
type varInfo struct {
	card   int32
	factor int32        // 1 + the last factor that has this label
	id     int32        // variable id, set once all labels are known
	at     pos.Position // where card was first given
}

// reader holds the state of one Read.
type reader struct {
	s    *tok.Scanner
	b    *fg.Builder
	vars map[int64]varInfo
	// The labels of factor f are labels[start[f]:start[f+1]]; its
	// interned table is table[f].
	labels []int64
	start  []int
	table  []int32
	total  int // table entries so far

	// Scratch space reused across factors.
	dims   []int32
	stride []int // fg stride of each scope position
	vals   []float64
	seen   []uint64 // bit set of table positions already given
}

func (rd *reader) read() (*Model, error) {
	s := rd.s
	m, err := s.Count(tok.About("the number of factors"), MaxFactors)
	if err != nil {
		return nil, err
	}
	rd.start = make([]int, 1, min(m, 1<<16)+1)
	for f := range m {
		if err := rd.factor(f); err != nil {
			return nil, err
		}
	}
	if err := s.End("the last factor"); err != nil {
		return nil, err
	}
	return rd.build()
}

// factor reads the block of factor f.
func (rd *reader) factor(f int) error {
	s := rd.s
	k, err := s.Count(tok.About("the number of variables of factor %d", f), MaxVars)
	if err != nil {
		return err
	}
	at := s.Pos()
	if err := rd.scopeLabels(f, k); err != nil {
		return err
	}
	labels := rd.labels[rd.start[f]:]
	size, err := rd.cards(f, labels)
	if err != nil {
		return err
	}
	if size < 0 {
		return pos.Errorf(at, "the table of factor %d would have %s entries (%s), more than the limit of %d",
			f, tok.Product(rd.dims), dimString(rd.dims), tableLimit)
	}
	if rd.total += size; rd.total > totalLimit {
		return pos.Errorf(at, "the tables of factors 0..%d have %d entries in all, more than the limit of %d",
			f, rd.total, totalLimit)
	}
	if err := rd.entries(f, size); err != nil {
		return err
	}
	t, err := rd.b.Table(rd.dims, rd.vals)
	if err != nil { // cannot happen: entries were checked as they were read
		return pos.Errorf(at, "factor %d: %v", f, err)
	}
	rd.table = append(rd.table, t)
	rd.start = append(rd.start, len(rd.labels))
	return nil
}

// scopeLabels reads the k labels of factor f.
func (rd *reader) scopeLabels(f, k int) error {
	s := rd.s
	for p := range k {
		l, ok := s.NextInt()
		if !ok {
			return s.IntErr(tok.About("label %d of factor %d", p, f))
		}
		if l < 0 {
			return s.Errorf("variable label %d of factor %d is negative; labels must be non-negative integers", l, f)
		}
		v := rd.vars[l]
		if v.factor == int32(f+1) {
			return s.Errorf("variable %d appears twice in factor %d", l, f)
		}
		v.factor = int32(f + 1)
		rd.vars[l] = v
		rd.labels = append(rd.labels, l)
	}
	return nil
}

// cards reads the cardinalities of the variables of factor f into rd.dims
// and returns the table size, or -1 if it is over the limit.
func (rd *reader) cards(f int, labels []int64) (int, error) {
	s := rd.s
	rd.dims = rd.dims[:0]
	size, fits := uint64(1), true
	for p, l := range labels {
		c, ok := s.NextInt()
		if !ok {
			return 0, s.IntErr(tok.About("the cardinality of variable %d (position %d of factor %d)", int(l), p, f))
		}
		if c < 1 {
			return 0, s.Errorf("variable %d has cardinality %d in factor %d; it must be at least 1", l, c, f)
		}
		if c > int64(tableLimit) {
			return 0, s.Errorf("variable %d has cardinality %d, more than the largest table size %d", l, c, tableLimit)
		}
		v := rd.vars[l]
		switch {
		case v.card == 0:
			v.card, v.at = int32(c), s.Pos()
			rd.vars[l] = v
		case int64(v.card) != c:
			return 0, s.Errorf("variable %d has cardinality %d in factor %d, but %d at %v", l, c, f, v.card, v.at)
		}
		rd.dims = append(rd.dims, int32(c))
		hi, lo := bits.Mul64(size, uint64(c))
		if hi != 0 || lo > uint64(tableLimit) {
			fits = false
		} else {
			size = lo
		}
	}
	if !fits {
		return -1, nil
	}
	return int(size), nil
}

// entries reads the listed entries of factor f, whose table has size
// entries, into rd.vals in fg order.
func (rd *reader) entries(f, size int) error {
	s := rd.s
	n, err := s.Count(tok.About("the number of nonzero entries of factor %d", f), math.MaxInt64)
	if err != nil {
		return err
	}
	if n > size {
		return s.Errorf("factor %d lists %d entries, but its table has only %d", f, n, size)
	}
	rd.prepare(size)
	dims, stride := rd.dims, rd.stride
	for e := range n {
		idx, ok := s.NextInt()
		if !ok {
			return s.IntErr(tok.About("the index of entry %d of factor %d", e, f))
		}
		if idx < 0 || idx >= int64(size) {
			return s.Errorf("index %d of factor %d is out of range 0..%d", idx, f, size-1)
		}
		// Transpose: the index counts with the first variable fastest.
		j, rest := 0, int(idx)
		for p, d := range dims {
			j += rest % int(d) * stride[p]
			rest /= int(d)
		}
		if rd.seen[j/64]&(1<<(j%64)) != 0 {
			return s.Errorf("index %d of factor %d is listed twice", idx, f)
		}
		rd.seen[j/64] |= 1 << (j % 64)
		x, ok := s.NextEntry()
		if !ok {
			return s.EntryErr(tok.About("the value of entry %d of factor %d", int(idx), f))
		}
		rd.vals[j] = x
	}
	return nil
}

// prepare sets up zeroed scratch space for a table of size entries with
// dimensions rd.dims.
func (rd *reader) prepare(size int) {
	if cap(rd.vals) < size {
		rd.vals = make([]float64, size)
	}
	rd.vals = rd.vals[:size]
	clear(rd.vals)
	words := (size + 63) / 64
	if cap(rd.seen) < words {
		rd.seen = make([]uint64, words)
	}
	rd.seen = rd.seen[:words]
	clear(rd.seen)
	rd.stride = fgStrides(rd.stride, rd.dims)
}

// fgStrides returns the stride of each scope position in fg order (last
// position fastest), reusing buf.
func fgStrides(buf []int, dims []int32) []int {
	buf = slices.Grow(buf[:0], len(dims))[:len(dims)]
	st := 1
	for p := len(dims) - 1; p >= 0; p-- {
		buf[p] = st
		st *= int(dims[p])
	}
	return buf
}

// build numbers the variables by label and assembles the graph.
func (rd *reader) build() (*Model, error) {
	labels := make([]int64, 0, len(rd.vars))
	for l := range rd.vars {
		labels = append(labels, l)
	}
	slices.Sort(labels)
	for id, l := range labels {
		v := rd.vars[l]
		v.id = int32(id)
		rd.vars[l] = v
		rd.b.AddVar(int(v.card))
	}
	var scope []int32
	for f, t := range rd.table {
		scope = scope[:0]
		for _, l := range rd.labels[rd.start[f]:rd.start[f+1]] {
			scope = append(scope, rd.vars[l].id)
		}
		if _, err := rd.b.AddFactorTable(scope, t); err != nil { // cannot happen
			return nil, pos.Errorf(pos.Position{File: rd.s.File()}, "factor %d: %v", f, err)
		}
	}
	return &Model{Graph: rd.b.Build(), Labels: labels}, nil
}

// dimString formats dimensions as "2×3×2", shortened when there are many.
func dimString(dims []int32) string {
	if len(dims) == 0 {
		return "no variables"
	}
	var b strings.Builder
	for p, d := range dims {
		if p == 8 && len(dims) > 10 {
			fmt.Fprintf(&b, "×…(%d more)", len(dims)-p)
			break
		}
		if p > 0 {
			b.WriteString("×")
		}
		b.WriteString(strconv.Itoa(int(d)))
	}
	return b.String()
}

// Write writes m in libDAI format, listing the nonzero entries of each
// table in libDAI order. Read gives back an equal model when the labels
// increase with the variable ids, as they do in a model Read returned;
// otherwise the variables come back renumbered in label order.
//
// The format cannot name a variable that is in no factor, so Write gives
// each such variable a factor of ones of its own, after the model's factors.
// That keeps the variable and leaves the distribution and Z unchanged.
func Write(w io.Writer, m *Model) error {
	if m == nil || m.Graph == nil {
		return errors.New("libdai: Write: nil model")
	}
	g := m.Graph
	if err := g.Validate(); err != nil {
		return fmt.Errorf("libdai: Write: %w", err)
	}
	labels, err := checkLabels(m.Labels, g.NumVars())
	if err != nil {
		return err
	}
	var isolated []int
	for v := range g.NumVars() {
		if g.Degree(v) == 0 {
			isolated = append(isolated, v)
		}
	}
	o := tok.NewWriter(w)
	o.Int(int64(g.NumFactors() + len(isolated)))
	o.NL()
	var x []int32
	var stride []int
	for f := range g.NumFactors() {
		scope, t := g.Scope(f), g.Table(f)
		o.NL()
		writeScope(o, scope, labels, g.Card)
		stride = fgStrides(stride, t.Dims)
		x = writeEntries(o, t, stride, x)
	}
	for _, v := range isolated {
		o.NL()
		writeScope(o, []int32{int32(v)}, labels, g.Card)
		o.Int(int64(g.Card[v]))
		o.NL()
		for k := range g.Card[v] {
			o.Int(int64(k))
			o.Str(" 1\n")
		}
	}
	return o.Flush()
}

// checkLabels returns the labels to write: labels itself, or 0..n-1 when it
// is nil. They must be non-negative and distinct.
func checkLabels(labels []int64, n int) ([]int64, error) {
	if labels == nil {
		labels = make([]int64, n)
		for v := range labels {
			labels[v] = int64(v)
		}
		return labels, nil
	}
	if len(labels) != n {
		return nil, fmt.Errorf("libdai: Write: %d labels for %d variables", len(labels), n)
	}
	sorted := slices.Clone(labels)
	slices.Sort(sorted)
	for i, l := range sorted {
		if l < 0 {
			return nil, fmt.Errorf("libdai: Write: negative label %d", l)
		}
		if i > 0 && l == sorted[i-1] {
			return nil, fmt.Errorf("libdai: Write: label %d used twice", l)
		}
	}
	return labels, nil
}

// writeScope writes the variable count, labels and cardinalities of a
// factor block.
func writeScope(o *tok.Writer, scope []int32, labels []int64, card []int32) {
	o.Int(int64(len(scope)))
	o.NL()
	for p, v := range scope {
		o.Sep(p)
		o.Int(labels[v])
	}
	o.NL()
	for p, v := range scope {
		o.Sep(p)
		o.Int(int64(card[v]))
	}
	o.NL()
}

// writeEntries writes the count and the nonzero entries of t in libDAI
// order (first variable fastest). stride holds t's fg strides; x is
// scratch space, returned for reuse.
func writeEntries(o *tok.Writer, t *fg.Table, stride []int, x []int32) []int32 {
	nonzero := 0
	for _, v := range t.Values {
		if math.Float64bits(v) != 0 { // -0 is written too, so it reads back as -0
			nonzero++
		}
	}
	o.Int(int64(nonzero))
	o.NL()
	x = slices.Grow(x[:0], len(t.Dims))[:len(t.Dims)]
	clear(x)
	j := 0 // fg index of the libDAI index i
	for i := range t.Values {
		if v := t.Values[j]; math.Float64bits(v) != 0 {
			o.Int(int64(i))
			o.Byte(' ')
			o.Float(v)
			o.NL()
		}
		for p, d := range t.Dims { // increment, first position fastest
			x[p]++
			j += stride[p]
			if x[p] < d {
				break
			}
			j -= int(d) * stride[p]
			x[p] = 0
		}
	}
	return x
}
