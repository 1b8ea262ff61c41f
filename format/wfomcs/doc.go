// Package wfomcs reads the model files of the WFOMC tool of Wang, Kuželka
// et al. (github.com/yuanhong-wang/WFOMC) as Markov logic networks, so that
// lifted wfomc (and every other MLN command) runs them as they are.
//
// A .wfomcs file (Read) is a first-order sentence, a domain, weightings,
// cardinality constraints and unary evidence:
//
//	\forall X: (~perm(X,X)) &
//	\forall X: (\exists_{=1} Y: (perm(X,Y))) &
//	\forall Y: (\exists_{=1} X: (perm(X,Y)))
//
//	domain = 5
//	2 1 perm
//	|perm| = 5
//	perm(a), ~perm(b)        (unary evidence; here perm is binary, so none)
//
// The tool's .mln syntax (ReadMLN; format name "wfomcs-mln") has weighted
// rules "w formula" and hard rules "formula." in place of the sentence and
// no weightings. Both are read as the tool's grammar states them
// (src/wfomc/parser): formulas with ~, &, |, ->, <-> (binding in that
// order, -> to the right), \forall X: (…), \exists X: (…), the counting
// quantifiers \exists_{=k} (also <=, >=, <, >, !=) and ExactlyOne[P, Q, …];
// variables are one upper-case letter, constants names that start with a
// lower-case letter; '#' starts a comment.
//
// The result is lifted's representation, built and type-checked by
// mln.Builder as the .mln reader's is:
//
//   - the domain "name = n" is one type with the elements Name0 … Name(n−1)
//     (the tool's names, first letter capitalised as lifted's constants
//     are); "name = {a, b}" lists them (A, B). At most MaxElements are
//     named; lifted wfomc --domain name=N sets any size;
//   - the sentence is split at its top-level conjunctions and universal
//     quantifiers into hard formulas whose free variables are universal
//     (X becomes x; a quantifier that rebinds a name in scope is renamed);
//   - a weighting "pos neg P" is the unit formula ln(pos/neg) P(x, …), and
//     when neg ≠ 1 a formula true for every atom of weight ln neg (a zero
//     weight makes the atoms hard; negative weights are refused);
//   - a cardinality constraint Σ a_i·|P_i| cmp k: with one predicate and
//     coefficient 1 it is lifted's |P| = k (EXIST=k x1,…,xn P(x1,…,xn)),
//     < and > as <= and >=; any other (|AuxBond| - |H| = 0, !=) is an
//     mln.Cardinality, which package wfomc sums exactly;
//   - \exists_{<k} and \exists_{>k} are EXIST<=k−1 and EXIST>=k+1;
//     \exists_{!=k} is EXIST<=k−1 v EXIST>=k+1, a disjunction of counting
//     quantifiers that wfomc does not lift (it grounds it with
//     --allow-ground);
//   - the linear order axiom's predicates (LEQ, PRED, PREDk,
//     CIRCULAR_PRED) keep their names, which lifted reserves too;
//   - unary evidence is returned in File.DB, and the MLN's world rule is
//     open (mln.DialectPracmln): the evidence conditions, as in the tool.
//
// Errors are *pos.Error values (a pos.ErrorList when several) with the
// file, line and column; no input makes the reader panic (FuzzRead).
package wfomcs
