package train

import (
	"bufio"
	"context"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/online"
)

// Data names the files a worker rebuilds the training model from: the MLN,
// the training databases, the holdout databases (which "+x" is expanded
// against) and the non-evidence predicates, and the pieces (written by
// WritePieces).
type Data struct {
	MLN     string
	Train   []string
	Holdout []string
	NE      []string
	Pieces  string
}

// Load reads the MLN and the databases as lifted learn's online learners do
// (online.LoadData: starred atoms and "+x" expanded, "!" as hard formulas
// after the user's, every predicate predicted when NE is empty and the data
// observe every atom).
func (d Data) Load() (*online.Data, error) {
	return online.LoadData(d.MLN, d.Train, d.Holdout, d.NE)
}

func (d Data) key() string {
	return strings.Join([]string{d.MLN, strings.Join(d.Train, ","), strings.Join(d.Holdout, ","), strings.Join(d.NE, ","), d.Pieces}, "\x00")
}

type loaded struct {
	md     *online.Model
	pieces *online.Pieces
}

var cache sync.Map // Data.key() → *loaded: one model per worker process

func (d Data) worker(ctx context.Context) (*loaded, error) {
	if l, ok := cache.Load(d.key()); ok {
		return l.(*loaded), nil
	}
	ld, err := d.Load()
	if err != nil {
		return nil, err
	}
	md := ld.Model
	fs, err := filesystem.New(ctx, d.Pieces)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, d.Pieces)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var p online.Pieces
	if err := gob.NewDecoder(bufio.NewReader(r)).Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", d.Pieces, err)
	}
	l := &loaded{md, &p}
	cache.Store(d.key(), l)
	return l, nil
}

// WritePieces writes pieces where Data.Pieces names them (any Beam
// filesystem).
func WritePieces(path string, p *online.Pieces) error {
	ctx := context.Background()
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return err
	}
	defer fs.Close()
	f, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := gob.NewEncoder(w).Encode(p); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Terms are the raw gradient terms of one piece or a sum of them.
type Terms struct {
	Count, Expected, Data []float64
	Loss                  float64
	Hidden                bool
	Converged             bool
	GroundVars            int
	GroundFactors         int
	LiftedNodes           int
	LiftedFactors         int
}

func termsOf(r *online.BatchResult) Terms {
	return Terms{r.Count, r.Expected, r.Data, r.Loss, r.Hidden, r.Converged, r.GroundVars, r.GroundFactors, r.LiftedNodes, r.LiftedFactors}
}

func (t Terms) result() *online.BatchResult {
	return &online.BatchResult{Grad: make([]float64, len(t.Count)), Count: t.Count, Expected: t.Expected, Data: t.Data,
		Loss: t.Loss, Hidden: t.Hidden, Converged: t.Converged, GroundVars: t.GroundVars, GroundFactors: t.GroundFactors,
		LiftedNodes: t.LiftedNodes, LiftedFactors: t.LiftedFactors}
}

// Options are the gradient options a worker uses (online.GradOptions
// without the callbacks, which do not travel).
type Options struct {
	Ground      bool    // ground instead of lifted BP
	Workers     int     // colour passing of each BP run on this many cores (online.GradOptions.Workers)
	Tol         float64 // BP tolerance and iteration limit over bp.DefaultOptions (MaxIter 0: the defaults)
	MaxIter     int
	NoNormalize bool
}

func (o Options) grad() online.GradOptions {
	g := online.GradOptions{Ground: o.Ground, Workers: o.Workers, NoNormalize: o.NoNormalize}
	if o.MaxIter != 0 {
		g.BP = bp.DefaultOptions()
		g.BP.Tol, g.BP.MaxIter = o.Tol, o.MaxIter
	}
	return g
}

// pieceFn is the map step: the gradient terms of one piece at weights W.
type pieceFn struct {
	Data    Data
	W       []float64
	Options Options
}

func (fn *pieceFn) ProcessElement(ctx context.Context, piece int32, emit func(Terms)) error {
	l, err := fn.Data.worker(ctx)
	if err != nil {
		return err
	}
	r, err := l.md.PieceGradient(ctx, fn.W, l.pieces, []int32{piece}, fn.Options.grad())
	if err != nil {
		return err
	}
	emit(termsOf(r))
	return nil
}

// addTerms is the reduce step (online.AddGradient).
func addTerms(a, b Terms) Terms {
	acc := a.result()
	acc.Count = append([]float64(nil), a.Count...)
	acc.Expected = append([]float64(nil), a.Expected...)
	acc.Data = append([]float64(nil), a.Data...)
	online.AddGradient(acc, b.result())
	return termsOf(acc)
}

func encodeTerms(t Terms) (string, error) {
	b, err := json.Marshal(t)
	return string(b), err
}

func init() {
	register.DoFn3x1[context.Context, int32, func(Terms), error](&pieceFn{})
	register.Function2x1[Terms, Terms, Terms](addTerms)
	register.Function1x2[Terms, string, error](encodeTerms)
	register.Emitter1[Terms]()
	beam.RegisterType(reflect.TypeOf((*Terms)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Data)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*Options)(nil)).Elem())
}

// Job builds the pipeline of one mini-batch: the gradient terms of every
// piece of batch at weights w, summed, written as one JSON line to out.
func Job(d Data, w []float64, batch []int32, opt Options, out string) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	pieces := beam.CreateList(s, batch)
	terms := beam.ParDo(s, &pieceFn{Data: d, W: w, Options: opt}, pieces)
	sum := beam.Combine(s, addTerms, terms)
	textio.Write(s, out, beam.ParDo(s, encodeTerms, sum))
	return p
}

// Gradient returns an online.TrainOptions.Gradient that computes every
// mini-batch by a Beam job run with run, keeping its files in dir.
func Gradient(d Data, opt Options, dir string, run func(context.Context, *beam.Pipeline) error) func(context.Context, []float64, []int32) (*online.BatchResult, error) {
	job := 0
	return func(ctx context.Context, w []float64, batch []int32) (*online.BatchResult, error) {
		job++
		out := strings.TrimSuffix(dir, "/") + "/" + fmt.Sprintf("batch-%d.json", job)
		if err := run(ctx, Job(d, append([]float64(nil), w...), append([]int32(nil), batch...), opt, out)); err != nil {
			return nil, fmt.Errorf("train: mini-batch %d: %w", job, err)
		}
		fs, err := filesystem.New(ctx, out)
		if err != nil {
			return nil, err
		}
		b, err := filesystem.Read(ctx, fs, out)
		fs.Close()
		if err != nil {
			return nil, err
		}
		var t Terms
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("%s: %w", out, err)
		}
		r := t.result()
		online.FinishGradient(r, opt.NoNormalize)
		return r, nil
	}
}
