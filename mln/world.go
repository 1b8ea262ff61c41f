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
		}
		out[d.Name], _ = worldOf(m, db, d, q[i], c[i], o[i])
	}
	return out, nil
}

// worldOf is the world of predicate d, and why: the reason as the summary
// of a run prints it.
func worldOf(m *MLN, db *DB, d *PredDecl, query, cw, ow bool) (bool, string) {
	switch {
	case cw:
		return true, "--cw"
	case ow:
		return false, "--ow"
	case query:
		return false, "queried"
	}
	switch m.Dialect.Dialect {
	case DialectTuffy:
		if d.ClosedWorld {
			return true, "marked * (Tuffy's rule)"
		}
		return false, "not marked * (Tuffy's rule)"
	case DialectPracmln:
		return false, "pracmln's rule: every predicate open"
	}
	switch {
	case d.ClosedWorld:
		return true, "marked *"
	case db != nil && db.m == m && db.Count(d.Index) > 0:
		return true, "not queried, with evidence: Alchemy's rule; --ow opens it"
	}
	return false, "no evidence"
}

// World describes the world assumption of every predicate, as the
// summary of a run prints it: "closed world: Smokes, Friends (not
// queried, with evidence: Alchemy's rule; --ow opens it); open world:
// Cancer (queried)". The arguments are ClosedWorld's, checked by it.
func World(m *MLN, db *DB, query []string, cw, ow []string) (string, error) {
	if _, err := ClosedWorld(m, db, query, cw, ow); err != nil {
		return "", err
	}
	set := func(list []string) map[string]bool {
		out := map[string]bool{}
		for _, s := range list {
			name := strings.TrimSpace(s)
			if i := strings.IndexByte(name, '('); i >= 0 {
				name = strings.TrimSpace(name[:i])
			}
			out[strings.TrimLeft(name, "!?*")] = true
		}
		return out
	}
	q, c, o := set(query), set(cw), set(ow)
	type group struct {
		closed bool
		why    string
		names  []string
	}
	var groups []*group
	for _, d := range m.Preds {
		closed, why := worldOf(m, db, d, q[d.Name], c[d.Name], o[d.Name])
		var g *group
		for _, h := range groups {
			if h.closed == closed && h.why == why {
				g = h
			}
		}
		if g == nil {
			g = &group{closed: closed, why: why}
			groups = append(groups, g)
		}
		g.names = append(g.names, d.Name)
	}
	var parts []string
	for _, closed := range []bool{true, false} {
		var gs []string
		for _, g := range groups {
			if g.closed == closed {
				gs = append(gs, strings.Join(g.names, ", ")+" ("+g.why+")")
			}
		}
		if len(gs) == 0 {
			continue
		}
		w := "open world: "
		if closed {
			w = "closed world: "
		}
		parts = append(parts, w+strings.Join(gs, "; "))
	}
	return strings.Join(parts, "; "), nil
}
