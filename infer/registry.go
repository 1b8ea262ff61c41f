package infer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/lifted-dev/lifted/internal/suggest"
)

// Method is a registered inference method: a name the command line's
// --method looks up, the named properties it takes (libDAI style), and a
// constructor. Lifted says whether the compression step colour-passes
// before Run by default (ground vs lifted is a property of compression, not
// of the algorithm: "bp" and "lbp" are one Algorithm).
type Method struct {
	Name    string
	Summary string
	Lifted  bool
	Tasks   []Task     // the tasks it answers
	Props   []Property // the properties it takes, with defaults
	New     func(p Properties) (Algorithm, error)
}

// Property is a named property of a method with its default value.
type Property struct {
	Name    string
	Default string
	Help    string
}

// Supports reports whether the method answers task t.
func (m Method) Supports(t Task) bool {
	for _, x := range m.Tasks {
		if x == t {
			return true
		}
	}
	return false
}

// HasProperty reports whether the method takes the named property.
func (m Method) HasProperty(name string) bool {
	for _, p := range m.Props {
		if p.Name == name {
			return true
		}
	}
	return false
}

var registry struct {
	sync.RWMutex
	order   []string
	methods map[string]Method
}

// Register adds a method. It panics on an empty or repeated name or a nil
// constructor: registration happens in init functions, where such a
// mistake is a programming error.
func Register(m Method) {
	if m.Name == "" || m.New == nil {
		panic("infer: Register needs a name and a constructor")
	}
	registry.Lock()
	defer registry.Unlock()
	if registry.methods == nil {
		registry.methods = map[string]Method{}
	}
	if _, dup := registry.methods[m.Name]; dup {
		panic("infer: method " + m.Name + " registered twice")
	}
	registry.methods[m.Name] = m
	registry.order = append(registry.order, m.Name)
}

// Lookup returns the method registered under name.
func Lookup(name string) (Method, bool) {
	registry.RLock()
	defer registry.RUnlock()
	m, ok := registry.methods[name]
	return m, ok
}

// Methods returns the registered methods in registration order.
func Methods() []Method {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Method, len(registry.order))
	for i, n := range registry.order {
		out[i] = registry.methods[n]
	}
	return out
}

// Names returns the registered names in registration order.
func Names() []string {
	registry.RLock()
	defer registry.RUnlock()
	return append([]string(nil), registry.order...)
}

// New builds the named method with the given properties (missing ones take
// their defaults). Unknown names and properties are errors.
func New(name string, p Properties) (Algorithm, Method, error) {
	m, ok := Lookup(name)
	if !ok {
		return nil, m, &UnknownMethodError{Name: name, Known: Names()}
	}
	for k := range p {
		if !m.HasProperty(k) {
			return nil, m, &PropertyError{Method: name, Name: k, Msg: "is not a property of this method" + propList(m)}
		}
	}
	a, err := m.New(p)
	return a, m, err
}

func propList(m Method) string {
	if len(m.Props) == 0 {
		return " (it takes none)"
	}
	names := make([]string, len(m.Props))
	for i, p := range m.Props {
		names[i] = p.Name
	}
	return " (it takes " + strings.Join(names, ", ") + ")"
}

// UnknownMethodError is returned for a name no method is registered under.
type UnknownMethodError struct {
	Name  string
	Known []string
}

// Error returns the message of the UnknownMethodError.
func (e *UnknownMethodError) Error() string {
	return fmt.Sprintf("unknown method %q (want %s)%s", e.Name, OrList(e.Known), suggest.Hint(e.Name, e.Known))
}

// OrList joins names as "a, b or c".
func OrList(names []string) string {
	switch len(names) {
	case 0:
		return "none"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// PropertyError is a bad property value. When Want is set the value was
// not one of the allowed words; otherwise Msg says what is wrong with it.
type PropertyError struct {
	Method string
	Name   string
	Value  string
	Want   string // the allowed values, for an unknown word
	Msg    string // e.g. "must be in [0, 1), got 2"
}

// Error returns the message of the PropertyError.
func (e *PropertyError) Error() string {
	if e.Want != "" {
		return fmt.Sprintf("%s: unknown %s %q (want %s)", e.Method, e.Name, e.Value, e.Want)
	}
	return fmt.Sprintf("%s: %s %s", e.Method, e.Name, e.Msg)
}

// Properties are a method's named settings as text, e.g. {"damping": "0.5"}.
type Properties map[string]string

// String returns the property or its default.
func (p Properties) String(m Method, name string) string {
	if v, ok := p[name]; ok {
		return v
	}
	for _, q := range m.Props {
		if q.Name == name {
			return q.Default
		}
	}
	return ""
}

// Float parses a property as a number.
func (p Properties) Float(m Method, name string) (float64, error) {
	s := p.String(m, name)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, &PropertyError{Method: m.Name, Name: name, Value: s, Msg: fmt.Sprintf("must be a finite number, got %q", s)}
	}
	return v, nil
}

// Int parses a property as an integer.
func (p Properties) Int(m Method, name string) (int, error) {
	s := p.String(m, name)
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, &PropertyError{Method: m.Name, Name: name, Value: s, Msg: fmt.Sprintf("must be an integer, got %q", s)}
	}
	return v, nil
}

// Describe writes the methods and their properties for a --help text.
func Describe() string {
	var b strings.Builder
	for _, m := range Methods() {
		fmt.Fprintf(&b, "  %-8s %s\n", m.Name, m.Summary)
		for _, p := range m.Props {
			fmt.Fprintf(&b, "           %s=%s  %s\n", p.Name, p.Default, p.Help)
		}
	}
	return b.String()
}
