package ground

import (
	"encoding/binary"
	"math"
	"slices"
)

// EvidenceClusters clusters the constants of every type by their evidence
// (Venugopal and Gogate, "Evidence-based clustering for scalable
// inference in Markov logic", ECML 2014) and returns, per variable of
// g.Graph, the class of its atom under the clustering: atoms of one
// predicate whose arguments fall in the same clusters share a class
// (auxiliary variables get -1). A constant's signature counts, for every
// (predicate, argument position, truth value), the evidence atoms that
// have it there; constants whose counts fall in the same buckets
// ⌊ln(1+count)/ln(1+coarse)⌋ share a cluster (coarse 0: equal counts;
// +Inf: the same features present), and the constants the .mln files
// name stay alone (formulas treat them apart). Give the classes to
// lift.Partitioned: lifted BP on the result is BP on the reduced domain,
// one constant per cluster, each clusterfactor counted by its ground
// factors' mean.
func (g *Grounding) EvidenceClusters(coarse float64) []int32 {
	m, db := g.MLN, g.DB
	nt := len(m.Types)
	// Per type: constant name → feature counts (sparse, as a map).
	type feat struct{ pred, pos, truth int }
	counts := make([]map[string]map[feat]int, nt)
	for t := range counts {
		counts[t] = map[string]map[feat]int{}
	}
	for _, a := range db.Atoms {
		d := m.Preds[a.Pred]
		for p, c := range a.Args {
			t := d.TypeIdx[p]
			name := db.Domain(m.Types[t].Name)[c]
			f := counts[t][name]
			if f == nil {
				f = map[feat]int{}
				counts[t][name] = f
			}
			f[feat{a.Pred, p, int(a.Truth)}]++
		}
	}
	bucket := func(n int) int {
		switch {
		case coarse <= 0:
			return n
		case math.IsInf(coarse, 1):
			return min(n, 1)
		}
		return int(math.Floor(math.Log1p(float64(n)) / math.Log1p(coarse)))
	}
	// Per type: constant index (in g's domain) → cluster id.
	clusters := make([][]int32, nt)
	var key []byte
	for t := range nt {
		dom := g.Domain(t)
		named := map[string]bool{}
		for _, c := range m.Types[t].Constants {
			named[c] = true
		}
		ids := map[string]int32{}
		clusters[t] = make([]int32, len(dom))
		for i, name := range dom {
			key = key[:0]
			if named[name] {
				key = append(append(key, 'n'), name...)
			} else {
				fs := counts[t][name]
				ks := make([]feat, 0, len(fs))
				for f := range fs {
					ks = append(ks, f)
				}
				slices.SortFunc(ks, func(a, b feat) int {
					if a.pred != b.pred {
						return a.pred - b.pred
					}
					if a.pos != b.pos {
						return a.pos - b.pos
					}
					return a.truth - b.truth
				})
				key = append(key, 'e')
				for _, f := range ks {
					for _, x := range []int{f.pred, f.pos, f.truth, bucket(fs[f])} {
						key = binary.AppendUvarint(key, uint64(x))
					}
				}
			}
			id, ok := ids[string(key)]
			if !ok {
				id = int32(len(ids))
				ids[string(key)] = id
			}
			clusters[t][i] = id
		}
	}
	out := make([]int32, g.Graph.NumVars())
	ids := map[string]int32{}
	for v := range out {
		pred, args, ok := g.Atom(int32(v))
		if !ok {
			out[v] = -1
			continue
		}
		key = binary.AppendUvarint(key[:0], uint64(pred))
		for p, c := range args {
			key = binary.AppendUvarint(key, uint64(clusters[m.Preds[pred].TypeIdx[p]][c]))
		}
		id, ok := ids[string(key)]
		if !ok {
			id = int32(len(ids))
			ids[string(key)] = id
		}
		out[v] = id
	}
	return out
}
