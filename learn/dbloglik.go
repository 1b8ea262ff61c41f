package learn

import "github.com/lifted-dev/lifted/mln"

// DBLogLikelihood is the exact log-likelihood of the database db (closed
// world; name is used in errors) under m with weights: LogLikelihood of
// CountDB's counts. It fails where the WFOMC engine does not apply.
func DBLogLikelihood(m *mln.MLN, weights []float64, db *mln.DB, name string) (float64, error) {
	d, err := CountDB(m, db, name)
	if err != nil {
		return 0, err
	}
	return LogLikelihood(m, weights, d)
}
