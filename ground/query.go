package ground

import (
	"fmt"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
)

// Query is a parsed query: atoms whose arguments are variables or
// constants, such as Smokes, Cancer(x) or Friends(Anna, y). Given to
// Ground in Options.QueryAtoms, their predicates are query predicates
// (open-world) and the grounding lists the matching ground atoms in
// Grounding.Queries.
type Query struct {
	m     *mln.MLN
	atoms []*mln.Atom
	names []string // predicate names, one per atom
}

// QueryAtom is a ground query atom that is a variable of the graph.
type QueryAtom struct {
	Name string // as "Friends(Anna,Bob)"
	Var  int32
}

// QueryError is a query that does not fit the MLN or its evidence: an
// unknown predicate or constant, a syntax error, or no query at all (see
// Query.Need). Its text names the MLN's predicates where that helps.
type QueryError struct{ Err error }

// Error returns the message of the QueryError.
func (e *QueryError) Error() string { return e.Err.Error() }

// Unwrap returns the error the QueryError wraps.
func (e *QueryError) Unwrap() error { return e.Err }

// ParseQuery reads query values, as given to -q: predicate names or atoms
// whose arguments are variables or constants, several to a value separated
// by commas outside parentheses and quotes. The constants must be in the
// domains of db (nil: those m declares). Errors are *QueryError. No atoms
// at all is an empty query, not an error.
func ParseQuery(m *mln.MLN, db *mln.DB, values []string) (*Query, error) {
	if db == nil {
		db = mln.NewDB(m)
	}
	q := &Query{m: m}
	var items []string
	for _, v := range values {
		items = append(items, SplitQuery(v)...)
	}
	if len(items) == 0 {
		return q, nil
	}
	var names []string
	for _, it := range items {
		name := it
		if i := strings.IndexByte(name, '('); i >= 0 {
			name = name[:i]
		}
		names = append(names, strings.TrimSpace(name))
	}
	if _, err := mln.ClosedWorld(m, db, names, nil, nil); err != nil {
		return nil, &QueryError{fmt.Errorf("-q: %v (this MLN declares %s)", err, predList(m))}
	}
	atoms, err := mlnfile.ReadQuery(strings.NewReader(strings.Join(items, "\n")), "-q", m)
	if err != nil {
		return nil, &QueryError{err}
	}
	for _, a := range atoms {
		for _, t := range a.Args {
			if !t.IsVar && db.ConstIndex(t.Type, t.Name) < 0 {
				return nil, &QueryError{fmt.Errorf("-q: constant %s in %s is not in the domain of type %s", t.Name, a.String(), t.Type)}
			}
		}
	}
	q.atoms, q.names = atoms, names
	return q, nil
}

// Len is the number of query atoms (0 for a nil Query).
func (q *Query) Len() int {
	if q == nil {
		return 0
	}
	return len(q.atoms)
}

// Preds returns the names of the query predicates, one per atom.
func (q *Query) Preds() []string {
	if q == nil {
		return nil
	}
	return q.names
}

// Need returns nil if q has atoms and otherwise a *QueryError saying that
// a query is needed.
func (q *Query) Need() error {
	if q.Len() > 0 {
		return nil
	}
	var m *mln.MLN
	if q != nil {
		m = q.m
	}
	return &QueryError{fmt.Errorf("no query: give the predicates to infer with -q, e.g. -q %s (this MLN declares %s)", firstPred(m), predList(m))}
}

// SplitQuery splits s at commas outside parentheses and quotes and trims
// the parts, dropping empty ones.
func SplitQuery(s string) []string {
	var out []string
	depth, start := 0, 0
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == ',' && depth == 0:
			if p := strings.TrimSpace(s[start:i]); p != "" {
				out = append(out, p)
			}
			start = i + 1
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		out = append(out, p)
	}
	return out
}

func predList(m *mln.MLN) string {
	var names []string
	if m != nil {
		for _, p := range m.Preds {
			names = append(names, p.Name)
		}
	}
	if len(names) == 0 {
		return "no predicates"
	}
	return strings.Join(names, ", ")
}

func firstPred(m *mln.MLN) string {
	if m == nil || len(m.Preds) == 0 {
		return "P"
	}
	return m.Preds[0].Name
}

// resolve lists the ground atoms matching the query atoms that are
// variables of the graph: in the order of the atoms, each in constant
// order, without repeats. Evidence atoms are left out.
func (q *Query) resolve(gr *Grounding) []QueryAtom {
	if q.Len() == 0 {
		return nil
	}
	db := gr.DB
	if db == nil {
		db = mln.NewDB(gr.MLN)
	}
	var out []QueryAtom
	seen := map[int32]bool{}
	for _, a := range q.atoms {
		d := gr.MLN.Pred(a.Pred)
		want := make([]int, len(a.Args)) // constant index, or -1 for a variable
		missing := false
		for i, t := range a.Args {
			want[i] = -1
			if !t.IsVar {
				if want[i] = db.ConstIndex(t.Type, t.Name); want[i] < 0 {
					missing = true
				}
			}
		}
		if missing {
			continue
		}
		gr.Each(d.Index, func(args []int) bool {
			if !matches(a, want, args) {
				return true
			}
			if v, _ := gr.Var(d.Index, args); v >= 0 && !seen[v] {
				seen[v] = true
				out = append(out, QueryAtom{Name: gr.Name(d.Index, args), Var: v})
			}
			return true
		})
	}
	return out
}

// matches reports whether a ground atom's constants fit a query atom:
// constants equal, repeated variables bound alike.
func matches(a *mln.Atom, want, args []int) bool {
	for i, w := range want {
		if w >= 0 && args[i] != w {
			return false
		}
		if w < 0 {
			for j := 0; j < i; j++ {
				if a.Args[j].IsVar && a.Args[j].Name == a.Args[i].Name && args[j] != args[i] {
					return false
				}
			}
		}
	}
	return true
}
