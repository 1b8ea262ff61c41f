package engine

import (
	"context"
	"errors"
	"fmt"
	"github.com/lifted-dev/lifted/infer"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format"
	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/pos"
)

// LoadOptions say how to read a model.
type LoadOptions struct {
	// Format names the model's format ("" : from the extension).
	Format string
	// Evidence are the evidence files (see Request.Evidence).
	Evidence []string
	// Dynamic keeps an MLN's evidence for a dynamic run, which reads it
	// per time step: directories stand for their .db files.
	Dynamic bool
	// Dialect is the MLN system whose syntax and semantics the model
	// follows (mln.DialectAuto, the zero value: detected from the syntax).
	Dialect mln.Dialect
}

// Model is a model read and parsed once, with its evidence, to be queried
// many times by Run. It is not changed by Run, and any number of Runs may
// query it at once, from as many goroutines (TestConcurrentRun, run under
// the race detector in CI).
type Model struct {
	// Path is the file the model was read from.
	Path string
	// Format is the format read: "mln" (or the WFOMC tool's "wfomcs",
	// "wfomcs-mln"), "uai", "fg" or "cnf".
	Format string
	// Warnings are the parser's warnings on the model and its evidence.
	Warnings []*pos.Error

	// A factor graph, its evidence and what its reader returned.
	Graph    *fg.Graph
	Evidence fg.Evidence
	File     *format.Model

	// An MLN and its evidence database (nil for a dynamic load, which
	// reads the evidence per step from EvidenceFiles).
	MLN           *mln.MLN
	DB            *mln.DB
	EvidenceFiles []string
}

// IsMLN reports whether the model is a Markov logic network.
func (m *Model) IsMLN() bool { return m.MLN != nil }

// Load reads the model at path and its evidence.
func Load(path string, opt LoadOptions) (*Model, error) {
	return LoadContext(context.Background(), path, opt)
}

// LoadContext is Load that stops reading an MLN's evidence when ctx ends
// (Ctrl-C while a large database is read), with ctx's error.
func LoadContext(ctx context.Context, path string, opt LoadOptions) (*Model, error) {
	if format.IsMLN(path, opt.Format) {
		return loadMLN(ctx, path, opt)
	}
	fm, err := format.Load(path, format.Options{Format: opt.Format})
	if err != nil {
		return nil, usage(err)
	}
	ev, err := format.LoadEvidence(opt.Evidence, fm.Graph)
	if err != nil {
		return nil, usage(err)
	}
	return &Model{Path: path, Format: fm.Format, Graph: fm.Graph, Evidence: ev, File: fm}, nil
}

// usage makes format's usage errors RequestErrors.
func usage(err error) error {
	var ue *format.UsageError
	if errors.As(err, &ue) {
		return &RequestError{err}
	}
	return err
}

func loadMLN(ctx context.Context, path string, opt LoadOptions) (*Model, error) {
	md := &Model{Path: path, Format: "mln"}
	if f, err := format.Detect(path, opt.Format); err == nil {
		md.Format = f.Name
		if f.ReadMLN != nil && opt.Dynamic {
			return nil, &RequestError{fmt.Errorf("%s: a dynamic MLN must be in lifted's .mln syntax, not %s", path, f.Name)}
		}
	}
	popt := mlnfile.Options{Dialect: opt.Dialect}
	if opt.Dynamic {
		m, err := mlnfile.ParseFilesWith(popt, path)
		if err == nil {
			err = mlnfile.Empty(m, path)
		}
		if err != nil {
			return nil, err
		}
		md.MLN, md.Warnings = m, m.Warnings
		md.EvidenceFiles, err = evidenceFiles(opt.Evidence)
		return md, err
	}
	in, err := ground.ReadModelFormat(ctx, popt, opt.Format, path, opt.Evidence)
	if in.MLN == nil {
		return nil, err
	}
	md.MLN, md.DB, md.Warnings, md.EvidenceFiles = in.MLN, in.DB, in.Warnings, opt.Evidence
	return md, err // on an error md.Warnings are the model's, for the caller to show
}

// evidenceFiles expands directories into their .db files (sorted).
func evidenceFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		files, err := filepath.Glob(filepath.Join(p, "*.db"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no .db files in the evidence directory", p)
		}
		sort.Strings(files)
		out = append(out, files...)
	}
	return out, nil
}

// Run loads req.Model with req.Evidence and answers req: Load, then
// (*Model).Run.
func Run(ctx context.Context, req Request) (*Result, error) {
	dyn := req.Dynamic != nil
	start := time.Now()
	m, err := LoadContext(ctx, req.Model, LoadOptions{Format: req.Format, Evidence: req.Evidence, Dynamic: dyn, Dialect: req.Dialect})
	read := time.Since(start).Seconds()
	if m != nil && req.Warn != nil && len(m.Warnings) > 0 {
		req.Warn(m.Warnings)
	}
	if err != nil {
		return nil, err
	}
	res, err := m.Run(ctx, req)
	if res != nil {
		// The whole run: reading the model and its evidence too.
		res.Stats.TotalSeconds += read
		if res.Stats.Stages != nil {
			res.Stats.Stages = append([]infer.StageTime{{Stage: "read", Seconds: read}}, res.Stats.Stages...)
		}
	}
	return res, err
}
