package colourpass

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem/local"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/lift"
)

// Refiner is lift.Refiner on Apache Beam: pass it to lift.CompressWith or
// infer.CompressWith.
type Refiner struct {
	// Parts is the number of parts the graph is split into (≥ 1).
	Parts int
	// RoundsPerJob is the number of rounds unrolled into one pipeline
	// (default 4): fewer jobs, but rounds past the stable one are wasted.
	RoundsPerJob int
	// WorkDir holds the part files, colours and counts between jobs; any
	// Beam filesystem path the workers can read (default: a temporary
	// directory, which only local runners can read).
	WorkDir string
	// Run runs a pipeline (for example beamx.Run, which honours --runner).
	Run func(ctx context.Context, p *beam.Pipeline) error
	// Stats, if set, receives the partition's cut size and the number of
	// jobs run.
	Stats *Stats
}

// Stats describe a Beam colour-passing run.
type Stats struct {
	Parts                 int
	CutEdges              int64
	CopyVars, CopyFactors int64
	Jobs                  int
}

const factorBit = int64(1) << 32

// key of a node: variables are their id, factors 2^32 + id.
func varKey(v int32) int64    { return int64(v) }
func factorKey(f int32) int64 { return factorBit | int64(f) }

// NodeColour is a node's colour on its way to a part.
type NodeColour struct {
	Key    int64
	Colour int32
}

func init() {
	register.DoFn4x1[context.Context, string, func(int32, string), func(int64, int32), error](&partSubsFn{})
	register.DoFn4x0[int64, func(*int32) bool, func(*int32) bool, func(int32, NodeColour)](&routeFn{})
	register.DoFn5x1[context.Context, int32, func(*string) bool, func(*NodeColour) bool, func([]byte, int32), error](&signFn{})
	register.DoFn3x0[[]byte, func(*int32) bool, func(int64, int32)](&recolourFn{})
	register.DoFn2x1[string, func(int64, int32), error](&parseColourFn{})
	register.Function2x1[int64, int32, string](formatColour)
	register.DoFn3x0[int64, int32, func(int)](&oneFn{})
	register.Function2x1[int, int, int](sumInts)
	register.DoFn2x0[int, func(string)](&labelFn{})
	register.Emitter2[int32, string]()
	register.Emitter2[int64, int32]()
	register.Emitter2[int32, NodeColour]()
	register.Emitter2[[]byte, int32]()
	register.Emitter1[int]()
	register.Emitter1[string]()
	register.Iter1[int32]()
	register.Iter1[string]()
	register.Iter1[NodeColour]()
	beam.RegisterType(reflect.TypeOf((*NodeColour)(nil)).Elem())
}

// parts are read once per worker process.
var partCache sync.Map // path → *lift.Part

func loadPart(ctx context.Context, path string) (*lift.Part, error) {
	if p, ok := partCache.Load(path); ok {
		return p.(*lift.Part), nil
	}
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var p lift.Part
	if err := gob.NewDecoder(bufio.NewReader(r)).Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	partCache.Store(path, &p)
	return &p, nil
}

// partSubsFn emits (part, path) and every node a part reads (owned or
// copied) as (node key, part).
type partSubsFn struct{}

func (*partSubsFn) ProcessElement(ctx context.Context, path string, part func(int32, string), sub func(int64, int32)) error {
	p, err := loadPart(ctx, path)
	if err != nil {
		return err
	}
	q := int32(p.Index)
	part(q, path)
	for _, v := range p.Vars {
		sub(varKey(v), q)
	}
	for _, v := range p.CopyVars {
		sub(varKey(v), q)
	}
	for _, f := range p.Factors {
		sub(factorKey(f), q)
	}
	for _, f := range p.CopyFactors {
		sub(factorKey(f), q)
	}
	return nil
}

// routeFn sends a node's colour to every part that reads it.
type routeFn struct{}

func (*routeFn) ProcessElement(key int64, colours func(*int32) bool, parts func(*int32) bool, emit func(int32, NodeColour)) {
	var c int32
	if !colours(&c) {
		return
	}
	var q int32
	for parts(&q) {
		emit(q, NodeColour{key, c})
	}
}

// signFn is the map step: a part signs its factors (Factors) or variables.
type signFn struct {
	Factors bool
}

func (fn *signFn) ProcessElement(ctx context.Context, q int32, paths func(*string) bool, colours func(*NodeColour) bool, emit func([]byte, int32)) error {
	var path string
	if !paths(&path) {
		return nil
	}
	p, err := loadPart(ctx, path)
	if err != nil {
		return err
	}
	col := map[int64]int32{}
	var nc NodeColour
	for colours(&nc) {
		col[nc.Key] = nc.Colour
	}
	lookup := func(key func(int32) int64) func(int32) int32 {
		return func(i int32) int32 {
			c, ok := col[key(i)]
			if !ok {
				panic(fmt.Sprintf("colourpass: part %d has no colour for node %d", q, key(i)))
			}
			return c
		}
	}
	vc, fcol := lookup(varKey), lookup(factorKey)
	out := func(sig []byte, id int32) { emit(append([]byte(nil), sig...), id) }
	var s lift.Signer
	if fn.Factors {
		s.SignFactors(p, fcol, vc, out)
	} else {
		s.SignVars(p, vc, fcol, out)
	}
	return nil
}

// recolourFn is the reduce step: every member of a group of equal
// signatures takes the group's smallest id.
type recolourFn struct {
	Factors bool
}

func (fn *recolourFn) ProcessElement(_ []byte, ids func(*int32) bool, emit func(int64, int32)) {
	var members []int32
	var id int32
	for ids(&id) {
		members = append(members, id)
	}
	c := lift.NewColour(members)
	for _, m := range members {
		if fn.Factors {
			emit(factorKey(m), c)
		} else {
			emit(varKey(m), c)
		}
	}
}

type parseColourFn struct{}

func (*parseColourFn) ProcessElement(line string, emit func(int64, int32)) error {
	k, c, ok := strings.Cut(line, " ")
	key, err1 := strconv.ParseInt(k, 10, 64)
	col, err2 := strconv.ParseInt(c, 10, 32)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("colourpass: bad colour line %q", line)
	}
	emit(key, int32(col))
	return nil
}

func formatColour(key int64, c int32) string { return fmt.Sprintf("%d %d", key, c) }

// oneFn emits 1 per element whose colour is its own key: one per class,
// since a class is named by its smallest member.
type oneFn struct{}

func (*oneFn) ProcessElement(key int64, c int32, emit func(int)) {
	if int64(c) == key&^factorBit {
		emit(1)
	}
}

func sumInts(a, b int) int { return a + b }

// labelFn tags a class count with its round and kind.
type labelFn struct {
	Label string
}

func (fn *labelFn) ProcessElement(n int, emit func(string)) { emit(fmt.Sprintf("%s %d", fn.Label, n)) }

// phase runs one half round: signatures of the factors (or variables) given
// colours, grouped and recoloured.
func phase(s beam.Scope, factors bool, colours, subs, partPaths beam.PCollection) beam.PCollection {
	routed := beam.ParDo(s, &routeFn{}, beam.CoGroupByKey(s, colours, subs))
	sigs := beam.ParDo(s, &signFn{Factors: factors}, beam.CoGroupByKey(s, partPaths, routed))
	return beam.ParDo(s, &recolourFn{Factors: factors}, beam.GroupByKey(s, sigs))
}

// classCount counts the classes of a colour PCollection, labelled.
func classCount(s beam.Scope, colours beam.PCollection, label string) beam.PCollection {
	n := beam.Combine(s, sumInts, beam.ParDo(s, &oneFn{}, colours))
	return beam.ParDo(s, &labelFn{Label: label}, n)
}

// Job builds one pipeline: rounds rounds of colour passing from the colours
// in colourFile over the parts in partFiles, writing the colours to outFile
// and the class counts after every round to countFile ("ROUND v|f N").
func Job(partFiles []string, colourFile, outFile, countFile string, rounds int) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	paths := beam.CreateList(s, partFiles)
	partPaths, subs := beam.ParDo2(s, &partSubsFn{}, paths)
	all := beam.ParDo(s, &parseColourFn{}, textio.Read(s, colourFile))
	vars, facs := beam.ParDo2(s, splitKinds, all)
	var counts []beam.PCollection
	for r := 1; r <= rounds; r++ {
		rs := s.Scope(fmt.Sprintf("round%d", r))
		facs = phase(rs.Scope("factors"), true, beam.Flatten(rs, vars, facs), subs, partPaths)
		vars = phase(rs.Scope("variables"), false, beam.Flatten(rs, vars, facs), subs, partPaths)
		counts = append(counts, classCount(rs, facs, fmt.Sprintf("%d f", r)), classCount(rs, vars, fmt.Sprintf("%d v", r)))
	}
	textio.Write(s, outFile, beam.ParDo(s, formatColour, beam.Flatten(s, vars, facs)))
	textio.Write(s, countFile, beam.Flatten(s, counts...))
	return p
}

func splitKinds(key int64, c int32, vars, facs func(int64, int32)) {
	if key&factorBit != 0 {
		facs(key, c)
	} else {
		vars(key, c)
	}
}

func init() {
	register.Function4x0[int64, int32, func(int64, int32), func(int64, int32)](splitKinds)
}

// Refine implements lift.Refiner.
func (r Refiner) Refine(ctx context.Context, g *fg.Graph, ev fg.Evidence, opt lift.Options) (*lift.Colouring, error) {
	k := max(1, r.Parts)
	dir, cleanup, err := r.workDir()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	keys, sorted, vc0, fc0 := lift.SlotKeys(g, ev, opt)
	vc, fc := lift.IdentityColours(vc0), lift.IdentityColours(fc0)
	nv, nf := classes(vc), classes(fc)
	part := lift.NewPartition(g, k)
	if r.Stats != nil {
		*r.Stats = Stats{Parts: part.K, CutEdges: part.CutEdges, CopyVars: part.CopyVars, CopyFactors: part.CopyFactors}
	}
	var partFiles []string
	for _, pt := range part.Parts(g, keys, sorted) {
		name := joinPath(dir, fmt.Sprintf("part-%05d.gob", pt.Index))
		if err := writeFile(name, func(w *bufio.Writer) error { return gob.NewEncoder(w).Encode(pt) }); err != nil {
			return nil, err
		}
		partFiles = append(partFiles, name)
	}
	if err := writeColours(joinPath(dir, "colours-0.txt"), vc, fc); err != nil {
		return nil, err
	}
	rounds, last, err := r.rounds(ctx, partFiles, dir, nv, nf, opt)
	if err != nil {
		return nil, err
	}
	if vc, fc, err = readColours(last, len(vc), len(fc)); err != nil {
		return nil, err
	}
	return lift.FinishColouring(vc, fc, keys, rounds), nil
}

// rounds runs jobs of RoundsPerJob rounds from the colours in
// dir/colours-0.txt over the parts in partFiles, nv and nf being their
// numbers of variable and factor classes, until the class counts stop
// changing (or opt.MaxIter rounds), and returns the number of rounds and
// the file of the last colours. The colours go from job to job through
// files; the driver reads only the class counts.
func (r Refiner) rounds(ctx context.Context, partFiles []string, dir string, nv, nf int, opt lift.Options) (int, string, error) {
	per := r.RoundsPerJob
	if per <= 0 {
		per = 4
	}
	rounds := 0
	for job := 0; ; job++ {
		if err := ctx.Err(); err != nil {
			return 0, "", fmt.Errorf("%w: %w", lift.ErrCancelled, err)
		}
		in := joinPath(dir, fmt.Sprintf("colours-%d.txt", job))
		n := per
		if opt.MaxIter > 0 {
			n = min(n, opt.MaxIter-rounds)
		}
		if n <= 0 {
			return rounds, in, nil
		}
		out := joinPath(dir, fmt.Sprintf("colours-%d.txt", job+1))
		cnt := joinPath(dir, fmt.Sprintf("counts-%d.txt", job+1))
		if err := r.Run(ctx, Job(partFiles, in, out, cnt, n)); err != nil {
			return 0, "", fmt.Errorf("colourpass: job %d: %w", job+1, err)
		}
		if r.Stats != nil {
			r.Stats.Jobs++
		}
		counts, err := readCounts(cnt, n)
		if err != nil {
			return 0, "", err
		}
		// The first round whose counts equal those before it is the
		// stable one; later rounds of the job left the colours as they were.
		stable := false
		for i := range n {
			rounds++
			if opt.Progress != nil {
				opt.Progress(rounds, counts[i][0], counts[i][1])
			}
			if counts[i][0] == nv && counts[i][1] == nf {
				stable = true
				break
			}
			nv, nf = counts[i][0], counts[i][1]
		}
		if stable || (opt.MaxIter > 0 && rounds >= opt.MaxIter) {
			return rounds, out, nil
		}
	}
}

// workDir returns the directory of one run: a new directory under
// WorkDir, so that a worker process that caches parts by path never mixes
// two runs, or a temporary directory (removed by cleanup).
func (r Refiner) workDir() (dir string, cleanup func(), err error) {
	if r.WorkDir != "" {
		return joinPath(r.WorkDir, fmt.Sprintf("run-%d-%d", time.Now().UnixNano(), os.Getpid())), func() {}, nil
	}
	d, err := os.MkdirTemp("", "colourpass")
	if err != nil {
		return "", nil, err
	}
	return d, func() { os.RemoveAll(d) }, nil
}

func classes(c []int32) int {
	n := 0
	for i, x := range c {
		if int(x) == i {
			n++
		}
	}
	return n
}

// joinPath joins a Beam filesystem directory (a local path or a URL such
// as gs://bucket/dir) and a file name.
func joinPath(dir, name string) string { return strings.TrimSuffix(dir, "/") + "/" + name }

// writeFile writes a file on any Beam filesystem.
func writeFile(name string, write func(*bufio.Writer) error) error {
	ctx := context.Background()
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return err
	}
	defer fs.Close()
	f, err := fs.OpenWrite(ctx, name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if err := write(w); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readFile reads a file from any Beam filesystem.
func readFile(name string) ([]byte, error) {
	ctx := context.Background()
	fs, err := filesystem.New(ctx, name)
	if err != nil {
		return nil, err
	}
	defer fs.Close()
	return filesystem.Read(ctx, fs, name)
}

func writeColours(name string, vc, fc []int32) error {
	return writeFile(name, func(w *bufio.Writer) error {
		for v, c := range vc {
			fmt.Fprintf(w, "%d %d\n", varKey(int32(v)), c)
		}
		for f, c := range fc {
			fmt.Fprintf(w, "%d %d\n", factorKey(int32(f)), c)
		}
		return nil
	})
}

func readColours(name string, nv, nf int) (vc, fc []int32, err error) {
	b, err := readFile(name)
	if err != nil {
		return nil, nil, err
	}
	vc, fc = make([]int32, nv), make([]int32, nf)
	seen := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, c, ok := strings.Cut(sc.Text(), " ")
		key, err1 := strconv.ParseInt(k, 10, 64)
		col, err2 := strconv.ParseInt(c, 10, 32)
		id := key &^ factorBit
		switch {
		case !ok || err1 != nil || err2 != nil:
			return nil, nil, fmt.Errorf("%s: bad line %q", name, sc.Text())
		case key&factorBit != 0 && id < int64(nf):
			fc[id] = int32(col)
		case key&factorBit == 0 && id < int64(nv):
			vc[id] = int32(col)
		default:
			return nil, nil, fmt.Errorf("%s: node %d out of range", name, key)
		}
		seen++
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	if seen != nv+nf {
		return nil, nil, fmt.Errorf("%s: %d colours for %d nodes", name, seen, nv+nf)
	}
	return vc, fc, nil
}

// readCounts returns per round the numbers of variable and factor classes.
func readCounts(name string, rounds int) ([][2]int, error) {
	b, err := readFile(name)
	if err != nil {
		return nil, err
	}
	out := make([][2]int, rounds)
	got := 0
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	sort.Strings(lines)
	for _, l := range lines {
		if l == "" {
			continue // no classes of either kind (an empty graph)
		}
		var r, n int
		var kind string
		if _, err := fmt.Sscanf(l, "%d %s %d", &r, &kind, &n); err != nil || r < 1 || r > rounds {
			return nil, fmt.Errorf("%s: bad line %q", name, l)
		}
		if kind == "v" {
			out[r-1][0] = n
		} else {
			out[r-1][1] = n
		}
		got++
	}
	if got > 2*rounds {
		return nil, fmt.Errorf("%s: %d counts for %d rounds", name, got, rounds)
	}
	return out, nil
}
