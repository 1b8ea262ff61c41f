package engine

import (
	"bytes"
	"context"
	"sync"
	"testing"
)

// TestConcurrentRun: one loaded Model queried by 16 goroutines at once,
// by several methods and query sets, gives each the answer it gives
// alone. CI runs it under the race detector (.ci/run: go test -race
// -run TestConcurrentRun ./engine), which found mln.DB.Lookup writing a
// shared buffer.
func TestConcurrentRun(t *testing.T) {
	m, err := Load(smokersMLN, LoadOptions{Evidence: []string{smokersDB}})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Load(smokersUAI, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	reqs := []struct {
		model *Model
		req   Request
	}{
		{m, Request{Query: []string{"Cancer"}}},
		{m, Request{Query: []string{"Smokes,Cancer"}, Method: "lbp"}},
		{m, Request{Query: []string{"Cancer"}, Method: "bp", Ground: GroundOptions{ClosedWorld: []string{"Smokes"}}}},
		{m, Request{Query: []string{"Smokes"}, Method: "gibbs", Seed: 3, AllowUnconverged: true, Properties: map[string]string{"samples": "200", "chains": "2"}}},
		{m, Request{Query: []string{"Smokes,Cancer"}, Task: MAP, Method: "maxwalksat", Seed: 1}},
		{g, Request{Method: "lbp"}},
		{g, Request{}},
	}
	text := func(res *Result) string {
		var b bytes.Buffer
		var err error
		if res.IsMLN() {
			err = WriteAlchemy(&b, res)
		} else {
			err = WriteUAI(&b, res)
		}
		if err != nil {
			t.Error(err)
		}
		return b.String()
	}
	want := make([]string, len(reqs))
	for i, r := range reqs {
		res, err := r.model.Run(context.Background(), r.req)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		want[i] = text(res)
	}
	var wg sync.WaitGroup
	for w := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range len(reqs) {
				i := (w + k) % len(reqs)
				res, err := reqs[i].model.Run(context.Background(), reqs[i].req)
				if err != nil {
					t.Errorf("goroutine %d, request %d: %v", w, i, err)
					return
				}
				if got := text(res); got != want[i] {
					t.Errorf("goroutine %d, request %d: the answer differs from the one alone:\n%s\nwant\n%s", w, i, got, want[i])
				}
			}
		}()
	}
	wg.Wait()
}
