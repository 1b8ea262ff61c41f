package mln

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/pos"
)

// OrderKind says which predicate of the linear order axiom a name is.
type OrderKind uint8

const (
	NotOrder      OrderKind = iota
	OrderLEQ                // LEQ(x,y): x comes at or before y
	OrderPred               // PRED, PREDk: y comes exactly k places after x
	OrderCircPred           // CIRCULAR_PRED: y comes right after x on a circle
)

// OrderPredicate says whether a predicate named name, declared binary over
// one type, is one of the linear order axiom's reserved predicates (the
// WFOMC tool's spelling; package wfomc, docs/mln.md): LEQ, PRED (= PRED1),
// PREDk for k = 1…9, CIRCULAR_PRED; dist is k (1 for CIRCULAR_PRED).
// Their atoms are not free: a world is an order of the type with the other
// atoms' values.
func OrderPredicate(name string) (kind OrderKind, dist int) {
	switch {
	case name == "LEQ":
		return OrderLEQ, 0
	case name == "PRED":
		return OrderPred, 1
	case name == "CIRCULAR_PRED":
		return OrderCircPred, 1
	case len(name) == 5 && strings.HasPrefix(name, "PRED"):
		if k, err := strconv.Atoi(name[4:]); err == nil && k >= 1 {
			return OrderPred, k
		}
	}
	return NotOrder, 0
}

// CheckNoOrder refuses a model with a predicate of the linear order axiom,
// which only package wfomc computes (a grounding would take its atoms for
// free variables and answer for another model).
func CheckNoOrder(m *MLN) error {
	for _, p := range m.Preds {
		if k, _ := OrderPredicate(p.Name); k != NotOrder && len(p.TypeIdx) == 2 && p.TypeIdx[0] == p.TypeIdx[1] {
			return &pos.Error{Pos: p.Pos, Msg: fmt.Sprintf("%s is the linear order axiom's predicate (a reserved name): only the exact lifted method (wfomc) supports it, not a grounding; use --method wfomc, or rename the predicate for an ordinary one", p.Name)}
		}
	}
	return nil
}
