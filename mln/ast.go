package mln

import "github.com/lifted-dev/lifted/pos"

// MLN is a type-checked Markov logic network: the declarations and formulas
// of one or more .mln files, in source order. It is built by a Builder
// (package format/mlnfile parses through one).
//
// The slices may be read freely. Code that appends to them must keep the
// Index fields and the lookup maps (see Type, Pred, Func) in step, so treat a
// built MLN as read-only.
type MLN struct {
	Types    []*TypeDecl
	Preds    []*PredDecl
	Funcs    []*FuncDecl
	Formulas []*Formula

	// Warnings lists things Alchemy accepts silently but that are often
	// mistakes: constants that formulas add to a type declared with an
	// explicit "= {…}" list, repeated declarations, and the like. They never
	// stop parsing.
	Warnings pos.ErrorList

	// Dialect is the system whose syntax and semantics the MLN follows
	// (see Dialect), and why; its closed-world rule is ClosedWorld's. The
	// zero value (DialectAuto) is read as Alchemy.
	Dialect DialectInfo

	types map[string]int
	preds map[string]int
	funcs map[string]int
}

// Type returns the type with the given name, or nil.
func (m *MLN) Type(name string) *TypeDecl {
	if i, ok := m.types[name]; ok {
		return m.Types[i]
	}
	return nil
}

// Pred returns the predicate with the given name, or nil.
func (m *MLN) Pred(name string) *PredDecl {
	if i, ok := m.preds[name]; ok {
		return m.Preds[i]
	}
	return nil
}

// Func returns the function with the given name, or nil.
func (m *MLN) Func(name string) *FuncDecl {
	if i, ok := m.funcs[name]; ok {
		return m.Funcs[i]
	}
	return nil
}

// TypeIndex returns the index in Types of the named type, or -1.
func (m *MLN) TypeIndex(name string) int {
	if i, ok := m.types[name]; ok {
		return i
	}
	return -1
}

// PredIndex returns the index in Preds of the named predicate, or -1.
func (m *MLN) PredIndex(name string) int {
	if i, ok := m.preds[name]; ok {
		return i
	}
	return -1
}

// TypeDecl is a type (a domain of constants).
//
// A type is either declared with an explicit list, "person = {Anna, Bob}" or
// "time = {0,...,9}" (Declared is true), or only named as an argument type of
// a predicate or function, in which case its domain is open and comes from
// the constants that formulas and evidence mention (Declared is false), as
// Alchemy allows.
type TypeDecl struct {
	Name string
	// Constants is the domain known from the .mln files: the declared
	// constants first (the first NumDeclared entries), then constants that
	// formulas mention, in order of first appearance. Evidence can add more;
	// see DB.Domain and Domains. Integer constants are kept in canonical
	// decimal form ("007" becomes "7"); string constants keep their quotes.
	Constants   []string
	NumDeclared int
	Declared    bool
	Index       int          // position in MLN.Types
	Pos         pos.Position // first declaration or first mention

	index map[string]int // Constants → position; built lazily
}

// constIndex returns the map from constant to its position in Constants.
func (d *TypeDecl) constIndex() map[string]int {
	if d.index == nil || len(d.index) != len(d.Constants) {
		d.index = make(map[string]int, len(d.Constants))
		for i, c := range d.Constants {
			d.index[c] = i
		}
	}
	return d.index
}

// addConstant appends c to the domain unless present; it reports whether c
// was added.
func (d *TypeDecl) addConstant(c string) bool {
	idx := d.constIndex()
	if _, ok := idx[c]; ok {
		return false
	}
	idx[c] = len(d.Constants)
	d.Constants = append(d.Constants, c)
	return true
}

// PredDecl is a predicate declaration such as Friends(person, person) or
// Has(person, value!).
type PredDecl struct {
	Name     string
	ArgTypes []string
	TypeIdx  []int // ArgTypes as indices into MLN.Types
	// MutexArg is the index of the first argument marked with '!', or -1.
	// For each binding of the other arguments exactly one value of the
	// marked argument is true (Alchemy's mutual exclusion and exhaustiveness).
	MutexArg int
	// MutexArgs lists every argument marked with '!' (nil if none). With
	// several, exactly one combination of their values is true for each
	// binding of the remaining arguments.
	MutexArgs []int
	// ClosedWorld is set by Tuffy's "*Pred(...)" declaration syntax: the
	// predicate is closed-world unless it is queried (see ClosedWorld).
	ClosedWorld bool
	// Successor marks a predicate made by StaticSuccessors: true exactly
	// for the pairs (i, i+1) of its type's integer constants.
	Successor bool
	Index     int // position in MLN.Preds
	Pos       pos.Position
}

// Arity returns the number of arguments.
func (d *PredDecl) Arity() int { return len(d.ArgTypes) }

// FuncDecl is an Alchemy function declaration such as "person motherOf(person)".
// A function maps each tuple of argument constants to one constant of the
// return type; function terms may appear as predicate arguments.
type FuncDecl struct {
	Name     string
	RetType  string
	ArgTypes []string
	RetIdx   int   // RetType as an index into MLN.Types
	TypeIdx  []int // ArgTypes as indices into MLN.Types
	Index    int   // position in MLN.Funcs
	Pos      pos.Position
}

// Formula is one weighted, hard or unweighted first-order formula.
//
// A formula with neither a weight nor a trailing period has HasWeight and
// Hard both false: its weight is to be learned. Free variables are implicitly
// universally quantified; a variable written with a '+' (per-constant weight,
// "Smokes(+x)") stands for one formula per constant of its type, each with
// its own weight. Grounding expands both; this package only records them.
type Formula struct {
	Weight    float64
	HasWeight bool
	Hard      bool // written with a trailing period
	// FixedWeight is set by Tuffy's "@w formula" syntax: the weight is given
	// and must not be learned.
	FixedWeight bool
	Expr        Expr
	// Text is the formula exactly as written, without the weight and the
	// trailing period, whitespace-trimmed. It may span lines.
	Text string
	// Vars are the free variables in order of first appearance, with their
	// inferred types.
	Vars []*Var
	Pos  pos.Position // start of the statement (the weight, if any)
}

// Var is a variable with its inferred type. Formula.Vars holds the free ones;
// Exists and Forall hold the quantified ones.
type Var struct {
	Name string
	Type string
	// PerConstant is set when any occurrence of a free variable is written
	// "+x".
	PerConstant bool
	Pos         pos.Position // first occurrence
}

// Expr is a formula node: *Atom, *Equal, *Not, *And, *Or, *Implies, *Iff,
// *Exists or *Forall, or (as the whole of a hard formula) a linear
// cardinality constraint *Cardinality.
//
// Within one formula a variable name denotes one variable: the checker rejects
// a quantifier that rebinds a name already bound by an enclosing quantifier
// or used free elsewhere in the formula (sibling quantifiers may reuse a
// name). So a term can be resolved by name: it refers to the nearest
// enclosing quantifier that lists it, or else to the free variable of that
// name.
type Expr interface {
	// Position returns where the node starts in the source.
	Position() pos.Position
	// String prints the node in Alchemy syntax with the fewest parentheses
	// that preserve its structure.
	String() string
	expr()
}

// Atom is a predicate applied to terms: Friends(x, Anna), or a nullary
// predicate such as Raining.
type Atom struct {
	Pred string
	Args []Term
	// Star is Alchemy's "*P(x)": the formula stands for all formulas obtained
	// by writing each starred atom either plain or negated.
	Star bool
	Pos  pos.Position
}

// Equal is the equality atom L = R. "x != y" parses as Not{Equal}.
type Equal struct {
	L, R Term
	Pos  pos.Position
}

// Not is negation.
type Not struct {
	X   Expr
	Pos pos.Position
}

// And is conjunction (left-associative).
type And struct {
	L, R  Expr
	OpPos pos.Position
}

// Or is disjunction (left-associative).
type Or struct {
	L, R  Expr
	OpPos pos.Position
}

// Implies is L => R. As in Alchemy, a => b => c groups as (a => b) => c.
type Implies struct {
	L, R  Expr
	OpPos pos.Position
}

// Iff is L <=> R (left-associative, as in Alchemy).
type Iff struct {
	L, R  Expr
	OpPos pos.Position
}

// Exists is existential quantification; the body extends as far right as
// possible.
//
// With Cmp set it is a counting quantifier of C2: "EXIST=k y body" (exactly
// k values of y satisfy body), "EXIST<=k y body" (at most k) and
// "EXIST>=k y body" (at least k); over several variables it counts tuples,
// and the cardinality constraint "|P| = k" is EXIST=k x1,…,xn P(x1,…,xn).
// Cmp is "=", "<=" or ">=" and K the bound (K ≥ 0); a plain EXIST has
// Cmp "".
type Exists struct {
	Vars []*Var
	Body Expr
	Cmp  string
	K    int
	Pos  pos.Position
}

// Counts reports whether n of the domain's values satisfying the body make
// the quantifier true: n ≥ 1 for a plain EXIST, else n Cmp K.
func (e *Exists) Counts(n int) bool {
	switch e.Cmp {
	case "=":
		return n == e.K
	case "<=":
		return n <= e.K
	case ">=":
		return n >= e.K
	}
	return n >= 1
}

// Forall is universal quantification; the body extends as far right as
// possible.
type Forall struct {
	Vars []*Var
	Body Expr
	Pos  pos.Position
}

// Term is a predicate or function argument: a variable, a constant or (for
// Alchemy functions) a function applied to terms.
type Term struct {
	// Name is the variable, constant or function name. String constants keep
	// their quotes; integer constants are in canonical decimal form.
	Name  string
	IsVar bool
	// PerConstant marks "+x": one formula (and weight) per constant of x's type.
	PerConstant bool
	// Succ marks the successor of the time variable Name in a dynamic MLN:
	// "succ(t)", also written "t+1" or LoMRF's "t++" (IsVar is true). Package
	// dynamic unrolls such formulas; the grounder refuses them.
	Succ bool
	// Func is set for a function term Name(Args...).
	Func bool
	Args []Term
	// Type is the term's type as inferred by the checker ("" if unknown
	// because of an error).
	Type string
	Pos  pos.Position
}

// Position returns the position of the predicate name (or of the "*").
func (e *Atom) Position() pos.Position { return e.Pos }

// Position returns the position of the left term.
func (e *Equal) Position() pos.Position { return e.Pos }

// Position returns the position of the "!" (or, for "x != y", of x).
func (e *Not) Position() pos.Position { return e.Pos }

// Position returns the position of the left operand.
func (e *And) Position() pos.Position { return e.L.Position() }

// Position returns the position of the left operand.
func (e *Or) Position() pos.Position { return e.L.Position() }

// Position returns the position of the left operand.
func (e *Implies) Position() pos.Position { return e.L.Position() }

// Position returns the position of the left operand.
func (e *Iff) Position() pos.Position { return e.L.Position() }

// Position returns the position of the quantifier keyword.
func (e *Exists) Position() pos.Position { return e.Pos }

// Position returns the position of the quantifier keyword.
func (e *Forall) Position() pos.Position { return e.Pos }

func (*Atom) expr()    {}
func (*Equal) expr()   {}
func (*Not) expr()     {}
func (*And) expr()     {}
func (*Or) expr()      {}
func (*Implies) expr() {}
func (*Iff) expr()     {}
func (*Exists) expr()  {}
func (*Forall) expr()  {}

// Inspect traverses e depth-first in source order, calling f for each node;
// if f returns false the node's children are skipped.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	switch e := e.(type) {
	case *Not:
		Inspect(e.X, f)
	case *And:
		Inspect(e.L, f)
		Inspect(e.R, f)
	case *Or:
		Inspect(e.L, f)
		Inspect(e.R, f)
	case *Implies:
		Inspect(e.L, f)
		Inspect(e.R, f)
	case *Iff:
		Inspect(e.L, f)
		Inspect(e.R, f)
	case *Exists:
		Inspect(e.Body, f)
	case *Forall:
		Inspect(e.Body, f)
	}
}
