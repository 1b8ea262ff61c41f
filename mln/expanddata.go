package mln

import (
	"fmt"
	"slices"
)

// NeedsExpansion reports whether a formula of m has a per-constant
// variable ("+x") or a starred atom ("*P"): whether Expand changes m.
func NeedsExpansion(m *MLN) bool {
	if HasPerConstantVar(m) {
		return true
	}
	star := false
	for _, f := range m.Formulas {
		Inspect(f.Expr, func(e Expr) bool {
			if a, ok := e.(*Atom); ok && a.Star {
				star = true
			}
			return !star
		})
	}
	return star
}

// HasPerConstantVar reports whether a formula of m has a per-constant
// variable ("+x").
func HasPerConstantVar(m *MLN) bool {
	for _, f := range m.Formulas {
		for _, v := range f.Vars {
			if v.PerConstant {
				return true
			}
		}
	}
	return false
}

// ExpandForData expands m for a set of databases, as Alchemy does before it
// learns weights: read reads the databases against a model (for instance
// with ReadDBFiles); it is called with m and, if m needs expansion (see
// NeedsExpansion), again with the expanded model, whose formulas name
// constants that then belong to every database's domain. "+x" is expanded
// over the constants m declares and then those of the databases, in
// order, each once — one formula and so one weight per constant — and
// starred atoms into their sign combinations (see Expand).
//
// It returns the model (m itself when nothing is expanded) and the
// databases read against it.
func ExpandForData(m *MLN, read func(*MLN) ([]*DB, error)) (*MLN, []*DB, error) {
	dbs, err := read(m)
	if err != nil {
		return nil, nil, err
	}
	domain := func(typ string) []string {
		var out []string
		seen := map[string]bool{}
		add := func(cs []string) {
			for _, c := range cs {
				if !seen[c] {
					seen[c] = true
					out = append(out, c)
				}
			}
		}
		if t := m.Type(typ); t != nil {
			add(t.Constants)
		}
		for _, db := range dbs {
			add(db.Domain(typ))
		}
		return out
	}
	m2, _, err := Expand(m, domain)
	if err != nil || m2 == m {
		return m, dbs, err
	}
	dbs, err = read(m2)
	return m2, dbs, err
}

// ExpandForHoldout expands m for learning from the training database made
// of the files train and testing on each of the holdout databases (one
// file each): "+x" over the constants of the training database, starred
// atoms into their sign combinations (see Expand). read reads database
// files against m (ReadDBFiles, for instance); it is called only when m
// has per-constant variables. The copies of a "+x" formula name the
// training constants, which then belong to every database's domain, so
// each holdout database must have the same constants for the types of "+"
// variables; otherwise the error says which differs.
func ExpandForHoldout(m *MLN, train, holdout []string, read func(m *MLN, files ...string) (*DB, error)) (*MLN, error) {
	if !HasPerConstantVar(m) {
		out, _, err := Expand(m, nil)
		return out, err
	}
	tdb, err := read(m, train...)
	if err != nil {
		return nil, err
	}
	for _, path := range holdout {
		hdb, err := read(m, path)
		if err != nil {
			return nil, err
		}
		for _, f := range m.Formulas {
			for _, v := range f.Vars {
				a, b := slices.Sorted(slices.Values(tdb.Domain(v.Type))), slices.Sorted(slices.Values(hdb.Domain(v.Type)))
				if v.PerConstant && !slices.Equal(a, b) {
					return nil, fmt.Errorf("%s: formula %q: per-constant variable +%s: %s has %d constants of type %s, the training data %d, not the same; per-constant weights need the same constants in every database (drop the +, or leave out --holdout)",
						f.Pos, f.Text, v.Name, path, len(b), v.Type, len(a))
				}
			}
		}
	}
	out, _, err := Expand(m, tdb.Domain)
	return out, err
}
