package infer

// MLNStats are the figures a run on a Markov logic network reports: the
// run's Stats and the grounding's ("lifted compress S.mln" prints them as
// JSON, as does the Beam colour-passing pipeline on an MLN).
//
// With the first-order construction (lifted_construction true),
// ground_atoms and ground_formulas are the numbers of unknown ground atoms
// and ground formulas the counted graph represents, ground_seconds the
// construction's time, and ground_atoms_built and ground_formulas_built
// what was actually grounded (the reduced model); otherwise
// construction_reason says why the model was grounded.
type MLNStats struct {
	Stats
	GroundAtoms         int64   `json:"ground_atoms"`
	GroundFormulas      int64   `json:"ground_formulas"`
	GroundSeconds       float64 `json:"ground_seconds"`
	LiftedConstruction  bool    `json:"lifted_construction"`
	ConstructionReason  string  `json:"construction_reason,omitempty"`
	GroundAtomsBuilt    int64   `json:"ground_atoms_built,omitempty"`
	GroundFormulasBuilt int64   `json:"ground_formulas_built,omitempty"`
	// Dialect is the MLN's dialect and how it was decided ("tuffy
	// (detected: …)"); ClosedWorld names the closed-world rule that
	// applied: "alchemy", "tuffy" or "open" (mln.Dialect.WorldRule).
	Dialect     string `json:"dialect,omitempty"`
	ClosedWorld string `json:"closed_world,omitempty"`
	// World says which predicates were closed- and which open-world, and
	// why (mln.World): "closed world: Smokes, Friends (not queried, with
	// evidence: Alchemy's rule; --ow opens it); open world: Cancer
	// (queried)".
	World string `json:"world,omitempty"`
}
