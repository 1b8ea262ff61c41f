package learn

import (
	"fmt"
	"math"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"
)

// DBResult is the exact log-likelihood of one test database (its JSON is
// a row of "lifted loglik --output-format json").
type DBResult struct {
	DB     string    `json:"db"`
	LogLik any       `json:"log_likelihood"` // null for −∞
	LogZ   any       `json:"log_z"`
	Counts []float64 `json:"counts"`
	// Violated names the first hard formula the database violates (then
	// the log-likelihood is −∞).
	Violated string `json:"violated,omitempty"`
	// Value is the log-likelihood as a number (−∞ when Violated).
	Value float64 `json:"-"`
}

// TestResult are the log-likelihoods of test databases ("lifted loglik
// --output-format json").
type TestResult struct {
	Databases []DBResult `json:"databases"`
	LogLik    any        `json:"log_likelihood"` // the total; null for −∞
	Seconds   float64    `json:"seconds"`
	Total     float64    `json:"-"`
}

// TestLogLikelihoods computes the exact log-likelihood of each database
// (read from its file, closed world, on its own domain) under m,
// Σᵢ wᵢ·nᵢ(db) − log Z, by weighted first-order model counting; formulas
// without a weight take def (nil: an error). Per-constant formulas ("+x")
// stand for one formula per constant of each database.
func TestLogLikelihoods(m0 *mln.MLN, dbs []string, def *float64) (*TestResult, error) {
	start := time.Now()
	weights0, err := wfomc.Weights(m0, def)
	if err != nil {
		return nil, err
	}
	mod0, err := wfomc.Compile(m0, nil)
	if err != nil && !mln.NeedsExpansion(m0) {
		return nil, err
	}
	var rows []DBResult
	total := 0.0
	for _, path := range dbs {
		m, dbl, err := mln.ExpandForData(m0, mlnfile.ReadDBSets([][]string{{path}}))
		if err != nil {
			return nil, err
		}
		db, mod, weights := dbl[0], mod0, weights0
		if m != m0 {
			if weights, err = wfomc.Weights(m, def); err != nil {
				return nil, err
			}
			if mod, err = wfomc.Compile(m, nil); err != nil {
				return nil, fmt.Errorf("%s: %w", path, err)
			}
		}
		d, err := CountDB(m, db, path)
		if err != nil {
			return nil, err
		}
		row := DBResult{DB: path, Counts: d.Counts}
		res, err := mod.Evaluate(weights, d.Sizes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		row.LogZ = res.LogZ
		row.Value = -res.LogZ
		for j, fm := range m.Formulas {
			if fm.Hard {
				g := 1.0
				for _, v := range fm.Vars {
					g *= float64(d.Sizes[v.Type])
				}
				if d.Counts[j] != g && row.Violated == "" {
					row.Violated = fmt.Sprintf("formula %d (%s)", j+1, fm.Text)
				}
				continue
			}
			row.Value += weights[j] * d.Counts[j]
		}
		if row.Violated != "" {
			row.Value = math.Inf(-1)
		}
		row.LogLik = finite(row.Value)
		rows = append(rows, row)
		total += row.Value
	}
	return &TestResult{Databases: rows, LogLik: finite(total), Total: total, Seconds: time.Since(start).Seconds()}, nil
}

// finite maps a non-finite number to nil (JSON null).
func finite(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

// Files learns the weights of m by method "lwl" or "pll" from the
// training databases (each file its own database, on its own domain;
// per-constant formulas are expanded for them). It returns the model as
// learned (expanded) and the result.
func Files(m *mln.MLN, method string, train []string, opt *Options) (*mln.MLN, *Result, error) {
	sets := make([][]string, len(train))
	for i, path := range train {
		sets[i] = []string{path}
	}
	m, dbs, err := mln.ExpandForData(m, mlnfile.ReadDBSets(sets))
	if err != nil {
		return nil, nil, err
	}
	switch method {
	case "lwl":
		data := make([]*Data, len(dbs))
		for i, db := range dbs {
			if data[i], err = CountDB(m, db, train[i]); err != nil {
				return nil, nil, err
			}
		}
		res, err := LWL(m, data, opt)
		return m, res, err
	case "pll":
		res, err := PLL(m, dbs, train, opt)
		return m, res, err
	}
	return nil, nil, fmt.Errorf("learn: unknown method %q (want lwl or pll)", method)
}

// Check validates the options of LWL and PLL; the error names the option
// as the command line spells it.
func (o *Options) Check() error {
	switch {
	case o.PriorStdDev == 0:
		return fmt.Errorf("--prior-stddev must not be 0")
	case math.IsNaN(o.PriorStdDev) || math.IsInf(o.PriorStdDev, 0):
		return fmt.Errorf("--prior-stddev must be a finite number, got %v", o.PriorStdDev)
	case math.IsNaN(o.PriorMean) || math.IsInf(o.PriorMean, 0):
		return fmt.Errorf("--prior-mean must be a finite number, got %v", o.PriorMean)
	case o.MaxIter < 1:
		return fmt.Errorf("--max-iter must be at least 1, got %d", o.MaxIter)
	case !(o.GradTol > 0):
		return fmt.Errorf("--tol must be positive, got %v", o.GradTol)
	}
	return nil
}
