package mln

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/pos"
)

// Cardinality is a linear cardinality constraint Σ_i a_i·|P_i| cmp K, a
// hard formula of its own line ("|AuxBond| - |H| = 0", "2 |A| + |B| <= 5"):
// |P| is the number of true ground atoms of P. A constraint on one
// predicate with coefficient 1 and =, <= or >= is the Exists it is
// (|P| = k is EXIST=k x1,…,xn P(x1,…,xn)); Cardinality holds the others.
// Cmp is "=", "<=", ">=" or "!=" (< and > are read as <= and >= with K
// moved by one); K may be negative. Only package wfomc computes it; the
// grounder refuses it (CheckNoCardinality).
type Cardinality struct {
	Terms []CardTerm
	Cmp   string
	K     int
	Pos   pos.Position
}

// CardTerm is a_i·|P_i|.
type CardTerm struct {
	Coef int
	Pred string
	Pos  pos.Position
}

// Holds says whether a sum Σ a_i·|P_i| of s meets the constraint.
func (c *Cardinality) Holds(s int64) bool {
	k := int64(c.K)
	switch c.Cmp {
	case "=":
		return s == k
	case "<=":
		return s <= k
	case ">=":
		return s >= k
	case "!=":
		return s != k
	}
	return false
}

// Position returns the position of the first term.
func (c *Cardinality) Position() pos.Position { return c.Pos }

func (*Cardinality) expr() {}

// String prints the constraint as written: "|A| - 2 |B| <= 3".
func (c *Cardinality) String() string {
	var b strings.Builder
	for i, t := range c.Terms {
		a := t.Coef
		switch {
		case i == 0 && a < 0:
			// "-2 |A|": a line that starts with "-|" would not read back.
			b.WriteString(strconv.Itoa(a) + " |" + t.Pred + "|")
			continue
		case i > 0 && a < 0:
			b.WriteString(" - ")
			a = -a
		case i > 0:
			b.WriteString(" + ")
		}
		if a != 1 {
			b.WriteString(strconv.Itoa(a) + " ")
		}
		b.WriteString("|" + t.Pred + "|")
	}
	fmt.Fprintf(&b, " %s %d", c.Cmp, c.K)
	return b.String()
}

// CheckNoCardinality refuses a model with a linear cardinality constraint
// (Cardinality), which only package wfomc computes: a grounding would
// drop it and answer for another model.
func CheckNoCardinality(m *MLN) error {
	for _, f := range m.Formulas {
		if c, ok := f.Expr.(*Cardinality); ok {
			return &pos.Error{Pos: f.Pos, Msg: fmt.Sprintf("the linear cardinality constraint %s: only the exact lifted method (wfomc) supports it, not a grounding; use --method wfomc", c)}
		}
	}
	return nil
}
