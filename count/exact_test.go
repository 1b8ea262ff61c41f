package count

import (
	"context"
	"errors"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/format/dimacs"
)

// bruteForce counts the models of c by enumerating all assignments.
func bruteForce(c *cnf.CNF) int64 {
	var n int64
	for x := uint64(0); x < 1<<c.NumVars; x++ {
		ok := true
		for _, cl := range c.Clauses {
			sat := false
			for _, l := range cl {
				v := l
				if v < 0 {
					v = -v
				}
				if (x>>(v-1)&1 == 1) == (l > 0) {
					sat = true
					break
				}
			}
			if !sat {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

// randomCNF draws a formula over nv variables (some possibly unused) with
// clauses of 1–4 literals, including repeated and complementary literals.
func randomCNF(r *rand.Rand, nv, nc int) *cnf.CNF {
	c := &cnf.CNF{NumVars: nv}
	used := nv
	if nv > 2 && r.IntN(3) == 0 {
		used = nv - 1 - r.IntN(2) // leave the last variables unused
	}
	for range nc {
		k := 1 + r.IntN(4)
		if r.IntN(4) > 0 && k == 1 {
			k = 2 + r.IntN(3) // fewer units, or everything is forced
		}
		cl := make([]int32, k)
		for i := range cl {
			v := int32(1 + r.IntN(used))
			if r.IntN(2) == 0 {
				v = -v
			}
			cl[i] = v
		}
		if r.IntN(15) == 0 && k > 1 {
			cl[1] = cl[0] // duplicate
		}
		if r.IntN(20) == 0 && k > 1 {
			cl[1] = -cl[0] // tautology
		}
		c.Clauses = append(c.Clauses, cl)
	}
	return c
}

func TestExactRandomAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for i := range 600 {
		nv := 1 + r.IntN(20)
		nc := r.IntN(5 * nv)
		c := randomCNF(r, nv, nc)
		want := bruteForce(c)
		for _, opts := range []Options{{}, {NoSATCheck: true}, {MaxCacheBytes: 1}} {
			got, _, err := ExactWithOptions(ctx, c, opts)
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			if !got.IsInt64() || got.Int64() != want {
				t.Fatalf("case %d (%+v): Exact = %v, brute force %d\n%v", i, opts, got, want, c.Clauses)
			}
		}
	}
}

func TestExactSmall(t *testing.T) {
	tests := []struct {
		name string
		c    *cnf.CNF
		want string
	}{
		{"empty formula", &cnf.CNF{}, "1"},
		{"no clauses", &cnf.CNF{NumVars: 70}, "1180591620717411303424"},
		{"empty clause", &cnf.CNF{NumVars: 3, Clauses: [][]int32{{1, 2}, {}}}, "0"},
		{"contradicting units", &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1}, {-1}}}, "0"},
		{"tautology only", &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1, -1}}}, "4"},
		{"unit", &cnf.CNF{NumVars: 3, Clauses: [][]int32{{-2}}}, "4"},
		{"xor chain", &cnf.CNF{NumVars: 3, Clauses: [][]int32{{1, 2}, {-1, -2}, {2, 3}, {-2, -3}}}, "2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Exact(context.Background(), tt.c)
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want {
				t.Errorf("Exact = %v, want %s", got, tt.want)
			}
		})
	}
}

func TestExactInvalid(t *testing.T) {
	if _, err := Exact(context.Background(), &cnf.CNF{NumVars: 1, Clauses: [][]int32{{2}}}); err == nil {
		t.Error("literal out of range: want an error")
	}
}

// independent builds n disjoint copies of a small formula, so the count is
// a power and the components are identical up to renaming.
func TestExactManyComponents(t *testing.T) {
	c := &cnf.CNF{}
	const copies = 40
	for i := range copies {
		b := int32(4 * i)
		c.Clauses = append(c.Clauses,
			[]int32{b + 1, b + 2, b + 3}, []int32{-(b + 1), b + 4}, []int32{-(b + 2), -(b + 3)})
	}
	c.NumVars = 4 * copies
	per := bruteForce(&cnf.CNF{NumVars: 4, Clauses: c.Clauses[:3]})
	want := new(big.Int).Exp(big.NewInt(per), big.NewInt(copies), nil)
	got, err := Exact(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cmp(want) != 0 {
		t.Errorf("Exact = %v, want %v", got, want)
	}
}

var sharedDir = shareddata.Path("cnf")

func readShared(t testing.TB, name string) *cnf.CNF {
	t.Helper()
	path := filepath.Join(sharedDir, name)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		shareddata.Skipf(t, "shared instance %s absent (no ../../shared checkout); skipping", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := dimacs.Read(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sharedCounts are the model counts of the shared instances, from
// sharpSAT-TD (counts_sharpsat_td.txt) and OEIS A000315.
var sharedCounts = []struct {
	file  string
	count string
	slow  bool // skipped with -short
}{
	{"uf20-01.cnf", "8", false},
	{"uf50-01.cnf", "24", false},
	{"bw_large.a.cnf", "1", false},
	{"3blocks.cnf", "174", false},
	{"ais6.cnf", "24", false},
	{"ais8.cnf", "40", false},
	{"ais10.cnf", "296", true},
	{"2bitcomp_5.cnf", "9840070722846720", false},
	{"2bitmax_6.cnf", "206829646435704880299088281600", false},
	{"2bitadd_10.cnf", "0", true},
	{"logistics.a.cnf", "377969276544912", false},
	{"logistics.b.cnf", "452617045003614325571584", false},
	{"generated/ls5-norm-gen.cnf", "56", false},
	{"generated/ls6-norm-gen.cnf", "9408", true},
}

func TestExactShared(t *testing.T) {
	for _, tt := range sharedCounts {
		t.Run(tt.file, func(t *testing.T) {
			if tt.slow && testing.Short() {
				t.Skip("slow instance; skipped with -short")
			}
			c := readShared(t, tt.file)
			start := time.Now()
			got, st, err := ExactWithOptions(context.Background(), c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %v in %v (%d decisions, %d conflicts, %d cache entries, %d hits)",
				tt.file, got, time.Since(start).Round(time.Millisecond), st.Decisions, st.Conflicts, st.CacheEntries, st.CacheHits)
			if got.String() != tt.count {
				t.Errorf("Exact = %v, want %s", got, tt.count)
			}
		})
	}
}

// latinSquares encodes the reduced Latin squares of order n as CNF, like
// gen_latin_norm.py beside the shared instances: x(r,c,v) is variable
// r*n*n+c*n+v+1, each cell holds exactly one value, each value occurs once
// per row and column, and the first row and column are fixed.
func latinSquares(n int) *cnf.CNF {
	x := func(r, c, v int) int32 { return int32(r*n*n + c*n + v + 1) }
	c := &cnf.CNF{NumVars: n * n * n}
	exactlyOne := func(vars []int32) {
		c.Clauses = append(c.Clauses, vars)
		for i := range vars {
			for j := i + 1; j < len(vars); j++ {
				c.Clauses = append(c.Clauses, []int32{-vars[i], -vars[j]})
			}
		}
	}
	for a := range n {
		for b := range n {
			var cell, row, col []int32
			for k := range n {
				cell = append(cell, x(a, b, k)) // cell (a,b)
				row = append(row, x(a, k, b))   // value b in row a
				col = append(col, x(k, a, b))   // value b in column a
			}
			exactlyOne(cell)
			exactlyOne(row)
			exactlyOne(col)
		}
	}
	for i := range n {
		c.Clauses = append(c.Clauses, []int32{x(0, i, i)}, []int32{x(i, 0, i)})
	}
	return c
}

func TestExactLatinSquares(t *testing.T) {
	// OEIS A000315: reduced Latin squares.
	for n, want := range map[int]string{1: "1", 2: "1", 3: "1", 4: "4", 5: "56", 6: "9408"} {
		if n == 6 && testing.Short() {
			continue
		}
		got, err := Exact(context.Background(), latinSquares(n))
		if err != nil {
			t.Fatal(err)
		}
		if got.String() != want {
			t.Errorf("order %d: %v reduced Latin squares, want %s", n, got, want)
		}
	}
}

func TestExactCancel(t *testing.T) {
	c := latinSquares(7)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Exact(ctx, c)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want an error wrapping context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

func TestExactCancelledBefore(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Exact(ctx, &cnf.CNF{NumVars: 2, Clauses: [][]int32{{1, 2}}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
}

func TestExactProgress(t *testing.T) {
	c := latinSquares(7)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	calls := 0
	_, _, err := ExactWithOptions(ctx, c, Options{
		ProgressInterval: time.Millisecond,
		Progress:         func(Stats) { calls++ },
	})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want deadline exceeded", err)
	}
	if calls == 0 {
		t.Error("Progress was never called")
	}
}

func BenchmarkExact(b *testing.B) {
	b.Run("latin6", func(b *testing.B) {
		c := latinSquares(6)
		for b.Loop() {
			if _, err := Exact(context.Background(), c); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, name := range []string{"2bitmax_6.cnf", "logistics.b.cnf", "ais10.cnf", "3blocks.cnf", "ais8.cnf", "logistics.a.cnf"} {
		b.Run(name, func(b *testing.B) {
			c := readShared(b, name)
			for b.Loop() {
				if _, err := Exact(context.Background(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// longBenchEnv names the environment variable that turns on benchmarks
// whose single iteration takes minutes, so that go test -bench . ./...
// finishes without them.
const longBenchEnv = "LIFTED_LONG_BENCH"

// skipUnlessLong skips a benchmark that takes minutes unless
// LIFTED_LONG_BENCH=1.
func skipUnlessLong(b *testing.B, took string) {
	b.Helper()
	if os.Getenv(longBenchEnv) != "1" {
		b.Skipf("one iteration takes %s; set %s=1 to run it", took, longBenchEnv)
	}
}

// BenchmarkExactLS7 counts the order-7 reduced Latin squares (16942080),
// which took sharpSAT-TD 279 s and takes Exact more than 8 minutes; it runs
// only with LIFTED_LONG_BENCH=1, e.g.
//
//	LIFTED_LONG_BENCH=1 go test -run '^$' -bench LS7 -benchtime 1x -timeout 30m ./count
func BenchmarkExactLS7(b *testing.B) {
	skipUnlessLong(b, "more than 8 minutes")
	c := readShared(b, "generated/ls7-norm-gen.cnf")
	for b.Loop() {
		n, err := Exact(context.Background(), c)
		if err != nil {
			b.Fatal(err)
		}
		if n.String() != "16942080" {
			b.Fatalf("count %v, want 16942080", n)
		}
	}
}

// TestExactManyUnusedVars checks that variables in no clause cost nothing
// but their factor 2.
func TestExactManyUnusedVars(t *testing.T) {
	const nv = 1 << 24
	c := &cnf.CNF{NumVars: nv, Clauses: [][]int32{{1, -nv}, {nv / 2, nv / 2}}}
	got, err := Exact(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	want := new(big.Int).Lsh(big.NewInt(3), nv-3) // (1 ∨ ¬nv): 3 of 4; nv/2 fixed
	if got.Cmp(want) != 0 {
		t.Errorf("Exact has %d bits, want 3·2^%d", got.BitLen(), nv-3)
	}
}

// pigeonhole encodes n+1 pigeons in n holes: unsatisfiable, and hard for
// resolution, so the satisfiability check runs long.
func pigeonhole(n int) *cnf.CNF {
	p := func(i, h int) int32 { return int32(i*n + h + 1) }
	c := &cnf.CNF{NumVars: (n + 1) * n}
	for i := range n + 1 {
		var cl []int32
		for h := range n {
			cl = append(cl, p(i, h))
		}
		c.Clauses = append(c.Clauses, cl)
	}
	for h := range n {
		for i := range n + 1 {
			for j := i + 1; j < n+1; j++ {
				c.Clauses = append(c.Clauses, []int32{-p(i, h), -p(j, h)})
			}
		}
	}
	return c
}

func TestExactPigeonhole(t *testing.T) {
	got, err := Exact(context.Background(), pigeonhole(6))
	if err != nil {
		t.Fatal(err)
	}
	if got.Sign() != 0 {
		t.Errorf("pigeonhole(6) has %v models, want 0", got)
	}
	got, _, err = ExactWithOptions(context.Background(), pigeonhole(5), Options{NoSATCheck: true})
	if err != nil || got.Sign() != 0 {
		t.Errorf("pigeonhole(5) without the check: %v, %v; want 0", got, err)
	}
}

func TestExactCancelSATCheck(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Exact(ctx, pigeonhole(12))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want an error wrapping context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancellation took %v", d)
	}
}

// TestExactEviction counts with a cache far too small to hold the search,
// so that entries are evicted and recomputed.
func TestExactEviction(t *testing.T) {
	const limit = 256 << 10
	got, st, err := ExactWithOptions(context.Background(), latinSquares(6), Options{MaxCacheBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	if got.String() != "9408" {
		t.Errorf("Exact = %v, want 9408", got)
	}
	if st.CacheEvicted == 0 {
		t.Errorf("no evictions with a %d-byte cache: %+v", limit, st)
	}
	if st.CacheBytes > limit {
		t.Errorf("cache holds %d bytes, bound %d", st.CacheBytes, limit)
	}
}

// TestExactPresolve checks that failed literals found at the root reduce
// the formula before the search, and that the reduced count is right.
func TestExactPresolve(t *testing.T) {
	// x1 fails (it implies x2 and ¬x2); x1 false then satisfies the
	// clauses with ¬x1 and leaves (x3 ∨ x4 ∨ x5) with x6 free.
	c := &cnf.CNF{NumVars: 6, Clauses: [][]int32{{-1, 2}, {-1, -2}, {-1, 3, 6}, {3, 4, 5}, {1, 6, -4, 2}}}
	k := newCounter(context.Background(), c, Options{NoSATCheck: true})
	nv := k.nv
	r, n, err := k.run()
	if err != nil {
		t.Fatal(err)
	}
	if want := bruteForce(c); !n.IsInt64() || n.Int64() != want {
		t.Fatalf("count %v, brute force %d", n, want)
	}
	if r == k || r.nv >= nv {
		t.Errorf("presolve did not reduce the formula: %d variables, was %d", r.nv, nv)
	}
}

// TestExactRedundantClauses checks the load's removal of repeated clauses
// and of clauses containing a binary clause: counts against brute force on
// random formulas rich in both, including variables that occur only in
// removed clauses (free in the search), and that the removed clauses are
// not loaded.
func TestExactRedundantClauses(t *testing.T) {
	// x4 and x5 occur only in clauses that (x1 ∨ ¬x2) subsumes; the
	// ternary (x1 ∨ x2 ∨ x3) is there twice, (¬x1 ∨ x3) twice.
	c := &cnf.CNF{NumVars: 5, Clauses: [][]int32{
		{1, -2}, {1, -2, 4}, {-2, 5, 1, -4}, {1, 2, 3}, {3, 2, 1}, {-1, 3}, {3, -1}, {-3, 2, -1},
	}}
	k := newCounter(context.Background(), c, Options{})
	if long := len(k.learnts); long != 0 {
		t.Fatalf("%d learned clauses at load", long)
	}
	nlong := 0
	for cr := uint32(0); cr < k.origEnd; cr += uint32(k.pool[cr]) + hdrSize {
		nlong++
	}
	if nlong != 2 || len(k.binA) != 2 {
		t.Errorf("loaded %d long and %d binary clauses, want 2 and 2", nlong, len(k.binA))
	}
	ctx := context.Background()
	for _, cc := range []*cnf.CNF{c, {NumVars: 5, Clauses: c.Clauses[1:3]}} {
		got, _, err := ExactWithOptions(ctx, cc, Options{NoSATCheck: true})
		if err != nil {
			t.Fatal(err)
		}
		if want := bruteForce(cc); !got.IsInt64() || got.Int64() != want {
			t.Fatalf("%v: Exact = %v, brute force %d", cc.Clauses, got, want)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 300 {
		nv := 2 + r.IntN(14)
		c := randomCNF(r, nv, r.IntN(4*nv))
		// Repeat some clauses (literals shuffled) and extend some binary
		// clauses by one or two literals.
		for _, cl := range c.Clauses {
			switch {
			case r.IntN(4) == 0:
				d := slices.Clone(cl)
				r.Shuffle(len(d), func(a, b int) { d[a], d[b] = d[b], d[a] })
				c.Clauses = append(c.Clauses, d)
			case len(cl) == 2 && r.IntN(2) == 0:
				d := append(slices.Clone(cl), int32(1+r.IntN(nv)))
				if r.IntN(2) == 0 {
					d = append(d, -int32(1+r.IntN(nv)))
				}
				c.Clauses = append(c.Clauses, d)
			}
		}
		want := bruteForce(c)
		for _, opts := range []Options{{}, {NoSATCheck: true}} {
			got, _, err := ExactWithOptions(ctx, c, opts)
			if err != nil {
				t.Fatal(err)
			}
			if !got.IsInt64() || got.Int64() != want {
				t.Fatalf("case %d (%+v): Exact = %v, brute force %d\n%v", i, opts, got, want, c.Clauses)
			}
		}
	}
}

// TestExactLearntReduction counts formulas that give the search conflicts
// with the learned clauses halved whenever they hold more than one pool
// word (the counting search's bound, made tiny),
// against brute force: deleting learned clauses, those that are reasons
// of current assignments excepted, must not change a count.
func TestExactLearntReduction(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	reductions := 0
	for i := range 300 {
		nv := 8 + r.IntN(9)
		c := &cnf.CNF{NumVars: nv}
		// Random 3- and 4-clauses near the satisfiability threshold: many
		// conflicts, long learned clauses, a few models left to count.
		for range 3*nv + r.IntN(2*nv) {
			cl := make([]int32, 3+r.IntN(2))
			for j := range cl {
				cl[j] = int32(1 + r.IntN(nv))
				if r.IntN(2) == 0 {
					cl[j] = -cl[j]
				}
			}
			c.Clauses = append(c.Clauses, cl)
		}
		want := bruteForce(c)
		for _, opts := range []Options{{learntWords: 1}, {learntWords: 1, NoSATCheck: true}} {
			k := newCounter(ctx, c, opts)
			k2, got, err := k.run()
			if err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
			reductions += k2.reductions
			if !got.IsInt64() || got.Int64() != want {
				t.Fatalf("case %d (%+v): Exact = %v, brute force %d\n%v", i, opts, got, want, c.Clauses)
			}
		}
	}
	if reductions < 100 {
		t.Errorf("the learned clauses were halved %d times in all: the test does not exercise the reduction", reductions)
	}
	t.Logf("%d reductions", reductions)
}
