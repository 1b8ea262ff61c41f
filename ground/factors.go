package ground

import (
	"context"
	"encoding/binary"
	"math"
	"slices"

	"github.com/lifted-dev/lifted/fg"
)

// factors collects the factors of a grounding before the graph is built, so
// that ground formulas over the same set of unknown atoms can be combined
// into one factor (the product of their tables, aligned to the first one's
// variable order), as Alchemy combines identical ground clauses. The
// distribution is unchanged; BP then sees one factor where it would see
// parallel ones.
type factors struct {
	b      *fg.Builder
	merge  bool
	start  []int64
	vars   []int32
	table  []int32
	index  map[string]int32
	key    []byte
	tdims  [][]int32   // per table id
	tvals  [][]float64 // per table id
	merged int64
	// logOffset accumulates the scale taken out of merged tables.
	logOffset float64
}

func newFactors(b *fg.Builder, merge bool) *factors {
	fs := &factors{b: b, merge: merge, start: []int64{0}}
	if merge {
		fs.index = map[string]int32{}
	}
	return fs
}

// tableID interns a table and keeps its entries.
func (fs *factors) tableID(dims []int32, vals []float64) (int32, error) {
	id, err := fs.b.Table(dims, vals)
	if err != nil {
		return -1, err
	}
	if int(id) == len(fs.tvals) {
		fs.tdims = append(fs.tdims, slices.Clone(dims))
		fs.tvals = append(fs.tvals, slices.Clone(vals))
	}
	return id, nil
}

// add appends a factor over scope; mergeable factors over a scope set seen
// before are multiplied into the earlier factor.
func (fs *factors) add(scope []int32, table int32, mergeable bool) error {
	if mergeable && fs.merge {
		fs.key = sortedKey(fs.key[:0], scope)
		if e, ok := fs.index[string(fs.key)]; ok {
			done, err := fs.combine(e, scope, table)
			if err != nil || done {
				return err
			}
		} else {
			fs.index[string(fs.key)] = int32(len(fs.table))
		}
	}
	fs.vars = appendDoubling(fs.vars, scope...)
	fs.start = appendDoubling(fs.start, int64(len(fs.vars)))
	fs.table = appendDoubling(fs.table, table)
	return nil
}

// appendDoubling appends like append but doubles the capacity when it runs
// out (append grows large slices by a quarter, which copies a
// million-factor grounding's arrays many times over).
func appendDoubling[T any](s []T, x ...T) []T {
	if len(s)+len(x) > cap(s) {
		s = slices.Grow(s, max(len(x), cap(s)))
	}
	return append(s, x...)
}

func sortedKey(buf []byte, scope []int32) []byte {
	var tmp [16]int32
	s := append(tmp[:0], scope...)
	slices.Sort(s)
	for _, v := range s {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(v))
	}
	return buf
}

// combine multiplies the table of (scope, table) into factor e, whose scope
// is a permutation of scope. It reports false (and changes nothing) when
// the product would underflow an entry to zero.
func (fs *factors) combine(e int32, scope []int32, table int32) (bool, error) {
	es := fs.vars[fs.start[e]:fs.start[e+1]]
	a, b := fs.tvals[fs.table[e]], fs.tvals[table]
	dims := fs.tdims[fs.table[e]]
	bdims := fs.tdims[table]
	k := len(es)
	// stride in b of each position of e
	bstride := make([]int, k)
	s := 1
	for q := k - 1; q >= 0; q-- {
		for p, v := range es {
			if v == scope[q] {
				bstride[p] = s
			}
		}
		s *= int(bdims[q])
	}
	prod := make([]float64, len(a))
	idx := make([]int, k)
	mx := 0.0
	for i := range a {
		j := 0
		for p := range idx {
			j += idx[p] * bstride[p]
		}
		prod[i] = a[i] * b[j]
		if prod[i] == 0 && a[i] != 0 && b[j] != 0 {
			return false, nil
		}
		mx = math.Max(mx, prod[i])
		for p := k - 1; p >= 0; p-- {
			idx[p]++
			if idx[p] < int(dims[p]) {
				break
			}
			idx[p] = 0
		}
	}
	if mx == 0 {
		mx = 1 // an all-zero product: contradictory hard formulas; keep the zeros
	}
	for i := range prod {
		prod[i] /= mx
	}
	id, err := fs.tableID(dims, prod)
	if err != nil {
		return false, err
	}
	fs.table[e] = id
	fs.logOffset += math.Log(mx)
	fs.merged++
	return true, nil
}

// build adds the collected factors to the builder, polling ctx every
// 2^16 factors (millions take seconds).
func (fs *factors) build(ctx context.Context) error {
	fs.b.Grow(len(fs.table), len(fs.vars))
	for f := range fs.table {
		if f&0xffff == 0xffff {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if _, err := fs.b.AddFactorTable(fs.vars[fs.start[f]:fs.start[f+1]], fs.table[f]); err != nil {
			return err
		}
	}
	fs.index = nil
	return nil
}
