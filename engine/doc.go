// Package engine is lifted's one query pipeline: a Request (a model and
// its evidence, the query atoms, the task — marginals, MAP or log Z — and
// how to answer) goes in, one Result comes out, whatever route answered
// it. The command line, the Python package and the Beam pipelines are thin
// layers over it: everything that decides how to answer lives here.
//
//	res, err := engine.Run(ctx, engine.Request{Model: "smokers.mln",
//		Evidence: []string{"smokers.db"}, Query: []string{"Smokes", "Cancer"}})
//	p := res.AtomMarginals()["Cancer(Anna)"]
//
// # Load once, query many times
//
// Load reads and parses a model and its evidence; (*Model).Run answers a
// Request on it without reading it again (Request.Model and .Evidence are
// then ignored). Run is Load followed by (*Model).Run.
//
// # How a query is answered
//
// The method is Request.Method, a name of the infer registry; by default
// DefaultMethod ("auto") for marginals and DefaultMAPMethod ("map-auto")
// for MAP. A front end that takes the method and its settings by name (the
// command's flags, the Python package's keywords) fills a Named and calls
// Resolve: one rule for defaults, settings, properties and refusals.
// The choice among methods on a ground graph is auto's (infer/exact.Auto,
// through the registry); the engine decides what happens before grounding.
// A factor graph runs the method on its (compressed) graph. An MLN query
// goes to the first route that answers it (Result.Route):
//
//  1. first-order: a lifted method (lbp) on the counted graph built from
//     the MLN without grounding it (lift/firstorder), where that applies;
//  2. ungrounded: a method that needs no grounding for this model
//     (infer.Ungrounded: lifted blocked Gibbs);
//  3. auto before grounding: wfomc within auto's budget; a small model is
//     then grounded for auto to choose on, a large one goes to lifted BP on
//     the first-order network;
//  4. grounded: the grounding, and the method on it (a grounding too large
//     for auto goes to lifted BP on the first-order network).
//
// A Request with Dynamic set unrolls a dynamic MLN and answers by filtering
// (step by step, Dynamic.OnStep) and/or smoothing (the factored frontier,
// lifted or not).
//
// # The Result
//
// Result has one per-atom view for every route: Atoms (name, marginal or
// MAP value, standard error for samplers) for an MLN; Marginals,
// StdErrors and Assignment per variable for a factor graph. LogZ comes
// with its kind; a MAP answer has its Objective on one scale for every
// method (the world's log score; on an MLN Σ w·n(x) over its ground
// formulas) and, for LP methods, a Bound and Gap. Method and MethodReason
// say what answered and why, Converged whether the answer may be trusted
// (Messages words the caveats), Stats the work.
//
// WriteJSON writes a Result in the one JSON schema, ResultSchema
// (result.schema.json, schema_version 1); WriteAlchemy writes Alchemy's
// result format, WriteUAI the UAI MAR/MPE formats.
//
// # Learning
//
// Learn runs "lifted learn": every weight learner (LearnMethods: the batch
// learners of package learn, the online and BP-based ones of package
// online) behind one LearnRequest, with the per-method defaults
// (DefaultPriorStdDev), the options each learner takes (LearnOptionGroups,
// CheckLearnOptions) and scg's fallback to dn.
//
// Errors: a *RequestError is a mistake in the request (unknown method,
// bad property, bad query); a run that does not converge, without
// Request.AllowUnconverged, is an *infer.NotConvergedError (a dynamic run's
// a *StepsNotConvergedError).
package engine
