package fg

// ClauseSigns reports whether t is a clause table — all dimensions 2,
// exactly one entry 0 and every other entry 1, the table cnf.ToGraph builds
// for a clause — and, if so, which positions are negated literals: a clause
// is false only when every literal is, so the zero entry has state 1 exactly
// at the negated positions (the last position is the lowest bit of its
// index).
//
// A table without dimensions holding the single entry 0 is the empty clause:
// ok is true and neg is empty (not nil).
func ClauseSigns(t *Table) (neg []bool, ok bool) {
	zero := -1
	for i, x := range t.Values {
		switch x {
		case 0:
			if zero >= 0 {
				return nil, false
			}
			zero = i
		case 1:
		default:
			return nil, false
		}
	}
	if zero < 0 {
		return nil, false
	}
	for _, d := range t.Dims {
		if d != 2 {
			return nil, false
		}
	}
	neg = make([]bool, len(t.Dims))
	for p := len(t.Dims) - 1; p >= 0; p-- {
		neg[p] = zero&1 == 1
		zero >>= 1
	}
	return neg, true
}
