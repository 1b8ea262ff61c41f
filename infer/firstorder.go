package infer

import (
	"context"
	"errors"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/mln"
)

// Model is a first-order model as a FirstOrder method needs it: a Markov
// logic network with its evidence, the world assumption, the formula
// weights and the query atoms, together with its grounding (the factor
// graph every propositional method runs on). The query atoms are variables
// of Graph, so an Answer gives them beliefs whichever kind of method
// answered. Package ground builds one (ground.Grounding.Model).
type Model struct {
	MLN *mln.MLN
	// DB is the evidence; its domains are the model's domains.
	DB *mln.DB
	// Closed names the closed-world predicates: their atoms that DB does
	// not list are false.
	Closed map[string]bool
	// Weights holds the weight of every formula of MLN (defaults applied;
	// those of hard formulas are ignored). Nil when the grounding does not
	// follow the MLN semantics (Alchemy's clause weighting): then only
	// methods on Graph apply.
	Weights []float64
	// Queries are the query atoms that are not evidence, in output order.
	Queries []QueryAtom
	// Graph is the grounding: one variable per unknown ground atom (and
	// auxiliary variables), one factor per ground formula kept.
	Graph *fg.Graph
	// LogZOffset is what evidence simplification took out of log Z: log Z
	// of the MLN given the evidence is log Z of Graph plus LogZOffset.
	LogZOffset float64
	// Grounding is the grounding Graph came from, a *ground.Grounding (its
	// atom names and domains), for methods that read the constants behind
	// the variables (the renaming symmetry of MAP by LP); nil when unknown.
	// (Typed any because package ground's tests import infer.)
	Grounding any
	// Evidence is the evidence on Graph's variables (nil: none), for
	// methods that choose by the size of what is left unobserved (auto on
	// a factor graph; a grounding has no variables for evidence atoms).
	Evidence fg.Evidence
}

// QueryAtom is a ground query atom, named as in the MLN ("Friends(Anna,Bob)"),
// and its variable in Model.Graph.
type QueryAtom struct {
	Name string
	Var  int32
}

// FirstOrder is implemented by methods that answer on the first-order model
// itself (exact lifted inference by weighted model counting) instead of on
// its counted graph. Their Answer gives beliefs to the query atoms only
// (other variables have none: NaN) and its Graph is the trivial compression
// of Model.Graph.
type FirstOrder interface {
	RunModel(ctx context.Context, m *Model, q Query) (*Answer, error)
}

// Ungrounded is implemented by FirstOrder methods that answer some models
// without grounding them (lifted blocked Gibbs when every cluster is
// lifted and no formula is hard). RunUngrounded is given m without Graph,
// Queries and Grounding; when the model needs its grounding it returns an
// error wrapping ErrNeedsGrounding, and the caller grounds and calls
// RunModel.
type Ungrounded interface {
	RunUngrounded(ctx context.Context, m *Model, q Query) (*AtomAnswer, error)
}

// ErrNeedsGrounding is returned by Ungrounded.RunUngrounded for a model it
// does not answer without its grounding.
var ErrNeedsGrounding = errors.New("the method needs the grounding of this model")

// AtomAnswer is the answer of an ungrounded run: marginals addressed by
// ground atom instead of by variable of a grounding.
type AtomAnswer struct {
	// Marginal returns the probability that the ground atom pred(args...)
	// is true (pred an index into MLN.Preds, args indices into the
	// evidence database's domains) and whether the atom is unknown (false:
	// the evidence, or the closed world, fixes it; p is its value).
	Marginal func(pred int, args []int) (p float64, unknown bool)
	// Detail, when set (samplers), returns an unknown atom's own
	// diagnostics, as Answer's per-entry fields.
	Detail    func(pred int, args []int) AtomDetail
	Converged bool
	Stats     Stats
	// LogZ, when set, is log Z of the MLN given the evidence (an exact
	// method's); nil when the method does not compute it.
	LogZ *float64
}

// AtomDetail is a sampler's diagnostics of one atom's marginal: its
// Monte Carlo standard error, whether its own diagnostics passed, its
// R-hat and the lowest and highest of the chains' own estimates.
type AtomDetail struct {
	StdErr float64
	Mixed  bool
	RHat   float64
	Lo, Hi float64
}

// Chooser is implemented by methods that pick another method for each
// model ("auto"). Choose returns the method to run and why; on a factor
// graph (RunModel is not used) it is called with m.MLN nil.
type Chooser interface {
	Choose(ctx context.Context, m *Model, q Query) (Choice, error)
}

// Choice is a Chooser's pick.
type Choice struct {
	Name      string    // the chosen method's name, for Stats.Method ("": nothing to report)
	Reason    string    // why, in a short phrase
	Algorithm Algorithm // what runs
	Lifted    bool      // compress by colour passing before running it on a graph
	// Answer, when set, is the chosen method's answer already computed
	// while choosing (a trial run within a budget).
	Answer *Answer
}

// ErrNeedsModel is returned by a FirstOrder method asked to run on a bare
// factor graph.
var ErrNeedsModel = errors.New("this method needs a first-order model (a Markov logic network)")

// RunModel answers q on m. A Chooser picks a method first (its choice and
// reason go into Stats.Method and Stats.MethodReason); a FirstOrder method
// runs on the model; any other method runs on m.Graph as Run does, with
// opt's compression and convergence policy.
func RunModel(ctx context.Context, alg Algorithm, m *Model, opt Options) (*Answer, error) {
	start := time.Now()
	var choice *Choice
	if ch, ok := alg.(Chooser); ok {
		c, err := ch.Choose(ctx, m, opt.Query)
		if err != nil {
			return nil, err
		}
		choice = &c
		alg, opt.Lifted = c.Algorithm, c.Lifted
	}
	var ans *Answer
	var err error
	switch fo, ok := alg.(FirstOrder); {
	case choice != nil && choice.Answer != nil:
		ans = choice.Answer
	case ok:
		ans, err = fo.RunModel(ctx, m, opt.Query)
		if err == nil && !ans.Converged && opt.Unconverged == Refuse && !ans.Stats.Interrupted {
			// A method on the model (lbg) has no fallbacks: its answer
			// that did not converge is refused as any other.
			err = &NotConvergedError{Tried: []string{"as asked"}, Iterations: ans.Stats.BPIterations, Answer: ans}
		}
	default:
		ans, err = Run(ctx, alg, m.Graph, nil, opt)
		var nc *NotConvergedError
		if errors.As(err, &nc) {
			ans = nc.Answer
		}
	}
	if ans != nil && opt.Query.Task == MAP && m.Graph != nil {
		// On an MLN a world's score is Σ w·n(x) over all its ground
		// formulas: the graph's Σ ln φ plus what grounding took out.
		for _, p := range []*float64{ans.Stats.Objective, ans.Stats.Bound} {
			if p != nil {
				*p += m.LogZOffset
			}
		}
	}
	if ans != nil {
		ans.Stats.chosen(choice)
		ans.Stats.Seconds = time.Since(start).Seconds()
	}
	return ans, err
}

// chosen records a Chooser's choice c (nil: none) in s. A chosen method
// that itself handed the query on (auto's BP chain falling back to a
// sampler) has set Method already: its reason then follows c's.
func (s *Stats) chosen(c *Choice) {
	switch {
	case c == nil || c.Name == "":
	case s.Method != "" && s.Method != c.Name:
		s.MethodReason = c.Reason + "; " + s.MethodReason
	default:
		s.Method, s.MethodReason = c.Name, c.Reason
	}
}
