package engine

import (
	"sort"
	"strings"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/suggest"
)

// Named is a run as a front end's user names it: the method by name, its
// settings and properties by name and as text, a MAP query, a dynamic
// run. The command's flags (cmd/lifted) and the Python package's keyword
// arguments (python/native) both fill one and call Resolve, so that the
// two take the same options by the same rule.
type Named struct {
	// Mode is the command: ModeInfer (lifted infer) or ModeMAP (lifted
	// map, whose runs are MAP queries).
	Mode Mode
	// Method is a name of the infer registry; "" is the mode's default
	// (DefaultMethod, DefaultMAPMethod), and the default of a dynamic run
	// is lbp.
	Method string
	// MaxProduct asks lifted infer for a MAP assignment.
	MaxProduct bool
	// Given are the options set by name as the command's flags name them
	// (tol, samples, damping, …; Python's keyword arguments): the settings
	// of Mode (SettingProperties) and the method's other properties. A
	// name no method has is an unknown flag; one the method lacks does not
	// apply to it.
	Given map[string]string
	// Props are the method's properties set explicitly (the command's
	// --prop NAME=VALUE); they override Given.
	Props map[string]string
	// Dynamic, if set, unrolls a dynamic MLN (Protocol "" is fb).
	Dynamic *Dynamic
}

// Resolve sets req's Method, Task, Properties and Dynamic from n, or
// returns a *RequestError (a usage error) naming the option at fault: an
// unknown method or flag, a setting the method does not have, a task the
// method does not answer, dynamic options that contradict each other or
// a dynamic run without query fluents (req.Query, req.QueryFiles).
func (n Named) Resolve(req *Request) error {
	method := n.Method
	if method == "" || (n.Dynamic != nil && method == DefaultMethod) {
		switch {
		case n.Dynamic != nil:
			method = "lbp" // lifted BP's factored frontier
		case n.Mode == ModeMAP:
			method = DefaultMAPMethod
		default:
			method = DefaultMethod
		}
	}
	m, ok := infer.Lookup(method)
	if !ok {
		return requestErrorf("unknown --method %q (want %s)%s", method, infer.OrList(infer.Names()), suggest.Hint(method, infer.Names()))
	}
	if err := n.checkDynamic(m.Name); err != nil {
		return err
	}
	settings, others := map[string]string{}, []string{}
	for k, v := range n.Given {
		if IsSetting(n.Mode, k) {
			settings[k] = v
		} else {
			others = append(others, k)
		}
	}
	props, err := SettingProperties(n.Mode, m.Name, settings)
	if err != nil {
		return err
	}
	sort.Strings(others)
	for _, k := range others {
		switch {
		case m.HasProperty(k):
			props[k] = n.Given[k]
		case !anyHasProperty(k):
			return requestErrorf("unknown flag --%s for 'lifted %s'%s", k, n.Mode, didYouMean(k))
		default:
			return &RequestError{&NotApplicableError{Name: k, Method: m.Name}}
		}
	}
	props2 := make([]string, 0, len(n.Props))
	for k := range n.Props {
		props2 = append(props2, k)
	}
	sort.Strings(props2)
	for _, k := range props2 {
		if !m.HasProperty(k) {
			return requestErrorf("--prop %s=%s: --method %s has no property %q (%s)", k, n.Props[k], m.Name, k, propNames(m))
		}
		props[k] = n.Props[k]
	}
	task := Marginals
	if n.MaxProduct || n.Mode == ModeMAP {
		task = MAP
	}
	if !m.Supports(task) {
		hint := ""
		if task != MAP && m.Supports(MAP) {
			hint = " (it answers MAP queries: add --max-product)"
		}
		return requestErrorf("--method %s does not answer %s queries%s", m.Name, task, hint)
	}
	if d := n.Dynamic; d != nil {
		if len(req.Query) == 0 && len(req.QueryFiles) == 0 {
			return requestErrorf("--dynamic needs query fluents (-q), e.g. -q Cancer")
		}
		dd := *d
		if dd.Protocol == "" {
			dd.Protocol = "fb"
		}
		req.Dynamic = &dd
	}
	req.Method, req.Task, req.Properties = m.Name, task, props
	return nil
}

// checkDynamic refuses what a dynamic run cannot do: MAP, BP's schedule
// (the protocol sets the message order), a protocol for a method without
// one, filtering and smoothing alone at once.
func (n Named) checkDynamic(method string) error {
	d := n.Dynamic
	if d == nil {
		return nil
	}
	if n.Mode == ModeMAP {
		return requestErrorf("map has no dynamic runs (use infer --dynamic)")
	}
	if n.MaxProduct {
		return requestErrorf("--max-product does not apply to --dynamic (--protocol sets BP's message order)")
	}
	if _, ok := n.Given["schedule"]; ok {
		return requestErrorf("--schedule does not apply to --dynamic (--protocol sets BP's message order)")
	}
	switch d.Protocol {
	case "":
	case "fb", "flood":
		if method != "lbp" && method != "bp" {
			return requestErrorf("--protocol applies to --method lbp and bp only")
		}
	default:
		return requestErrorf("unknown --protocol %q (want fb or flood)", d.Protocol)
	}
	if d.Filter && d.Smooth {
		return requestErrorf("--filter and --smooth exclude each other (without either, both are printed)")
	}
	return nil
}

// anyHasProperty reports whether some registered method has the property.
func anyHasProperty(name string) bool {
	for _, m := range infer.Methods() {
		if m.HasProperty(name) {
			return true
		}
	}
	return false
}

// didYouMean is " (did you mean --NAME?)" for the setting or property
// nearest to the unknown name, or "".
func didYouMean(name string) string {
	var names []string
	for _, s := range Settings {
		names = append(names, s.Name)
	}
	for _, m := range infer.Methods() {
		for _, p := range m.Props {
			names = append(names, p.Name)
		}
	}
	if s := suggest.Flag(name, names); s != "" {
		return " (did you mean --" + s + "?)"
	}
	return ""
}

// propNames lists a method's properties for an error message.
func propNames(m infer.Method) string {
	if len(m.Props) == 0 {
		return "it has none"
	}
	names := make([]string, len(m.Props))
	for i, p := range m.Props {
		names[i] = p.Name
	}
	return "it has " + strings.Join(names, ", ")
}
