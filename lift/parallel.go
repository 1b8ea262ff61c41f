package lift

import (
	"context"
	"fmt"
	"hash/maphash"
	"runtime"
	"sync"

	"github.com/lifted-dev/lifted/fg"
)

// Parallel is colour passing as map/reduce on all cores of one machine: the
// graph is split once into Workers parts (NewPartition); every round, one
// goroutine per part signs the part's nodes (Part.SignFactors, then
// Part.SignVars: the map), the signatures are shuffled into Workers buckets by
// hash, and one goroutine per bucket groups equal signatures exactly (by
// their bytes) and names each group by its smallest member (NewColour: the
// reduce). Rounds are the paper's synchronous rounds (factors, then
// variables), so the partition after every round, the number of rounds and
// the final class ids (renumbered by first appearance) are those of
// ColourPassing; MaxIter and Progress mean the same.
//
// Unlike ColourPassing, a round re-signs every node, not only those next to
// a change: it does more work per round and spreads it over the cores.
type Parallel struct {
	// Workers is the number of parts and goroutines (≤ 0: GOMAXPROCS).
	Workers int
}

// Refine implements Refiner.
func (r Parallel) Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt Options) (*Colouring, error) {
	w := r.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	keys, sorted, vc0, fc0 := SlotKeys(g, ev, opt)
	vc, fc := IdentityColours(vc0), IdentityColours(fc0)
	nvc, nfc := countClasses(vc0), countClasses(fc0)
	parts := NewPartition(g, w).Parts(g, keys, sorted)
	red := newShuffle(len(parts), w)
	rounds := 0
	for opt.MaxIter == 0 || rounds < opt.MaxIter {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCancelled, err)
		}
		rounds++
		vcur, fcur := vc, fc
		newFC, nf := red.round(parts, len(fc), func(s *Signer, pt *Part, emit func([]byte, int32)) {
			s.SignFactors(pt, func(f int32) int32 { return fcur[f] }, func(v int32) int32 { return vcur[v] }, emit)
		})
		fc = newFC
		fnew := fc
		newVC, nv := red.round(parts, len(vc), func(s *Signer, pt *Part, emit func([]byte, int32)) {
			s.SignVars(pt, func(v int32) int32 { return vcur[v] }, func(f int32) int32 { return fnew[f] }, emit)
		})
		vc = newVC
		if opt.Progress != nil {
			opt.Progress(rounds, nv, nf)
		}
		if nv == nvc && nf == nfc {
			break
		}
		nvc, nfc = nv, nf
	}
	return FinishColouring(vc, fc, keys, rounds), nil
}

func countClasses(c []int32) int {
	n := int32(-1)
	for _, x := range c {
		n = max(n, x)
	}
	return int(n) + 1
}

// shuffle runs one map/shuffle/reduce step on all cores, reusing its
// buffers across rounds.
type shuffle struct {
	seed    maphash.Seed
	buckets int
	mapOut  []mapOut
	groups  []map[string]int32
	signers []Signer
}

// mapOut is what one map task emitted: signatures in an arena, node ids,
// and per bucket the indices of its entries.
type mapOut struct {
	arena    []byte
	end      []int
	id       []int32
	byBucket [][]int32
}

func newShuffle(parts, buckets int) *shuffle {
	s := &shuffle{seed: maphash.MakeSeed(), buckets: buckets, mapOut: make([]mapOut, parts),
		groups: make([]map[string]int32, buckets), signers: make([]Signer, parts)}
	for i := range s.mapOut {
		s.mapOut[i].byBucket = make([][]int32, buckets)
	}
	for b := range s.groups {
		s.groups[b] = map[string]int32{}
	}
	return s
}

// round maps every part with sign, groups the signatures and returns every
// node's new colour (the smallest id with its signature) and the number of
// groups.
func (s *shuffle) round(parts []*Part, n int, sign func(*Signer, *Part, func([]byte, int32))) ([]int32, int) {
	var wg sync.WaitGroup
	for q, pt := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := &s.mapOut[q]
			m.arena, m.end, m.id = m.arena[:0], m.end[:0], m.id[:0]
			for b := range m.byBucket {
				m.byBucket[b] = m.byBucket[b][:0]
			}
			sign(&s.signers[q], pt, func(sig []byte, id int32) {
				b := int(maphash.Bytes(s.seed, sig) % uint64(s.buckets))
				m.byBucket[b] = append(m.byBucket[b], int32(len(m.id)))
				m.arena = append(m.arena, sig...)
				m.end = append(m.end, len(m.arena))
				m.id = append(m.id, id)
			})
		}()
	}
	wg.Wait()
	out := make([]int32, n)
	counts := make([]int, s.buckets)
	for b := range s.buckets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			grp := s.groups[b]
			clear(grp)
			// Reduce: the smallest id per signature, then every member's
			// new colour.
			for q := range s.mapOut {
				m := &s.mapOut[q]
				for _, k := range m.byBucket[b] {
					sig := m.entry(k)
					id := m.id[k]
					if c, ok := grp[string(sig)]; !ok || id < c {
						grp[string(sig)] = id
					}
				}
			}
			for q := range s.mapOut {
				m := &s.mapOut[q]
				for _, k := range m.byBucket[b] {
					out[m.id[k]] = grp[string(m.entry(k))]
				}
			}
			counts[b] = len(grp)
		}()
	}
	wg.Wait()
	total := 0
	for _, c := range counts {
		total += c
	}
	return out, total
}

func (m *mapOut) entry(k int32) []byte {
	lo := 0
	if k > 0 {
		lo = m.end[k-1]
	}
	return m.arena[lo:m.end[k]]
}
