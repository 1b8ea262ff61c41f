package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/infer/mcmc"
)

// Mode is the kind of query a front end (the command line, the Python
// package) builds a Request for; it decides which Settings it takes and
// their defaults.
type Mode int

const (
	// ModeInfer is "lifted infer": marginals, or MAP with max-product.
	ModeInfer Mode = iota
	// ModeMAP is "lifted map": MAP, DefaultMAPMethod by default.
	ModeMAP
)

// String is the mode's subcommand: "infer" or "map".
func (m Mode) String() string {
	if m == ModeMAP {
		return "map"
	}
	return "infer"
}

// Setting is a method property that the front ends take by its own name
// (the command's --tol, --samples; the Python keyword tol=, samples=)
// rather than as a generic NAME=VALUE property, with the default they pass
// to every method that has the property.
type Setting struct {
	Name string
	// Default is the value's type and default: string, float64, int or
	// time.Duration. A string default "" is passed to no method (the
	// engine then chooses: see lp's symmetry).
	Default any
	Help    string
	// Infer and MAP say which modes take it (the samplers' settings are
	// infer's only, the LP's map's only).
	Infer, MAP bool
}

// Settings are the method settings of lifted infer and lifted map, in the
// order of their help.
var Settings = []Setting{
	{"schedule", "flood", "message schedule: flood or seq", true, true},
	{"damping", 0.0, "damping in [0,1): weight of the previous message", true, true},
	{"tol", 1e-8, "convergence tolerance on the largest message change", true, true},
	{"max-iter", 1000, "maximum BP iterations", true, true},
	{"samples", 1000, "samplers: samples each chain keeps after the burn-in (0: until --time-limit)", true, false},
	{"burn-in", 100, "samplers: steps each chain discards first", true, false},
	{"chains", 0, "samplers: independent chains (0: " + strconv.Itoa(mcmc.DefaultChains) + ", whatever the cores, so that the answer does not depend on the machine)", true, false},
	{"time-limit", time.Duration(0), "samplers, maxwalksat, lp, ilp, map-auto: the answer so far after this long, e.g. 30s, marked time-limited, exit 0 (0: no limit: every default budget counts work, so the same seed gives the same bytes under any load; with a limit the answer depends on the machine's speed and load)", true, true},
	{"tries", 1, "maxwalksat: restarts from a random world", true, true},
	{"max-flips", 100000, "maxwalksat: steps per try", true, true},
	{"noise", 0.5, "maxwalksat: probability of a random-walk step", true, true},
	{"block-size", mcmc.DefaultBlockSize, "bgibbs: most variables in a block", true, false},
	{"block-states", mcmc.DefaultBlockStates, "bgibbs: most joint states of a block", true, false},
	{"relaxation", "cycle", "lp: local (the local polytope) or cycle (plus cycle inequalities by cutting planes)", false, true},
	{"symmetry", "", "lp: none, colour (LOCAL only), orbits (default for factor graphs) or renaming (default for MLNs)", false, true},
}

// mapHelp are the helps of settings that say less in lifted map, which
// has no samplers.
var mapHelp = map[string]string{
	"time-limit": "maxwalksat, lp, ilp, map-auto: the answer so far after this long, e.g. 30s, marked time-limited, exit 0 (0: no limit: every default budget counts work, so the same seed gives the same bytes under any load; with a limit the answer depends on the machine's speed and load)",
	"tol":        "BP: convergence tolerance on the largest message change; lp, ilp: a cut violated by less counts as satisfied (their default: 1e-6)",
}

// HelpIn is the setting's help in mode.
func (s Setting) HelpIn(mode Mode) string {
	if h, ok := mapHelp[s.Name]; ok && mode == ModeMAP {
		return h
	}
	return s.Help
}

// In reports whether mode takes the setting.
func (s Setting) In(mode Mode) bool {
	if mode == ModeMAP {
		return s.MAP
	}
	return s.Infer
}

// DefaultText is the default as text, as a command-line flag prints it
// (strconv's shortest form for numbers).
func (s Setting) DefaultText() string {
	switch d := s.Default.(type) {
	case string:
		return d
	case float64:
		return strconv.FormatFloat(d, 'g', -1, 64)
	case int:
		return strconv.Itoa(d)
	case time.Duration:
		return d.String()
	}
	return fmt.Sprint(s.Default)
}

// defaultFor is the default that mode passes to method: DefaultText, but
// lifted map leaves lp and ilp their own tolerance (1e-6: BP's 1e-8 is too
// tight for cut violations), as it leaves every method its own symmetry.
// bgibbs is left its block bounds: block-size or block-states given asks
// it for enumerated blocks instead of its junction-tree blocks, so
// passing their defaults would turn those off for every run.
func (s Setting) defaultFor(mode Mode, method string) (string, bool) {
	if mode == ModeMAP && s.Name == "tol" && (method == "lp" || method == "ilp") {
		return "", false
	}
	if method == "bgibbs" && (s.Name == "block-size" || s.Name == "block-states") {
		return "", false
	}
	d := s.DefaultText()
	return d, d != ""
}

// IsSetting reports whether mode takes name as a setting.
func IsSetting(mode Mode, name string) bool {
	for _, s := range Settings {
		if s.Name == name && s.In(mode) {
			return true
		}
	}
	return false
}

// NotApplicableError is a setting given for a method that does not have
// it.
type NotApplicableError struct{ Name, Method string }

// Error returns the message of the NotApplicableError.
func (e *NotApplicableError) Error() string {
	if e.Name == "time-limit" {
		return fmt.Sprintf("--time-limit refused: --method %s cannot stop early with an answer so far (methods with a time limit: %s)", e.Method, strings.Join(timeLimitMethods(), ", "))
	}
	return fmt.Sprintf("--%s does not apply to --method %s", e.Name, e.Method)
}

// timeLimitMethods names the registered methods with a time-limit.
func timeLimitMethods() []string {
	var out []string
	for _, m := range infer.Methods() {
		if m.HasProperty("time-limit") {
			out = append(out, m.Name)
		}
	}
	return out
}

// SettingProperties is the one rule for a front end's settings: the
// properties of a request to method in mode. given holds the settings the
// caller set (name → value as text; names that are not settings of mode
// are ignored): each is passed, and is a *NotApplicableError (in a
// *RequestError) where the method lacks the property. Every other setting
// of mode is passed at its default where the method has the property (so
// lifted infer passes tol=1e-8 to lp, and lifted map does not). An
// unknown method is a *RequestError around *infer.UnknownMethodError.
func SettingProperties(mode Mode, method string, given map[string]string) (infer.Properties, error) {
	m, ok := infer.Lookup(method)
	if !ok {
		return nil, &RequestError{&infer.UnknownMethodError{Name: method, Known: infer.Names()}}
	}
	props := infer.Properties{}
	for _, s := range Settings {
		if !s.In(mode) {
			continue
		}
		v, set := given[s.Name]
		switch {
		case set && m.HasProperty(s.Name):
			props[s.Name] = v
		case set:
			return nil, &RequestError{&NotApplicableError{Name: s.Name, Method: m.Name}}
		case m.HasProperty(s.Name):
			if d, ok := s.defaultFor(mode, m.Name); ok {
				props[s.Name] = d
			}
		}
	}
	return props, nil
}

// SettingMethods names the registered methods that have the setting's
// property and answer a query of mode (lifted map: MAP queries), for
// help that says which settings apply to which methods.
func SettingMethods(mode Mode, name string) []string {
	var out []string
	for _, m := range infer.Methods() {
		if m.HasProperty(name) && (mode == ModeInfer || m.Supports(MAP)) {
			out = append(out, m.Name)
		}
	}
	return out
}
