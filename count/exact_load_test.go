package count

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/cnf"
)

// TestLoadConditioned checks loadCounter's restricted load against the
// formula Condition builds: on random formulas (with repeated clauses,
// tautologies and clauses a binary one subsumes) and random partial
// assignments, loading c under the assignment, fresh or over the arrays
// of a counter that loaded c before (presolve's reload), must give the
// counter newCounter builds from Condition's residual formula: the same
// variables (in c's numbering), the same clauses in the pool, implication
// and watch lists, the same activities and free variables; and a count
// equal to DPLL's count of the assignment's extensions.
func TestLoadConditioned(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(11, 12))
	for i := range 200 {
		c := mixedCNF(r, i)
		for _, cl := range c.Clauses {
			if r.IntN(5) == 0 {
				c.Clauses = append(c.Clauses, slices.Clone(cl))
			}
			if len(cl) == 2 && r.IntN(3) == 0 {
				c.Clauses = append(c.Clauses, append(slices.Clone(cl), int32(1+r.IntN(c.NumVars))))
			}
		}
		if r.IntN(4) == 0 {
			v := int32(1 + r.IntN(c.NumVars))
			c.Clauses = append(c.Clauses, []int32{v, -v, int32(1 + r.IntN(c.NumVars))})
		}
		assign := make([]int8, c.NumVars)
		for v := range assign {
			if r.IntN(3) == 0 {
				assign[v] = int8(2*r.IntN(2) - 1)
			}
		}
		res, err := Condition(c, assign)
		if err != nil {
			t.Fatal(err)
		}
		want := newCounter(ctx, res.CNF, Options{})
		for _, old := range []*counter{nil, newCounter(ctx, c, Options{})} {
			got := loadCounter(ctx, c, assign, old, Options{})
			if got.unsat != want.unsat {
				t.Fatalf("case %d: unsat %v, from Condition %v", i, got.unsat, want.unsat)
			}
			if got.unsat {
				continue
			}
			if got.nv != want.nv || got.unused != want.unused || got.origEnd != want.origEnd {
				t.Fatalf("case %d: %d variables, %d unused, pool %d; from Condition %d, %d, %d", i, got.nv, got.unused, got.origEnd, want.nv, want.unused, want.origEnd)
			}
			for v := range got.used {
				if got.used[v] != res.Vars[want.used[v]-1] {
					t.Fatalf("case %d: variable %d is %d, from Condition %d", i, v, got.used[v], res.Vars[want.used[v]-1])
				}
			}
			if !slices.Equal(got.pool, want.pool) || !slices.Equal(got.litAct, want.litAct) || !slices.Equal(got.trail, want.trail) {
				t.Fatalf("case %d: pool, activities or trail differ from Condition's\n%v\n%v", i, got.pool, want.pool)
			}
			for l := range got.bin {
				if !slices.Equal(got.bin[l], want.bin[l]) || !slices.Equal(got.watches[l], want.watches[l]) {
					t.Fatalf("case %d: literal %d's implications or watches differ from Condition's", i, l)
				}
			}
			if !slices.Equal(got.binA, want.binA) || !slices.Equal(got.binB, want.binB) {
				t.Fatalf("case %d: binary clauses differ from Condition's", i)
			}
			got.presolved = true
			_, n, err := got.run()
			if err != nil {
				t.Fatal(err)
			}
			fixed := &cnf.CNF{NumVars: c.NumVars, Clauses: slices.Clone(c.Clauses)}
			for v, a := range assign {
				if a != 0 {
					fixed.Clauses = append(fixed.Clauses, []int32{int32(a) * int32(v+1)})
				}
			}
			if e := dpll(fixed); n.Cmp(e) != 0 {
				t.Fatalf("case %d: count %v, DPLL %v", i, n, e)
			}
		}
	}
}

// TestChunkStack runs random allocations, marks and releases on a
// chunkStack against a stack of slices: every list live must keep its
// contents, whatever chunks the later ones took (a list longer than a
// chunk gets one of its own), and a release must return to its mark.
func TestChunkStack(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	st := chunkStack{min: 64}
	type entry struct {
		sp   span
		want []int32
	}
	var live []entry
	var marks []struct {
		m stackMark
		n int
	}
	for op := range 20000 {
		if len(marks) > 0 && (len(marks) > 30 || len(live) > 300) { // keep the stack shallow
			m := marks[0]
			marks = marks[:0]
			st.release(m.m)
			live = live[:m.n]
			if st.mark() != m.m {
				t.Fatalf("op %d: released to %+v, now at %+v", op, m.m, st.mark())
			}
		}
		switch k := r.IntN(10); {
		case k < 6:
			n := r.IntN(40)
			if r.IntN(50) == 0 {
				n = 64 + r.IntN(200)
			}
			sp := st.alloc(n)
			l := st.list(sp)
			if len(l) != n {
				t.Fatalf("op %d: alloc(%d) gave %d entries", op, n, len(l))
			}
			want := make([]int32, n)
			for i := range l {
				l[i] = int32(op*1000 + i)
				want[i] = l[i]
			}
			live = append(live, entry{sp, want})
		case k < 8 || len(marks) == 0:
			marks = append(marks, struct {
				m stackMark
				n int
			}{st.mark(), len(live)})
		default:
			m := marks[len(marks)-1]
			marks = marks[:len(marks)-1]
			st.release(m.m)
			live = live[:m.n]
			if st.mark() != m.m {
				t.Fatalf("op %d: released to %+v, now at %+v", op, m.m, st.mark())
			}
		}
		for _, e := range live {
			if !slices.Equal(st.list(e.sp), e.want) {
				t.Fatalf("op %d: list %+v holds %v, want %v", op, e.sp, st.list(e.sp), e.want)
			}
		}
	}
	if len(st.chunks) < 3 {
		t.Errorf("the test used %d chunks: it should use several", len(st.chunks))
	}
}
