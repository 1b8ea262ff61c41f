package mlnfile

import "github.com/lifted-dev/lifted/mln"

// EmptyModelError is an MLN file without a predicate declaration: every
// atom of its evidence and queries would be unknown.
type EmptyModelError struct{ Path string }

// Error returns the message of the EmptyModelError.
func (e *EmptyModelError) Error() string {
	return e.Path + ": the model is empty: it declares no predicates (an MLN declares predicates such as Smokes(person) and weighted formulas over them; see docs/mln.md)"
}

// Empty is an *EmptyModelError where m (read from path) declares no
// predicate, else nil.
func Empty(m *mln.MLN, path string) error {
	if len(m.Preds) == 0 {
		return &EmptyModelError{path}
	}
	return nil
}
