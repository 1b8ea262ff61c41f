//go:build cgo

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/lifted-dev/lifted/engine"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/pos"
)

// The JSON calls behind the C functions, in plain Go (tested by
// api_test.go without cgo's types).

// loadRequest is lifted_load's argument.
type loadRequest struct {
	Model    string   `json:"model"`
	Format   string   `json:"format"`
	Evidence []string `json:"evidence"`
	Dynamic  bool     `json:"dynamic"`
	// MaxMemory is the command's --max-memory ("4GB"; "" the default).
	MaxMemory string `json:"max_memory"`
	// Token, if not 0, names the load for lifted_interrupt_load, which
	// stops it (Ctrl-C while a large evidence database is read).
	Token int64 `json:"token"`
}

// loadResponse is what lifted_load returns on success.
type loadResponse struct {
	Handle   int64    `json:"handle"`
	Format   string   `json:"format"`
	Warnings []string `json:"warnings"`
}

// runRequest is lifted_run's argument: the command's flags as JSON. Mode
// is "infer" (lifted infer), "map" (lifted map: MAP, method lp by default)
// or "compress" (lifted compress: colour passing only).
type runRequest struct {
	Mode             string            `json:"mode"`
	Query            []string          `json:"query"`
	QueryFiles       []string          `json:"query_files"`
	Method           string            `json:"method"`
	MaxProduct       bool              `json:"max_product"`
	Properties       map[string]string `json:"properties"`
	Seed             uint64            `json:"seed"`
	Workers          int               `json:"workers"`
	ColourMode       string            `json:"color_mode"`
	AllowUnconverged bool              `json:"allow_unconverged"`
	RequireConverged bool              `json:"require_converged"`
	ClosedWorld      []string          `json:"cw"`
	OpenWorld        []string          `json:"ow"`
	DefaultWeight    *float64          `json:"default_weight"`
	MaxGround        int64             `json:"max_ground"`
	AlchemyCNF       bool              `json:"alchemy_cnf"`
	MergeDuplicates  bool              `json:"merge_duplicates"`
	Construction     string            `json:"construction"`
	Tolerance        float64           `json:"tolerance"`
	Dynamic          *dynamicRequest   `json:"dynamic"`
	MaxMemory        string            `json:"max_memory"` // --max-memory
}

// memory orders the calls by memory budget: memlimit's budget is the
// process's, so a call with max_memory holds memory exclusively (the
// calls before it finish, later ones wait) while it runs under its budget,
// and then puts back the budget before it; calls without one share it and
// run in parallel under the process's budget (the default: a share of the
// available memory).
var memory sync.RWMutex

// withMemory runs f under the budget s (the command's --max-memory: "4GB";
// "" the process's budget as it is).
func withMemory(s string, f func() error) error {
	if s == "" {
		memory.RLock()
		defer memory.RUnlock()
		return f()
	}
	n, err := memlimit.ParseBudget(s)
	if err != nil {
		return usagef("max_memory %q: %v", s, err)
	}
	memory.Lock()
	defer memory.Unlock()
	defer memlimit.Set(memlimit.Swap(n))
	return f()
}

type dynamicRequest struct {
	Horizon  *int   `json:"horizon"`
	Protocol string `json:"protocol"`
	Filter   bool   `json:"filter"`
	Smooth   bool   `json:"smooth"`
}

// errorDoc is the JSON of a failed call: {"error": {...}}.
type errorDoc struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	// Kind is "usage" (a wrong call: the command's "Run 'lifted --help'"
	// errors), "not_converged" (an iterative method that did not converge:
	// the command's exit status 3), "interrupted" (a run stopped by
	// lifted_interrupt: the command's Ctrl-C) or "error".
	Kind    string `json:"kind"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
}

// message is one of a run's lines for the user (engine.Message).
type message struct {
	Level string `json:"level"` // info, warning or alert
	Text  string `json:"text"`
}

// usageErr marks a wrong call.
type usageErr struct{ error }

func usagef(format string, args ...any) error { return usageErr{fmt.Errorf(format, args...)} }

// entry is a loaded model; its mutex runs its queries one at a time (a
// Model is shared by Runs one at a time).
type entry struct {
	mu    sync.Mutex
	model *engine.Model

	// cancel stops the run in flight (lifted_interrupt); nil between
	// runs. Guarded by cancelMu, not mu, which the run holds.
	cancelMu sync.Mutex
	cancel   context.CancelFunc
}

// begin registers the context of a run on e, to be cancelled by
// interrupt; the returned function ends it.
func (e *entry) begin() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	e.cancelMu.Lock()
	e.cancel = cancel
	e.cancelMu.Unlock()
	return ctx, func() {
		e.cancelMu.Lock()
		e.cancel = nil
		e.cancelMu.Unlock()
		cancel()
	}
}

// interrupt cancels the run in flight on model h, as Ctrl-C does the
// command's: lifted_interrupt. It reports whether a run was in flight (the
// caller repeats it until its call returns: a run still waiting for the
// model's lock, or still reading its request, registers itself later).
func interrupt(h int64) bool {
	e := lookup(h)
	if e == nil {
		return false
	}
	e.cancelMu.Lock()
	defer e.cancelMu.Unlock()
	if e.cancel == nil {
		return false
	}
	e.cancel()
	return true
}

// loads are the loads in flight that lifted_interrupt_load can stop, by
// the caller's token.
var loads struct {
	sync.Mutex
	m map[int64]context.CancelFunc
}

// beginLoad registers a load under token (0: none); the returned function
// ends it.
func beginLoad(token int64) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	if token == 0 {
		return ctx, cancel
	}
	loads.Lock()
	if loads.m == nil {
		loads.m = map[int64]context.CancelFunc{}
	}
	loads.m[token] = cancel
	loads.Unlock()
	return ctx, func() {
		loads.Lock()
		delete(loads.m, token)
		loads.Unlock()
		cancel()
	}
}

// interruptLoad stops the load registered under token: lifted_interrupt_load.
// It reports whether such a load was in flight (the caller repeats it until
// the load returns: one still decoding its request registers later).
func interruptLoad(token int64) bool {
	loads.Lock()
	defer loads.Unlock()
	cancel, ok := loads.m[token]
	if ok {
		cancel()
	}
	return ok
}

var handles struct {
	sync.Mutex
	next int64
	m    map[int64]*entry
}

func lookup(h int64) *entry {
	handles.Lock()
	defer handles.Unlock()
	return handles.m[h]
}

// load reads a model once: lifted_load.
func load(reqJSON []byte) (out []byte) {
	defer recoverInto(&out)
	var req loadRequest
	if err := decode(reqJSON, &req); err != nil {
		return errorJSON(err)
	}
	if req.Model == "" {
		return errorJSON(usagef("no model: the load request needs \"model\""))
	}
	ctx, end := beginLoad(req.Token)
	defer end()
	var m *engine.Model
	err := withMemory(req.MaxMemory, func() (err error) {
		m, err = engine.LoadContext(ctx, req.Model, engine.LoadOptions{Format: req.Format, Evidence: req.Evidence, Dynamic: req.Dynamic})
		return err
	})
	if err != nil && ctx.Err() != nil {
		return errorJSON(interrupted{fmt.Errorf("%s: interrupted while reading", req.Model)})
	}
	if err != nil {
		return errorJSON(phrase(req.Model, err))
	}
	handles.Lock()
	if handles.m == nil {
		handles.m = map[int64]*entry{}
	}
	handles.next++
	h := handles.next
	handles.m[h] = &entry{model: m}
	handles.Unlock()
	resp := loadResponse{Handle: h, Format: m.Format, Warnings: []string{}}
	for _, w := range m.Warnings {
		resp.Warnings = append(resp.Warnings, w.Error())
	}
	b, _ := json.Marshal(resp)
	return b
}

// free forgets a model: lifted_free. It reports whether h was loaded.
func free(h int64) bool {
	handles.Lock()
	defer handles.Unlock()
	_, ok := handles.m[h]
	delete(handles.m, h)
	return ok
}

// live is the number of loaded models: lifted_handles.
func live() int {
	handles.Lock()
	defer handles.Unlock()
	return len(handles.m)
}

// run answers a query on a loaded model: lifted_run. It returns the result
// JSON (engine.WriteJSON, as the command's --output-format json; for
// compress the command's statistics) or an error JSON, and the run's
// messages.
func run(h int64, reqJSON []byte) (out, msgs []byte) {
	defer recoverInto(&out)
	e := lookup(h)
	if e == nil {
		return errorJSON(fmt.Errorf("no model with handle %d (freed, or never loaded)", h)), nil
	}
	var rr runRequest
	if err := decode(reqJSON, &rr); err != nil {
		return errorJSON(err), nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	ctx, end := e.begin()
	defer end()
	m := e.model
	req, err := request(m, &rr)
	if err != nil {
		return errorJSON(phrase(m.Path, err)), nil
	}
	var ms []message
	req.Warn = func(ws []*pos.Error) {
		for _, w := range ws {
			ms = append(ms, message{"warning", w.Error()})
		}
	}
	var buf bytes.Buffer
	if rr.Mode == "compress" {
		var res *engine.Result
		err := withMemory(rr.MaxMemory, func() (err error) {
			res, err = m.Compress(ctx, req)
			return err
		})
		if err != nil {
			return errorJSON(phrase(m.Path, err)), nil
		}
		enc := json.NewEncoder(&buf)
		if res.Route == engine.RouteGraph {
			err = enc.Encode(res.Stats.Stats)
		} else {
			err = enc.Encode(res.Stats)
		}
		if err != nil {
			return errorJSON(err), nil
		}
		return buf.Bytes(), messagesJSON(ms)
	}
	var res *engine.Result
	err = withMemory(rr.MaxMemory, func() (err error) {
		res, err = m.Run(ctx, req)
		return err
	})
	if err != nil {
		return errorJSON(phrase(m.Path, err)), messagesJSON(ms)
	}
	if res.Interrupted() {
		// As the command without --allow-partial: an answer cut short by
		// lifted_interrupt is not returned.
		return errorJSON(interrupted{fmt.Errorf("%s: %s", m.Path, res.InterruptedNote())}), messagesJSON(ms)
	}
	for _, x := range res.Messages() {
		ms = append(ms, message{[...]string{"info", "warning", "alert"}[x.Level], x.Text})
	}
	if err := engine.WriteJSON(&buf, res); err != nil {
		return errorJSON(err), nil
	}
	return buf.Bytes(), messagesJSON(ms)
}

// request turns a run request into the engine's Request as cmd/lifted's
// flags do (infer.go's request, dynamic.go); the settings and their
// defaults are engine.SettingProperties, as there.
func request(m *engine.Model, rr *runRequest) (engine.Request, error) {
	req := engine.Request{Query: rr.Query, QueryFiles: rr.QueryFiles, Seed: rr.Seed,
		Workers: rr.Workers, ColourMode: rr.ColourMode, AllowUnconverged: rr.AllowUnconverged, RequireConverged: rr.RequireConverged, LogZ: true,
		Tolerance: rr.Tolerance,
		Ground: engine.GroundOptions{ClosedWorld: splitAll(rr.ClosedWorld), OpenWorld: splitAll(rr.OpenWorld),
			DefaultWeight: rr.DefaultWeight, MaxGround: rr.MaxGround, AlchemyCNF: rr.AlchemyCNF,
			MergeDuplicates: rr.MergeDuplicates, Construction: rr.Construction}}
	if err := engine.CheckOptions(req); err != nil {
		return req, usageErr{err}
	}
	if rr.Mode == "compress" {
		if rr.Method != "" || rr.MaxProduct || len(rr.Properties) > 0 || rr.Dynamic != nil {
			return req, usagef("compress takes no method, properties, MAP or dynamic options")
		}
		return req, nil
	}
	n := engine.Named{Method: rr.Method, MaxProduct: rr.MaxProduct, Given: rr.Properties}
	switch rr.Mode {
	case "infer", "":
	case "map":
		n.Mode = engine.ModeMAP
	default:
		return req, usagef("unknown mode %q (want infer, map or compress)", rr.Mode)
	}
	if d := rr.Dynamic; d != nil {
		if !m.IsMLN() {
			return req, usagef("--dynamic needs an MLN")
		}
		horizon := -1
		if d.Horizon != nil {
			horizon = *d.Horizon
		}
		n.Dynamic = &engine.Dynamic{Horizon: horizon, Protocol: d.Protocol, Filter: d.Filter, Smooth: d.Smooth}
	}
	return req, n.Resolve(&req)
}

// splitAll splits comma-separated items, as the command's string-slice
// flags (--cw, --ow) do.
func splitAll(items []string) []string {
	var out []string
	for _, s := range items {
		for _, x := range strings.Split(s, ",") {
			if x = strings.TrimSpace(x); x != "" {
				out = append(out, x)
			}
		}
	}
	return out
}

// phrase words the engine's errors as the command does (engine.Explain,
// as cmdError in cmd/lifted/infer.go): request mistakes as usage errors
// naming the flags, runs that did not converge with what to try.
func phrase(path string, err error) error {
	err = engine.Explain(path, err)
	var x *engine.Explained
	var nc *infer.NotConvergedError
	switch {
	case errors.As(err, &x) && x.Usage:
		return usageErr{err}
	case errors.As(err, &x) && x.Interrupted:
		return interrupted{err}
	case errors.As(err, &nc):
		return notConverged{err}
	}
	return err
}

type notConverged struct{ error }

// interrupted is a run stopped by lifted_interrupt: error kind
// "interrupted" (the Python package raises KeyboardInterrupt).
type interrupted struct{ error }

func (e interrupted) Unwrap() error { return e.error }

func (e notConverged) Unwrap() error { return e.error }
func (e usageErr) Unwrap() error     { return e.error }

// errorJSON is the error document of err, with the position it names.
func errorJSON(err error) []byte {
	body := errorBody{Kind: "error", Message: err.Error()}
	var ue usageErr
	var nc notConverged
	var ie interrupted
	switch {
	case errors.As(err, &ue):
		body.Kind = "usage"
	case errors.As(err, &ie):
		body.Kind = "interrupted"
	case errors.As(err, &nc):
		body.Kind = "not_converged"
	}
	var pe *pos.Error
	var pl pos.ErrorList
	switch {
	case errors.As(err, &pe):
		body.File, body.Line, body.Column = pe.Pos.File, pe.Pos.Line, pe.Pos.Col
	case errors.As(err, &pl) && len(pl) > 0:
		body.File, body.Line, body.Column = pl[0].Pos.File, pl[0].Pos.Line, pl[0].Pos.Col
	}
	b, _ := json.Marshal(errorDoc{body})
	return b
}

func messagesJSON(ms []message) []byte {
	if len(ms) == 0 {
		return nil
	}
	b, _ := json.Marshal(ms)
	return b
}

// decode reads a request strictly: an unknown key is a usage error.
func decode(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return usagef("bad request JSON: %v", err)
	}
	return nil
}

// recoverInto turns a panic into an error document: a library must not
// take its host process down.
func recoverInto(out *[]byte) {
	if r := recover(); r != nil {
		*out = errorJSON(fmt.Errorf("internal error (please report): %v\n%s", r, debug.Stack()))
	}
}

// decodeHandle reads the handle of a successful load response.
func decodeHandle(out []byte, h *loadResponse) bool {
	return bytes.HasPrefix(out, []byte(`{"handle":`)) && json.Unmarshal(out, h) == nil
}
