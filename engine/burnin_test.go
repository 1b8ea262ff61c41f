package engine

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// A sampler's burn-in reports its steps with a total (chains × burn-in):
// a stage "burn-in" whose Done never passes its Total (issue 39: it was
// "sampling: burn-in" with no total).
func TestBurnInProgressHasTotal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.mln")
	if err := os.WriteFile(path, []byte("person = {A, B, C, D}\nSmokes(person)\nCancer(person)\n1.5 Smokes(x) => Cancer(x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got []Progress
	_, err := Run(ctx, Request{Model: path, Query: []string{"Cancer"}, Method: "gibbs",
		Properties: map[string]string{"samples": "10", "burn-in": "1000000000", "chains": "3"},
		Progress: func(p Progress) {
			mu.Lock()
			defer mu.Unlock()
			if p.Stage == "burn-in" {
				got = append(got, p)
				cancel() // one report is enough
			}
		}})
	if err == nil {
		t.Fatal("a burn-in of 10^9 steps finished")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatalf("no burn-in progress (%v)", err)
	}
	for _, p := range got {
		if p.Total != 3e9 || p.Done < 0 || p.Done > p.Total {
			t.Errorf("burn-in progress %+v, want a total of 3e9 steps", p)
		}
	}
}

// Component-by-component inference reports stage "components", done of
// total (issue 39's probe: a CNF of 3·10^6 unconstrained variables showed
// "BP: iteration 2897115, max change 0" for 55 s, with no total).
func TestComponentsProgressHasTotal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "free.cnf")
	if err := os.WriteFile(path, []byte("p cnf 2000 1\n1 -2 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []Progress
	_, err := Run(context.Background(), Request{Model: path, Progress: func(p Progress) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, p)
	}})
	if err != nil {
		t.Fatal(err)
	}
	var last Progress
	for _, p := range got {
		if p.Stage == "BP" {
			t.Errorf("progress %+v: no BP runs here", p)
		}
		if p.Stage == "components" {
			last = p
		}
	}
	if last.Total != 1999 || last.Done != last.Total { // 2 variables in the clause's component, 1998 alone
		t.Errorf("last components progress %+v, want 1999 of 1999", last)
	}
}
