package format

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format/uai"
	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/mln"
)

// Kind tells what a format's files hold.
type Kind int

const (
	// Graph files hold a factor graph (or a formula that is turned into
	// one); Load reads them.
	Graph Kind = iota
	// MLN files hold a Markov logic network, which package mln reads and
	// package ground turns into a graph given evidence; Load refuses them.
	MLN
)

// Format describes one registered file format.
type Format struct {
	// Name is the format's name, as Options.Format (and the --format flag)
	// takes it, e.g. "uai".
	Name string
	// Exts are the file extensions that select the format when no name is
	// given, in lower case with the dot, e.g. ".uai".
	Exts []string
	// Kind is what the files hold.
	Kind Kind
	// Read reads a model from r; name is the file name used in error
	// positions. It is nil for a format that Load does not read (MLN), and
	// required otherwise.
	Read func(r io.Reader, name string, opt Options) (*Model, error)
	// ReadMLN reads an MLN format other than lifted's own .mln syntax
	// (which package format/mlnfile reads, and for which it is nil): the
	// MLN and the evidence the file itself lists (an empty database when
	// none). Readers of MLN files (ground.ReadModelFormat) call it.
	ReadMLN func(r io.Reader, name string) (*mln.MLN, *mln.DB, error)
}

// Options configure Load and Read.
type Options struct {
	// Format names the format; "" tells it from the file's extension.
	Format string
	// NoGraph leaves Model.Graph nil for a format whose model is not itself
	// a graph (cnf: the caller wants the formula, whose conversion can fail
	// where the formula is fine, e.g. on an empty clause). Graph formats
	// ignore it.
	NoGraph bool
}

// Model is a model read from a file, with what writers and other consumers
// need besides the graph.
type Model struct {
	// Format is the name of the format read: "uai", "fg" or "cnf".
	Format string
	// Graph is the factor graph; nil only for cnf input read with
	// Options.NoGraph.
	Graph *fg.Graph
	// CNF is the formula of cnf input (nil for other formats): Graph is
	// cnf.ToGraph(CNF), and a model counter can use it directly.
	CNF *cnf.CNF
	// UAIType is the model type of uai input: uai.Markov or uai.Bayes.
	UAIType string
	// Labels are the variable labels of fg input (libdai.Model.Labels).
	Labels []int64
}

// UsageError reports a format that cannot be told or is unknown, or input a
// caller asked for in the wrong place (an MLN given to Load, several
// evidence files): a mistake in how a command was called rather than in a
// file.
type UsageError struct{ Err error }

// Error returns the message of the UsageError.
func (e *UsageError) Error() string { return e.Err.Error() }

// Unwrap returns the underlying error.
func (e *UsageError) Unwrap() error { return e.Err }

// ErrNotGraph is wrapped by Load's error for a file of a format that does
// not hold a factor graph (an MLN).
var ErrNotGraph = errors.New("not a factor graph: Markov logic networks are read by package mln")

// registry is the table of formats, in registration order.
type registry struct {
	mu      sync.RWMutex
	formats []Format
}

// formats holds the built-in formats from the start (see builtin.go).
var formats = &registry{formats: builtin()}

// Register adds a format. Its name and extensions must not be registered
// already, its extensions must be lower case and start with a dot, and a
// Graph format needs a Read function.
func Register(f Format) error {
	if f.Name == "" {
		return errors.New("format: Register: empty name")
	}
	if f.Kind == Graph && f.Read == nil {
		return fmt.Errorf("format: Register %q: a graph format needs a Read function", f.Name)
	}
	for _, e := range f.Exts {
		if len(e) < 2 || e[0] != '.' || e != strings.ToLower(e) {
			return fmt.Errorf("format: Register %q: extension %q is not a dot and a lower-case suffix", f.Name, e)
		}
	}
	formats.mu.Lock()
	defer formats.mu.Unlock()
	for _, g := range formats.formats {
		if g.Name == f.Name {
			return fmt.Errorf("format: Register: %q is registered already", f.Name)
		}
		for _, e := range f.Exts {
			for _, x := range g.Exts {
				if e == x {
					return fmt.Errorf("format: Register %q: extension %q belongs to %q", f.Name, e, g.Name)
				}
			}
		}
	}
	f.Exts = append([]string(nil), f.Exts...)
	formats.formats = append(formats.formats, f)
	return nil
}

// Formats returns the registered formats in registration order.
func Formats() []Format {
	formats.mu.RLock()
	defer formats.mu.RUnlock()
	out := append([]Format(nil), formats.formats...)
	for i := range out {
		out[i].Exts = append([]string(nil), out[i].Exts...)
	}
	return out
}

// Lookup returns the format of the given name.
func Lookup(name string) (Format, bool) {
	for _, f := range Formats() {
		if f.Name == name {
			return f, true
		}
	}
	return Format{}, false
}

// graphNames lists the names of the Graph formats, for messages.
func graphNames(all []Format) []string {
	var names []string
	for _, f := range all {
		if f.Kind == Graph {
			names = append(names, f.Name)
		}
	}
	return names
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Detect returns the format named by flag or, when flag is "", the one
// registered for path's extension (without regard to case). An unknown flag
// or extension is a *UsageError naming the graph formats: "unknown --format
// "x" (want uai, fg or cnf)" and "PATH: cannot tell the format from the
// extension; use --format uai|fg|cnf".
func Detect(path, flag string) (Format, error) {
	all := Formats()
	if flag != "" {
		for _, f := range all {
			if f.Name == flag {
				return f, nil
			}
		}
		return Format{}, &UsageError{fmt.Errorf("unknown --format %q (want %s)", flag, orList(graphNames(all)))}
	}
	ext := strings.ToLower(filepath.Ext(path))
	for _, f := range all {
		for _, e := range f.Exts {
			if e == ext {
				return f, nil
			}
		}
	}
	return Format{}, &UsageError{fmt.Errorf("%s: cannot tell the format from the extension; use --format %s", path, strings.Join(graphNames(all), "|"))}
}

// IsMLN reports whether the model at path, read as flag says (a format name
// or ""), is a Markov logic network: flag names an MLN format ("mln",
// "wfomcs", "wfomcs-mln"), or flag is "" and the extension is one of theirs
// (.mln, .wfomcs).
func IsMLN(path, flag string) bool {
	f, err := Detect(path, flag)
	return err == nil && f.Kind == MLN
}

// Load reads the model file at path in the format that opt.Format names or,
// if it is "", that the extension tells (see Detect). The format is decided
// before the file is opened, so a format error comes first; a file that
// cannot be opened gives the *os.PathError, and bad content the reader's
// *pos.Error.
func Load(path string, opt Options) (*Model, error) {
	f, err := Detect(path, opt.Format)
	if err != nil {
		return nil, err
	}
	if f.Read == nil {
		return nil, &UsageError{fmt.Errorf("%s: %w", path, ErrNotGraph)}
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return f.Read(memlimit.Reader(fh, path), path, opt)
}

// Read is Load for a model already open: name stands for the path, both in
// detecting the format and in error positions.
func Read(r io.Reader, name string, opt Options) (*Model, error) {
	f, err := Detect(name, opt.Format)
	if err != nil {
		return nil, err
	}
	if f.Read == nil {
		return nil, &UsageError{fmt.Errorf("%s: %w", name, ErrNotGraph)}
	}
	return f.Read(r, name, opt)
}

// LoadEvidence reads the evidence for g from paths: none gives nil (no
// evidence), one a UAI evidence file (uai.ReadEvidence, 2010 or 2014 form),
// and more than one is a *UsageError.
func LoadEvidence(paths []string, g *fg.Graph) (fg.Evidence, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	if len(paths) > 1 {
		return nil, &UsageError{fmt.Errorf("a factor graph takes one evidence file, got %d", len(paths))}
	}
	path := paths[0]
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return uai.ReadEvidence(memlimit.Reader(f, path), path, g)
}
