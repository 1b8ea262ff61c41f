//go:build nauty

package orbit

/*
#cgo LDFLAGS: -lnauty
#include <stdlib.h>
#include <string.h>
#include <nauty/nausparse.h>

static int *orbit_gens;
static size_t orbit_gens_len, orbit_gens_cap;

static int *orbit_get_gens(void) { return orbit_gens; }
static size_t orbit_get_len(void) { return orbit_gens_len; }

static void orbit_userauto(int count, int *perm, int *orbits, int numorbits, int stabvertex, int n) {
	if (orbit_gens_len + (size_t)n > orbit_gens_cap) {
		size_t cap = orbit_gens_cap ? 2 * orbit_gens_cap : (size_t)n * 8;
		while (cap < orbit_gens_len + (size_t)n) cap *= 2;
		int *p = realloc(orbit_gens, cap * sizeof(int));
		if (!p) return;
		orbit_gens = p;
		orbit_gens_cap = cap;
	}
	memcpy(orbit_gens + orbit_gens_len, perm, (size_t)n * sizeof(int));
	orbit_gens_len += (size_t)n;
}

// orbit_run calls sparsenauty on the graph (v, d, e) with the coloured
// partition (lab, ptn) and fills orbits; generators go to orbit_gens.
static int orbit_run(int n, size_t *v, int *d, int *e, size_t nde, int *lab, int *ptn, int *orbits,
		double *grpsize1, int *grpsize2, long *nodes) {
	DEFAULTOPTIONS_SPARSEGRAPH(options);
	statsblk stats;
	sparsegraph sg;
	SG_INIT(sg);
	sg.nv = n; sg.nde = nde; sg.v = v; sg.d = d; sg.e = e;
	sg.vlen = n; sg.dlen = n; sg.elen = nde;
	options.defaultptn = FALSE;
	options.userautomproc = orbit_userauto;
	orbit_gens_len = 0;
	int m = SETWORDSNEEDED(n);
	nauty_check(WORDSIZE, m, n, NAUTYVERSIONID);
	sparsenauty(&sg, lab, ptn, orbits, &options, &stats, NULL);
	*grpsize1 = stats.grpsize1;
	*grpsize2 = stats.grpsize2;
	*nodes = (long)stats.numnodes;
	return stats.errstatus;
}
*/
import "C"

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
	"unsafe"
)

// NautyAvailable reports whether this binary was built with -tags nauty.
const NautyAvailable = true

var nautyMu sync.Mutex // nauty's generator hook writes C globals

// nautyAutomorphisms runs nauty's sparsenauty on g: the same orbits and
// group as the pure-Go engine, as an oracle and a fast path. nauty cannot be
// interrupted: the context is checked before and after, and Options.MaxNodes
// does not apply.
func nautyAutomorphisms(ctx context.Context, g *Graph, fixed []int32, opt Options) (*GraphResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("orbit: %w", err)
	}
	start := time.Now()
	n := g.N()
	rank, err := fixedRank(n, fixed)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return &GraphResult{Stats: Stats{Engine: "nauty", GroupSize: 1}}, nil
	}
	nde := len(g.Adj)
	cv := (*[1 << 40]C.size_t)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.size_t(0)))))[:n:n]
	cd := (*[1 << 40]C.int)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.int(0)))))[:n:n]
	ce := (*[1 << 40]C.int)(C.malloc(C.size_t(max(nde, 1)) * C.size_t(unsafe.Sizeof(C.int(0)))))[:nde:nde]
	lab := (*[1 << 40]C.int)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.int(0)))))[:n:n]
	ptn := (*[1 << 40]C.int)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.int(0)))))[:n:n]
	orb := (*[1 << 40]C.int)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(C.int(0)))))[:n:n]
	defer func() {
		for _, p := range []unsafe.Pointer{unsafe.Pointer(&cv[0]), unsafe.Pointer(&cd[0]), unsafe.Pointer(&lab[0]), unsafe.Pointer(&ptn[0]), unsafe.Pointer(&orb[0])} {
			C.free(p)
		}
		if nde > 0 {
			C.free(unsafe.Pointer(&ce[0]))
		}
	}()
	for v := range n {
		cv[v] = C.size_t(g.Start[v])
		cd[v] = C.int(g.Start[v+1] - g.Start[v])
	}
	for i, w := range g.Adj {
		ce[i] = C.int(w)
	}
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(g.Colour[a], g.Colour[b]); c != 0 {
			return c
		}
		return cmp.Compare(rank[a], rank[b])
	})
	for i, v := range order {
		lab[i] = C.int(v)
		ptn[i] = 1
		if i+1 == n || g.Colour[order[i+1]] != g.Colour[v] || rank[order[i+1]] != rank[v] {
			ptn[i] = 0
		}
	}
	nautyMu.Lock()
	var g1 C.double
	var g2 C.int
	var nodes C.long
	status := C.orbit_run(C.int(n), &cv[0], &cd[0], ptrOrNil(ce), C.size_t(nde), &lab[0], &ptn[0], &orb[0], &g1, &g2, &nodes)
	var gens [][]int32
	if status == 0 {
		total := int(C.orbit_get_len())
		if total > 0 {
			buf := unsafe.Slice(C.orbit_get_gens(), total)
			for k := 0; k+n <= total; k += n {
				p := make([]int32, n)
				for i := range p {
					p[i] = int32(buf[k+i])
				}
				gens = append(gens, p)
			}
		}
	}
	nautyMu.Unlock()
	if status != 0 {
		return nil, fmt.Errorf("orbit: nauty failed with status %d", int(status))
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("orbit: %w", err)
	}
	res := &GraphResult{Generators: gens}
	res.Orbit, res.NumOrbits = renumber(unsafe.Slice((*int32)(unsafe.Pointer(&orb[0])), n))
	res.Stats = Stats{Engine: "nauty", Nodes: int64(nodes), Generators: len(gens),
		GroupSize: float64(g1) * math.Pow(10, float64(g2)), Seconds: time.Since(start).Seconds()}
	return res, nil
}

func ptrOrNil(s []C.int) *C.int {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}
