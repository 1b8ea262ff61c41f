//go:build cgo

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/internal/memlimit"
)

const (
	smokers   = "../../examples/mln/smokers.mln"
	smokersDB = "../../examples/mln/smokers.db"
)

func loadOK(t *testing.T, req string) int64 {
	t.Helper()
	out := load([]byte(req))
	var h loadResponse
	if !decodeHandle(out, &h) || h.Handle == 0 {
		t.Fatalf("load %s: %s", req, out)
	}
	return h.Handle
}

// The library's answer is engine.WriteJSON of the engine's own run on the
// same request.
func TestRunIsTheEngineJSON(t *testing.T) {
	h := loadOK(t, `{"model":"`+smokers+`","evidence":["`+smokersDB+`"]}`)
	defer free(h)
	for _, tc := range []struct {
		req  string
		want engine.Request
	}{
		{`{"mode":"infer","query":["Smokes,Cancer"],"method":"lbp"}`,
			engine.Request{Query: []string{"Smokes,Cancer"}, Method: "lbp", LogZ: true}},
		{`{"mode":"infer","query":["Smokes,Cancer"],"method":"lbp","tolerance":0.01}`,
			engine.Request{Query: []string{"Smokes,Cancer"}, Method: "lbp", LogZ: true, Tolerance: 0.01}},
		{`{"mode":"map","query":["Cancer"],"method":"lp","properties":{"relaxation":"local"}}`,
			engine.Request{Query: []string{"Cancer"}, Method: "lp", Task: engine.MAP, LogZ: true,
				Properties: map[string]string{"relaxation": "local"}}},
	} {
		got, _ := run(h, []byte(tc.req))
		m, err := engine.Load(smokers, engine.LoadOptions{Evidence: []string{smokersDB}})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Run(t.Context(), tc.want)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := engine.WriteJSON(&want, res); err != nil {
			t.Fatal(err)
		}
		if untimed(t, got) != untimed(t, want.Bytes()) {
			t.Errorf("%s:\n got %s\nwant %s", tc.req, got, want.Bytes())
		}
	}
}

// untimed is the JSON with its "seconds" fields zeroed, re-encoded.
func untimed(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				if strings.HasSuffix(k, "seconds") {
					x[k] = 0
				}
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	out, _ := json.Marshal(v)
	return string(out)
}

func errorOf(t *testing.T, out []byte) errorBody {
	t.Helper()
	var d errorDoc
	if err := json.Unmarshal(out, &d); err != nil || d.Error.Message == "" {
		t.Fatalf("want an error document, got %s", out)
	}
	return d.Error
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mln")
	os.WriteFile(bad, []byte("p(x)\n1.0 p(x) ^^ q\n"), 0o644)
	e := errorOf(t, load([]byte(`{"model":"`+bad+`"}`)))
	if e.Kind != "error" || e.File != bad || e.Line != 2 || e.Column != 11 {
		t.Errorf("syntax error: %+v", e)
	}
	if e := errorOf(t, load([]byte(`{"model":"x.mln","bogus":1}`))); e.Kind != "usage" {
		t.Errorf("unknown key: %+v", e)
	}
	h := loadOK(t, `{"model":"`+smokers+`","evidence":["`+smokersDB+`"]}`)
	defer free(h)
	for req, want := range map[string]string{
		`{"query":["Cancer"],"method":"nope"}`:                              "usage",
		`{"query":["Cancer"],"properties":{"max-iterations":"5"}}`:          "usage",
		`{"query":["Cancer"],"method":"lp","properties":{"damping":"0.5"}}`: "usage",
		`{"query":["Nope"]}`: "usage",
		`{"query":["Cancer"],"method":"bp","properties":{"max-iter":"1","damping":"0.1"}}`: "not_converged",
		`{"mode":"sideways"}`: "usage",
		`{"query":["Cancer"],"method":"lbp","tolerance":1.5}`: "usage",
	} {
		out, _ := run(h, []byte(req))
		if e := errorOf(t, out); e.Kind != want {
			t.Errorf("%s: kind %q, want %q (%s)", req, e.Kind, want, e.Message)
		}
	}
}

func TestHandles(t *testing.T) {
	base := live()
	var hs []int64
	for range 50 {
		hs = append(hs, loadOK(t, `{"model":"`+smokers+`","evidence":["`+smokersDB+`"]}`))
	}
	if live() != base+50 {
		t.Fatalf("%d live, want %d", live(), base+50)
	}
	for _, h := range hs {
		if !free(h) {
			t.Errorf("free(%d) = false", h)
		}
		if free(h) {
			t.Errorf("second free(%d) = true", h)
		}
	}
	if live() != base {
		t.Errorf("%d live after freeing, want %d", live(), base)
	}
	out, _ := run(hs[0], []byte(`{"query":["Cancer"]}`))
	if e := errorOf(t, out); e.Kind != "error" {
		t.Errorf("run on a freed handle: %+v", e)
	}
}

// The request carries what the command's flags carry (one rule:
// engine.SettingProperties): infer passes its --tol default (BP's 1e-8) to
// every method with the property, map to every one but lp and ilp, which
// keep their own 1e-6.
func TestRequestAsTheFlags(t *testing.T) {
	m, err := engine.Load(smokers, engine.LoadOptions{Evidence: []string{smokersDB}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rr      runRequest
		method  string
		task    engine.Task
		tol     string
		hasTol  bool
		dynamic bool
	}{
		{runRequest{Mode: "infer", Method: "lp", MaxProduct: true}, "lp", engine.MAP, "1e-08", true, false},
		{runRequest{Mode: "map"}, engine.DefaultMAPMethod, engine.MAP, "", false, false},
		{runRequest{Mode: "map", Method: "bp"}, "bp", engine.MAP, "1e-08", true, false},
		{runRequest{Mode: "map", Method: "ilp"}, "ilp", engine.MAP, "", false, false},
		{runRequest{Mode: "infer"}, "auto", engine.Marginals, "1e-08", true, false},
		{runRequest{Mode: "infer", Properties: map[string]string{"tol": "1e-3"}}, "auto", engine.Marginals, "1e-3", true, false},
		{runRequest{Mode: "infer", Method: "gibbs"}, "gibbs", engine.Marginals, "", false, false},
		{runRequest{Mode: "infer", Query: []string{"Cancer"}, Dynamic: &dynamicRequest{}}, "lbp", engine.Marginals, "1e-08", true, true},
	} {
		req, err := request(m, &tc.rr)
		if err != nil {
			t.Errorf("%+v: %v", tc.rr, err)
			continue
		}
		tol, has := req.Properties["tol"]
		if req.Method != tc.method || req.Task != tc.task || has != tc.hasTol || tol != tc.tol || (req.Dynamic != nil) != tc.dynamic || !req.LogZ {
			t.Errorf("%+v: method %s task %v tol %q (%v) dynamic %v logz %v", tc.rr, req.Method, req.Task, tol, has, req.Dynamic != nil, req.LogZ)
		}
	}
}

// Issue 39: the command's --max-memory is honoured in-process: max_memory
// in a load or run request is the budget of that call (a declared size, an
// input's length and a grounding's estimate refused with the size and the
// flag; under 1MiB refused as the flag is), and the process's budget is
// put back after it.
func TestMaxMemory(t *testing.T) {
	dir := t.TempDir()
	cnf := filepath.Join(dir, "huge.cnf")
	os.WriteFile(cnf, []byte("p cnf 100000000 1\n1 0\n"), 0o644)
	long := filepath.Join(dir, "long.mln")
	os.WriteFile(long, bytes.Repeat([]byte("// a comment line\n"), 10000), 0o644)
	big := filepath.Join(dir, "big.mln")
	var consts []string
	for i := range 20 {
		consts = append(consts, fmt.Sprint("P", i))
	}
	os.WriteFile(big, []byte("person = {"+strings.Join(consts, ", ")+"}\nFriends(person, person)\n"+
		"0.5 Friends(x,y) ^ Friends(y,z) => Friends(x,z)\n"), 0o644)
	for _, tc := range []struct{ req, kind, want string }{
		{`{"model":"` + cnf + `","max_memory":"64MB"}`, "error", "a CNF of 100000000 variables and 1 clauses (as its header declares) would need about 13.0 GiB of memory, more than the limit of 61.0 MiB (--max-memory"},
		{`{"model":"` + long + `","max_memory":"1MiB"}`, "error", "more than 128.0 KiB: larger than a text input may be (1/8 of the memory limit; raise --max-memory"},
		{`{"model":"` + big + `","max_memory":"lots"}`, "usage", `max_memory "lots": want a size`},
		{`{"model":"` + big + `","max_memory":"1MB"}`, "usage", `max_memory "1MB": want at least 1MiB`},
	} {
		if e := errorOf(t, load([]byte(tc.req))); e.Kind != tc.kind || !strings.Contains(e.Message, tc.want) {
			t.Errorf("load %s: %+v; want %s %q", tc.req, e, tc.kind, tc.want)
		}
	}
	h := loadOK(t, `{"model":"`+big+`","max_memory":"1GB"}`)
	defer free(h)
	out, _ := run(h, []byte(`{"query":["Friends"],"method":"bp","max_memory":"2MB"}`))
	if e := errorOf(t, out); e.Kind != "error" || !strings.Contains(e.Message, "grounding would create about 8e+03 ground formulas") ||
		!strings.Contains(e.Message, "raise --max-memory") {
		t.Errorf("run under 2MB: %+v", e)
	}
	if left := memlimit.Swap(0); left != 0 {
		t.Errorf("the budget after the calls is %d bytes, want the default put back", left)
	}
	// The same query under the default budget grounds.
	out, _ = run(h, []byte(`{"query":["Friends(P1,P2)"],"method":"bp","allow_unconverged":true,"properties":{"max-iter":"1"}}`))
	var res struct{ Marginals map[string]float64 }
	if err := json.Unmarshal(out, &res); err != nil || len(res.Marginals) != 1 {
		t.Errorf("run under the default budget after: %s", out)
	}
}

// lifted_interrupt stops a run in flight: the run returns the error kind
// "interrupted" soon after, and the model answers the next run.
func TestInterruptStopsTheRun(t *testing.T) {
	h := loadOK(t, `{"model":"`+smokers+`","evidence":["`+smokersDB+`"]}`)
	defer free(h)
	if interrupt(h) {
		t.Fatal("interrupt reported a run in flight before any run")
	}
	done := make(chan []byte)
	go func() {
		out, _ := run(h, []byte(`{"mode":"infer","query":["Cancer"],"method":"gibbs","properties":{"samples":"100000000"},"seed":1}`))
		done <- out
	}()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	var out []byte
	for hit := false; out == nil; {
		hit = interrupt(h) || hit
		select {
		case out = <-done:
		case <-time.After(10 * time.Millisecond):
		}
		if out != nil && !hit {
			t.Fatalf("the run ended with no run in flight seen by interrupt: %s", out)
		}
	}
	t.Logf("stopped %v after the interrupt: %s", time.Since(start).Round(time.Millisecond), out)
	var doc errorDoc
	if err := json.Unmarshal(out, &doc); err != nil || doc.Error.Kind != "interrupted" {
		t.Fatalf("want an error of kind interrupted, got %s", out)
	}
	if again, _ := run(h, []byte(`{"mode":"infer","query":["Cancer"],"method":"lbp"}`)); bytes.HasPrefix(again, []byte(`{"error"`)) {
		t.Fatalf("the model does not answer after the interrupt: %s", again)
	}
	if interrupt(h) || interrupt(h+1000) {
		t.Fatal("interrupt reported a run in flight after the runs ended, or on an unknown handle")
	}
}

// lifted_interrupt_load stops a load in flight while it reads a large
// evidence database (here 300,000 atoms, about a second to read): error
// kind "interrupted", soon after; after it ended there is nothing to stop.
func TestInterruptStopsTheLoad(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.mln")
	db := filepath.Join(dir, "big.db")
	if err := os.WriteFile(model, []byte("Knows(person, person)\nHappy(person)\n1 Knows(x, y) => Happy(x)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := range 300000 {
		fmt.Fprintf(&b, "Knows(P%d, Q%d)\n", i, i%977)
	}
	if err := os.WriteFile(db, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if interruptLoad(7) {
		t.Fatal("interruptLoad reported a load in flight before any load")
	}
	done := make(chan []byte)
	go func() { done <- load([]byte(`{"model":"` + model + `","evidence":["` + db + `"],"token":7}`)) }()
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	var out []byte
	for hit := false; out == nil; {
		hit = interruptLoad(7) || hit
		select {
		case out = <-done:
		case <-time.After(10 * time.Millisecond):
		}
		if out != nil && !hit {
			t.Skipf("the load ended before the interrupt reached it (a fast machine): %.80s", out)
		}
	}
	took := time.Since(start)
	t.Logf("stopped %v after the interrupt: %s", took.Round(time.Millisecond), out)
	var doc errorDoc
	if err := json.Unmarshal(out, &doc); err != nil || doc.Error.Kind != "interrupted" {
		t.Fatalf("want an error of kind interrupted, got %.200s", out)
	}
	if interruptLoad(7) {
		t.Fatal("interruptLoad reported a load in flight after it ended")
	}
}
