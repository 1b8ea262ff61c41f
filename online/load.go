package online

import (
	"context"
	"fmt"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// Data are the model and the data of an online learner, read from files by
// LoadData as "lifted learn --method smd|sgd|scg|lbfgs-bp" and the Apache
// Beam trainer (module beam/) read them.
type Data struct {
	// User is the user's MLN with starred atoms and "+x" expanded (the
	// formulas whose weights are learned and written).
	User *mln.MLN
	// MLN is User's formulas, then the hard formulas that mutual
	// exclusion ("!") stands for.
	MLN   *mln.MLN
	Model *Model
	// Tests are the holdout databases, each its own mega-example.
	Tests []*Model
	// NE are the non-evidence predicates: as given, or, when none were
	// given, every predicate (Generative).
	NE         []string
	Generative bool
	// Warnings are the MLN parser's.
	Warnings []*pos.Error
}

// NEError says that no non-evidence predicates were given and the training
// data do not observe every atom, so that not every predicate can be the
// one to predict.
type NEError struct {
	// Partial describes each partly observed predicate.
	Partial []string
}

// Error returns the message of the NEError.
func (e *NEError) Error() string {
	return fmt.Sprintf("needs the non-evidence predicates (--ne P1,P2) because the training data observe "+
		"only part of %s: without --ne every predicate is one to predict, which needs every atom observed "+
		"(as Alchemy's learnwts -g); with --ne the named predicates are predicted and the others conditioned on", strings.Join(e.Partial, ", "))
}

// LoadData reads the MLN at input, the training databases (one
// mega-example) and the holdout databases (one each). Starred atoms and
// "+x" are expanded (mln.ExpandForHoldout) and learned, as in lwl and pll;
// mutual exclusion ("!") becomes hard formulas after the user's. Without
// ne, every predicate is predicted (Alchemy's generative -g), which needs
// data that observe every atom; otherwise the error is a *NEError. On an
// error after the MLN was parsed, the Data returned hold its warnings.
func LoadData(input string, train, holdout, ne []string) (*Data, error) {
	return LoadDataContext(context.Background(), input, train, holdout, ne)
}

// LoadDataContext is LoadData that stops with ctx's error when ctx is done
// (grounding a training database takes seconds to minutes).
func LoadDataContext(ctx context.Context, input string, train, holdout, ne []string) (*Data, error) {
	user, err := mlnfile.ParseFile(input)
	if err == nil {
		err = mlnfile.Empty(user, input)
	}
	if err != nil {
		return nil, err
	}
	d := &Data{Warnings: user.Warnings}
	if err := d.load(ctx, user, train, holdout, ne); err != nil {
		return d, err
	}
	return d, nil
}

func (d *Data) load(ctx context.Context, user *mln.MLN, train, holdout, ne []string) error {
	var err error
	if mln.NeedsExpansion(user) {
		if user, err = mln.ExpandForHoldout(user, train, holdout, mlnfile.ReadDBFiles); err != nil {
			return err
		}
	}
	d.User = user
	if d.MLN, _, err = mln.MutexAsFormulas(user); err != nil {
		return err
	}
	db, err := mlnfile.ReadDBFiles(d.MLN, train...)
	if err != nil {
		return err
	}
	d.NE = ne
	if len(ne) == 0 {
		if d.NE, err = generativeNE(d.MLN, db); err != nil {
			return err
		}
		d.Generative = true
	}
	if d.Model, err = NewModelContext(ctx, d.MLN, db, d.NE); err != nil {
		return err
	}
	for _, path := range holdout {
		tdb, err := mlnfile.ReadDBFiles(d.MLN, path)
		if err != nil {
			return err
		}
		t, err := NewModelContext(ctx, d.MLN, tdb, d.NE)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		d.Tests = append(d.Tests, t)
	}
	return nil
}

// generativeNE returns every predicate when the data observe every atom
// (closed world: an atom not listed is false); an atom the data mark
// unknown ("?P(A)") leaves the choice of what to condition on to the user.
func generativeNE(m *mln.MLN, db *mln.DB) ([]string, error) {
	unknown := make([]int, len(m.Preds))
	first := make([]*mln.GroundAtom, len(m.Preds))
	for i := range db.Atoms {
		a := &db.Atoms[i]
		if a.Truth != mln.Unknown {
			continue
		}
		if unknown[a.Pred] == 0 {
			first[a.Pred] = a
		}
		unknown[a.Pred]++
	}
	var ne, partial []string
	for p, d := range m.Preds {
		if unknown[p] == 0 {
			ne = append(ne, d.Name)
			continue
		}
		s := "s"
		if unknown[p] == 1 {
			s = ""
		}
		partial = append(partial, fmt.Sprintf("%s (%d unknown atom%s, the first %s at %s)", d.Name, unknown[p], s, db.Format(*first[p]), first[p].Pos))
	}
	if len(partial) > 0 {
		return nil, &NEError{partial}
	}
	return ne, nil
}

// Record adds the weights w after passes (at secs seconds) to the curve c,
// with their test CMLL (Holdout.CMLL) where h has test databases; it
// returns that CMLL, or nil without test databases.
func (h *Holdout) Record(ctx context.Context, c *Curve, passes, secs float64, w []float64) (*float64, error) {
	if h.Len() == 0 {
		c.Add(passes, secs, w)
		return nil, nil
	}
	cmll, per, err := h.CMLL(ctx, w)
	if err != nil {
		return nil, err
	}
	c.AddTest(passes, secs, w, cmll, per)
	return &cmll, nil
}
