package mln

import (
	"fmt"
	"strings"

	"github.com/lifted-dev/lifted/internal/suggest"
)

// ClosedWorld decides, the way Alchemy's infer does, which predicates are
// closed-world (every ground atom missing from the evidence is false) and
// which are open-world (missing atoms are unknown, to be inferred).
//
// By default (m.Dialect: Alchemy and LoMRF) a predicate is closed-world if
// it is not queried and has at least one atom in db (of any truth value:
// "?" atoms are explicit exceptions to the closed world), or if it was
// declared closed with Tuffy's "*P(...)" syntax. Query predicates and
// predicates without evidence are open-world. Under Tuffy's rule only the
// "*"-marked predicates that are not queried are closed-world; under
// pracmln's none is. The cw and ow lists override the default. Names in query,
// cw and ow may be written as atoms ("Smokes(x)"); only the predicate name
// counts. db may be nil (no evidence).
//
// It is an error to name an unknown predicate, to put a predicate in both cw
// and ow, or to make a query predicate closed-world.
func ClosedWorld(m *MLN, db *DB, query []string, cw, ow []string) (map[string]bool, error) {
	idx := func(list []string, what string) (map[int]bool, error) {
		set := map[int]bool{}
		for _, s := range list {
			name := strings.TrimSpace(s)
			if i := strings.IndexByte(name, '('); i >= 0 {
				name = strings.TrimSpace(name[:i])
			}
			name = strings.TrimLeft(name, "!?*")
			if name == "" {
				continue
			}
			d := m.Pred(name)
			if d == nil {
				msg := fmt.Sprintf("unknown predicate %q in the %s list", name, what)
				names := make([]string, len(m.Preds))
				for i, p := range m.Preds {
					names[i] = p.Name
				}
				if sg := suggest.Closest(name, names); sg != "" {
					msg += fmt.Sprintf("; did you mean %q?", sg)
				}
				return nil, fmt.Errorf("%s", msg)
			}
			set[d.Index] = true
		}
		return set, nil
	}
	q, err := idx(query, "query")
	if err != nil {
		return nil, err
	}
	c, err := idx(cw, "closed-world")
	if err != nil {
		return nil, err
	}
	o, err := idx(ow, "open-world")
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(m.Preds))
	for _, d := range m.Preds {
		i := d.Index
		switch {
		case c[i] && o[i]:
			return nil, fmt.Errorf("predicate %q is listed as both closed-world and open-world", d.Name)
		case c[i] && q[i]:
			return nil, fmt.Errorf("query predicate %q cannot be closed-world", d.Name)
		case c[i]:
			out[d.Name] = true
		case o[i], q[i]:
			out[d.Name] = false
		default:
			switch m.Dialect.Dialect {
			case DialectTuffy:
				out[d.Name] = d.ClosedWorld
			case DialectPracmln:
				out[d.Name] = false
			default:
				out[d.Name] = d.ClosedWorld || db != nil && db.m == m && db.Count(i) > 0
			}
		}
	}
	return out, nil
}
