package ground

import (
	"github.com/lifted-dev/lifted/mln"
)

// Each calls fn for every ground atom that matches the query atoms, in the
// order Grounding.Queries lists them (the query atoms in turn, each in
// constant order, without repeats), whether or not the evidence fixes it,
// until fn returns false. Constants are indices into db's domains (nil: the
// MLN's). It needs no grounding: the first-order construction of package
// lift answers query atoms with it.
func (q *Query) Each(db *mln.DB, fn func(pred int, args []int) bool) {
	if q.Len() == 0 {
		return
	}
	if db == nil {
		db = mln.NewDB(q.m)
	}
	perPred := map[int]int{}
	for _, a := range q.atoms {
		perPred[q.m.Pred(a.Pred).Index]++
	}
	seen := map[string]bool{}
	var key []byte
	for _, a := range q.atoms {
		d := q.m.Pred(a.Pred)
		want := make([]int, len(a.Args))
		missing := false
		for i, t := range a.Args {
			want[i] = -1
			if !t.IsVar {
				if want[i] = db.ConstIndex(t.Type, t.Name); want[i] < 0 {
					missing = true
				}
			}
		}
		if missing {
			continue
		}
		dims := make([]int, len(d.TypeIdx))
		for p, ti := range d.TypeIdx {
			dims[p] = len(db.Domain(q.m.Types[ti].Name))
			if dims[p] == 0 {
				missing = true
			}
		}
		if missing {
			continue
		}
		dedupe := perPred[d.Index] > 1
		args := make([]int, len(dims))
		for {
			if matches(a, want, args) {
				ok := true
				if dedupe {
					key = append(key[:0], byte(d.Index), byte(d.Index>>8), byte(d.Index>>16))
					for _, x := range args {
						key = append(key, byte(x), byte(x>>8), byte(x>>16), byte(x>>24))
					}
					if seen[string(key)] {
						ok = false
					} else {
						seen[string(key)] = true
					}
				}
				if ok && !fn(d.Index, args) {
					return
				}
			}
			p := len(args) - 1
			for ; p >= 0; p-- {
				args[p]++
				if args[p] < dims[p] {
					break
				}
				args[p] = 0
			}
			if p < 0 {
				break
			}
		}
	}
}

// AtomName prints the ground atom pred(args...) of m as Grounding.Name does
// ("Friends(Anna,Bob)"), args being indices into db's domains (nil: the
// MLN's).
func AtomName(m *mln.MLN, db *mln.DB, pred int, args []int) string {
	d := m.Preds[pred]
	if len(args) == 0 {
		return d.Name
	}
	return string(AppendAtomName(nil, m, db, pred, args))
}

// AppendAtomName appends AtomName(m, db, pred, args) to buf; writers of
// many atom names reuse one buffer with it.
func AppendAtomName(buf []byte, m *mln.MLN, db *mln.DB, pred int, args []int) []byte {
	d := m.Preds[pred]
	buf = append(buf, d.Name...)
	if len(args) == 0 {
		return buf
	}
	buf = append(buf, '(')
	for p, ti := range d.TypeIdx {
		if p > 0 {
			buf = append(buf, ',')
		}
		if db != nil {
			buf = append(buf, db.Domain(m.Types[ti].Name)[args[p]]...)
		} else {
			buf = append(buf, m.Types[ti].Constants[args[p]]...)
		}
	}
	return append(buf, ')')
}
