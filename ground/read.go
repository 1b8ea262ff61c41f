package ground

import (
	"context"
	"fmt"
	"os"

	"github.com/lifted-dev/lifted/format"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// Input is an MLN with its evidence and its query atoms, read from files
// as lifted's MLN commands read them (ReadInput).
type Input struct {
	MLN   *mln.MLN
	DB    *mln.DB
	Query *Query
	// Warnings are the MLN parser's and the evidence reader's.
	Warnings []*pos.Error
	// Dialect is the dialect the MLN was read in (given or detected, see
	// mlnfile.ParseWith) and why; Dialect.Dialect.WorldRule() names the
	// closed-world rule that applies ("alchemy", "tuffy" or "open"), for
	// a summary line or a JSON field.
	Dialect mln.DialectInfo
}

// ReadInput parses the MLN at path, its evidence databases (none: an
// empty database) and its query: the -q values (ParseQuery) and the atoms
// of the query files (ReadQueryFiles). Query errors are *QueryError. On an
// error, the Input returned holds the warnings so far.
func ReadInput(path string, evidence, query, queryFiles []string) (*Input, error) {
	return ReadInputWith(mlnfile.Options{}, path, evidence, query, queryFiles)
}

// ReadInputWith is ReadInput reading the MLN with opt (its dialect: given,
// or mln.DialectAuto to detect it).
func ReadInputWith(opt mlnfile.Options, path string, evidence, query, queryFiles []string) (*Input, error) {
	in, err := ReadModel(opt, path, evidence)
	if err != nil {
		return in, err
	}
	m := in.MLN
	if len(queryFiles) > 0 {
		qf, err := ReadQueryFiles(m, queryFiles)
		if err != nil {
			return in, err
		}
		query = append(append([]string(nil), query...), qf...)
	}
	in.Query, err = ParseQuery(m, in.DB, query)
	return in, err
}

// ReadModel parses the MLN at path in opt's dialect (LoMRF's t++ as the
// integer successor) and its evidence databases (none: an empty
// database), with the successor facts: ReadInputWith without the query.
func ReadModel(opt mlnfile.Options, path string, evidence []string) (*Input, error) {
	return ReadModelContext(context.Background(), opt, path, evidence)
}

// ReadModelContext is ReadModel that stops reading the evidence when ctx
// ends (mlnfile.ReadDBFilesContext), with ctx's error.
func ReadModelContext(ctx context.Context, opt mlnfile.Options, path string, evidence []string) (*Input, error) {
	return ReadModelFormat(ctx, opt, "", path, evidence)
}

// ReadModelFormat is ReadModelContext for a model in the MLN format named
// by formatName (the --format flag; "" tells it from the extension, see
// format.Detect): a format with its own reader (format.Format.ReadMLN: the
// WFOMC tool's .wfomcs, and its .mln syntax as "wfomcs-mln") gives the MLN
// and the evidence its file lists, to which the evidence files add;
// anything else is read as lifted's .mln syntax with opt.
func ReadModelFormat(ctx context.Context, opt mlnfile.Options, formatName, path string, evidence []string) (*Input, error) {
	in := &Input{}
	if f, err := format.Detect(path, formatName); err == nil && f.ReadMLN != nil {
		fh, err := os.Open(path)
		if err != nil {
			return in, err
		}
		m, db, err := f.ReadMLN(memlimit.Reader(fh, path), path)
		fh.Close()
		if err != nil {
			return in, err
		}
		in.MLN, in.Warnings, in.Dialect, in.DB = m, m.Warnings, m.Dialect, db
		for _, p := range evidence {
			fh, err := os.Open(p)
			if err != nil {
				return in, err
			}
			err = mlnfile.ReadDBIntoContext(ctx, db, memlimit.Reader(fh, p), p)
			fh.Close()
			if err != nil {
				return in, err
			}
		}
		in.Warnings = append(in.Warnings, db.Warnings...)
		return in, mlnfile.Empty(m, path)
	} else if err != nil && formatName != "" {
		return in, err
	}
	m, err := mlnfile.ParseFilesWith(opt, path)
	if err != nil {
		return in, err
	}
	if m.Dialect.Dialect == mln.DialectLoMRF && mln.HasSuccessors(m) {
		// LoMRF's t++ is the integer successor (mln.StaticSuccessors).
		if m, err = mln.StaticSuccessors(m); err != nil {
			return in, err
		}
	}
	in.MLN, in.Warnings, in.Dialect = m, m.Warnings, m.Dialect
	if err := mlnfile.Empty(m, path); err != nil {
		return in, err
	}
	if len(evidence) > 0 {
		if in.DB, err = mlnfile.ReadDBFilesContext(ctx, m, evidence...); err != nil {
			return in, err
		}
		in.Warnings = append(in.Warnings, in.DB.Warnings...)
	} else {
		in.DB = mln.NewDB(m)
	}
	if err := mln.AddSuccessorEvidence(in.DB); err != nil {
		return in, err
	}
	return in, nil
}

// ReadQueryFiles reads files of query atoms (Alchemy's -f, Tuffy's
// -queryFile: atoms one per line or comma-separated) and returns the atoms
// as -q values. A file without atoms is a *QueryError.
func ReadQueryFiles(m *mln.MLN, paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fh, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		atoms, err := mlnfile.ReadQuery(memlimit.Reader(fh, p), p, m)
		fh.Close()
		if err != nil {
			return nil, err
		}
		if len(atoms) == 0 {
			return nil, &QueryError{fmt.Errorf("%s: no query atoms", p)}
		}
		for _, a := range atoms {
			out = append(out, a.String())
		}
	}
	return out, nil
}
