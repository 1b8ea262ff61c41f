package exact_test

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"testing"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/exact"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"
)

// TestAutoCancelsWFOMC gives auto a model that wfomc compiles slowly
// (evidence names 40 pairs of constants of a binary predicate, which are
// shattered out) and a share of 10^6 work units (about 0.1 s): Choose
// falls back soon after, and the wfomc run has stopped by then instead of
// going on in the background.
func TestAutoCancelsWFOMC(t *testing.T) {
	src := `smokes(person)
cancer(person)
friends(person, person)
0.7 !smokes(x) v cancer(x)
0.2 !friends(x,y) v smokes(x) v !smokes(y)
`
	var db strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&db, "friends(A%d, B%d)\n", i, i)
	}
	m := model(t, "slow", []byte(src), []byte(db.String()), "cancer")
	lbp, _, err := infer.New("lbp", nil)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	a := &exact.Auto{LBP: lbp, Work: 1e6}
	start := time.Now()
	ch, err := a.Choose(context.Background(), m, infer.Query{Task: infer.Marginals})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s after %v: %s", ch.Name, elapsed, ch.Reason)
	if !strings.Contains(ch.Reason, "wfomc did not finish within its share of 1e+06 work units") {
		t.Errorf("reason %q", ch.Reason)
	}
	if elapsed > 10*time.Second {
		t.Errorf("Choose returned %v after a share of about 0.1 s", elapsed)
	}
	// The wfomc goroutine has returned (Choose waited for it); give the
	// scheduler a moment to retire it.
	for i := 0; i < 100 && runtime.NumGoroutine() > before; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before Choose, %d after: the wfomc run goes on", before, after)
	}
}

// Whether auto's wfomc answers is decided in work units, not time: given
// exactly the work of a whole run (counted once, unlimited) wfomc answers,
// given one unit less it gives up, and both decisions, with the answer
// and the reason to the byte, are the same when the run has the machine
// to itself and beside 2 × NumCPU spinning goroutines of this process
// (which a share of the process's CPU time or of wall time would count).
func TestAutoWFOMCWorkDeterministic(t *testing.T) {
	src := `smokes(person)
cancer(person)
friends(person, person)
2 friends(x,y) ^ smokes(x) => smokes(y)
1 smokes(x) => cancer(x)
0.5 friends(x,y) ^ cancer(x) => cancer(y)
`
	const n = 60
	people := make([]string, n)
	for i := range people {
		people[i] = fmt.Sprintf("P%d", i)
	}
	src = "person = {" + strings.Join(people, ", ") + "}\n" + src
	m := model(t, "work", []byte(src), []byte("smokes(P0)\n"), "smokes")
	ung := *m
	ung.Graph, ung.Grounding, ung.Queries = nil, nil, nil
	q := infer.Query{Task: infer.Marginals}
	atoms := func(yield func(int, []int) bool) {
		for x := range n {
			if !yield(m.MLN.PredIndex("smokes"), []int{x}) {
				return
			}
		}
	}
	lbp, _, _ := infer.New("lbp", nil)
	// The work of a whole run, counted without a limit.
	wctx, w, cancel := wfomc.WithWorkLimit(context.Background(), 0)
	if _, err := (exact.WFOMC{}).RunAtoms(wctx, &ung, q, atoms); err != nil {
		t.Fatal(err)
	}
	cancel()
	full := w.Used()
	run := func(work float64) string {
		t.Helper()
		a := &exact.Auto{LBP: lbp, Work: work}
		ans, why, err := a.TryUngrounded(context.Background(), &ung, q, atoms, float64(n*n))
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%q", why)
		if ans != nil {
			fmt.Fprintf(&b, " %s log Z %.17g", ans.Stats.MethodReason, *ans.LogZ)
			for x := range n {
				p, _ := ans.Marginal(m.MLN.PredIndex("smokes"), []int{x})
				fmt.Fprintf(&b, " %.17g", p)
			}
		}
		return b.String()
	}
	t0 := time.Now()
	quiet := []string{run(float64(full)), run(float64(full - 1))}
	t.Logf("a whole run: %d work units; both tries %v quietly", full, time.Since(t0))
	if !strings.HasPrefix(quiet[0], `"" exact: wfomc lifts`) {
		t.Errorf("with the whole run's work: %.200s", quiet[0])
	}
	if want := fmt.Sprintf("%q", fmt.Sprintf("wfomc did not finish within its share of %.3g work units (domains person=%d)", float64(full-1), n)); quiet[1] != want {
		t.Errorf("with one unit less: %s, want %s", quiet[1], want)
	}
	hogs := 2 * runtime.NumCPU()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	for range hogs {
		go func() {
			for ctx.Err() == nil {
			}
		}()
	}
	t0 = time.Now()
	loaded := []string{run(float64(full)), run(float64(full - 1))}
	stop()
	t.Logf("beside %d CPU hogs: %v", hogs, time.Since(t0))
	for i := range quiet {
		if quiet[i] != loaded[i] {
			t.Errorf("share %d: %d bytes quietly, %d beside %d CPU hogs, not the same:\n%.300s\n%.300s", full-int64(i), len(quiet[i]), len(loaded[i]), hogs, quiet[i], loaded[i])
		}
	}
}

// smallSmokers is a model that wfomc lifts and whose grounding is small
// enough to enumerate.
func smallSmokers(t *testing.T) *infer.Model {
	t.Helper()
	src := `person = {A, B, C}
smokes(person)
cancer(person)
friends(person, person)
0.7 !smokes(x) v cancer(x)
0.4 !friends(x,y) v !smokes(x) v smokes(y)
`
	return model(t, "small", []byte(src), []byte("smokes(A)\n!cancer(B)\nfriends(A, C)\n"), "cancer", "smokes")
}

// An Auto told that wfomc already did not answer (Tried) does not run it
// again: it goes on to enumeration, with the earlier reason.
func TestAutoTriedSkipsWFOMC(t *testing.T) {
	m := smallSmokers(t)
	lbp, _, err := infer.New("lbp", nil)
	if err != nil {
		t.Fatal(err)
	}
	q := infer.Query{Task: infer.Marginals}
	a := &exact.Auto{LBP: lbp, Work: exact.DefaultWFOMCWork}
	if ch, err := a.Choose(context.Background(), m, q); err != nil || ch.Name != "wfomc" {
		t.Fatalf("without Tried: %v, %v", ch.Name, err)
	}
	a.Tried = "wfomc was tried before"
	ch, err := a.Choose(context.Background(), m, q)
	if err != nil || ch.Name != "enumerate" || !strings.HasPrefix(ch.Reason, "wfomc was tried before; the grounding has ") || ch.Answer != nil {
		t.Fatalf("with Tried: %v %q, %v", ch.Name, ch.Reason, err)
	}
}

// WFOMC.RunAtoms answers without the grounding what enumeration of the
// grounding answers, asking wfomc one atom per class of interchangeable
// ones; log Z is the MLN's (the grounding's plus its offset).
func TestWFOMCRunAtoms(t *testing.T) {
	src := `person = {A, B, C, D, E, F}
smokes(person)
cancer(person)
0.7 !smokes(x) v cancer(x)
0.4 !smokes(x) v !smokes(y) v cancer(y)
-0.3 cancer(C)
`
	// A and B are told apart by their evidence, C by the formula that
	// names it; D, E and F are interchangeable.
	m := model(t, "classes", []byte(src), []byte("smokes(A)\n!cancer(B)\n"), "cancer", "smokes")
	q := infer.Query{Task: infer.Marginals}
	want, err := infer.RunModel(context.Background(), exact.Enumerate{MaxStates: exact.DefaultMaxStates}, m, infer.Options{Query: q})
	if err != nil {
		t.Fatal(err)
	}
	ung := *m
	ung.Graph, ung.Grounding, ung.Queries = nil, nil, nil
	lbp, _, _ := infer.New("lbp", nil)
	a := &exact.Auto{LBP: lbp, Work: exact.DefaultWFOMCWork}
	atoms := func(yield func(int, []int) bool) { // every ground atom
		for pred := range m.MLN.Preds {
			for x := range 6 {
				if !yield(pred, []int{x}) {
					return
				}
			}
		}
	}
	got, why, err := a.TryUngrounded(context.Background(), &ung, q, atoms, 12)
	if err != nil || got == nil {
		t.Fatalf("TryUngrounded: %q, %v", why, err)
	}
	if got.Stats.Method != "wfomc" || got.Stats.MethodReason != "exact: wfomc lifts the MLN (domains person=6)" {
		t.Errorf("stats %q: %q", got.Stats.Method, got.Stats.MethodReason)
	}
	// smokes: B, C, D~E~F; cancer: A, C, D~E~F.
	if got.Stats.Variables != 6 {
		t.Errorf("wfomc asked %d queries, want 6", got.Stats.Variables)
	}
	if len(m.Queries) != 10 {
		t.Fatalf("%d query atoms", len(m.Queries))
	}
	for _, qa := range m.Queries {
		name, rest, _ := strings.Cut(qa.Name, "(")
		arg := m.DB.ConstIndex("person", strings.TrimSuffix(rest, ")"))
		p, unknown := got.Marginal(m.MLN.PredIndex(name), []int{arg})
		if w := want.Marginal(int(qa.Var))[1]; !unknown || math.Abs(p-w) > 1e-12 {
			t.Errorf("%s: %v (unknown %v), enumeration %v", qa.Name, p, unknown, w)
		}
	}
	if p, unknown := got.Marginal(m.MLN.PredIndex("smokes"), []int{m.DB.ConstIndex("person", "A")}); unknown || p != 1 {
		t.Errorf("smokes(A) is evidence, got %v (unknown %v)", p, unknown)
	}
	if lz := want.LogZ + m.LogZOffset; got.LogZ == nil || math.Abs(*got.LogZ-lz) > 1e-12*math.Abs(lz) {
		t.Errorf("log Z %v, enumeration %v", got.LogZ, lz)
	}
}

// The scan of the query atoms is counted in wfomc's work units (each
// query class a query of its own): a query of millions of atoms in as
// many classes (every person told apart by the evidence) stops at
// wfomc's share, long before the scan ends (issue 37: UW-CSE ×100 built
// an index of 4.6e7 classes, 3 GB, before wfomc began).
func TestAutoWFOMCScanCounted(t *testing.T) {
	const n = 1500
	var src, db strings.Builder
	src.WriteString("person = {")
	for i := range n {
		if i > 0 {
			src.WriteString(", ")
			fmt.Fprintf(&db, "knows(P%d, P%d)\n", i-1, i)
		}
		fmt.Fprintf(&src, "P%d", i)
	}
	src.WriteString("}\nknows(person, person)\nfriends(person, person)\n1 knows(x, y) => friends(x, y)\n0.5 friends(x, y) ^ friends(y, z) => friends(x, z)\n")
	m, err := mlnfile.Parse("scan", []byte(src.String()))
	if err != nil {
		t.Fatal(err)
	}
	d, err := mlnfile.ReadDB(strings.NewReader(db.String()), "scan.db", m)
	if err != nil {
		t.Fatal(err)
	}
	closed, err := mln.ClosedWorld(m, d, []string{"friends"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	ung := &infer.Model{MLN: m, DB: d, Closed: closed, Weights: exact.Weights(m, ground.Options{})}
	yielded := 0
	fr := m.PredIndex("friends")
	atoms := func(yield func(int, []int) bool) {
		for x := range n {
			for y := range n {
				if yielded++; !yield(fr, []int{x, y}) {
					return
				}
			}
		}
	}
	lbp, _, _ := infer.New("lbp", nil)
	a := &exact.Auto{LBP: lbp, Work: 1e7}
	ans, why, err := a.TryUngrounded(context.Background(), ung, infer.Query{Task: infer.Marginals}, atoms, n*n)
	if err != nil || ans != nil || !strings.Contains(why, "did not finish within its share") {
		t.Fatalf("answer %v, why %q, err %v", ans != nil, why, err)
	}
	if yielded > n*n/10 {
		t.Fatalf("wfomc gave up after scanning %d of %d query atoms", yielded, n*n)
	}
}
