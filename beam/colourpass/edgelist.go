package colourpass

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/textio"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lifted-dev/lifted/lift"
)

// This file runs colour passing on a sharded edge list (lift.WriteEdgeList's
// format, written by "lifted convert --to edgelist"), read by the workers
// from a glob on any Beam filesystem, so that no process but the workers
// ever holds the graph. A setup job parses the shards, splits the graph
// into parts by variable ranges (variable v of n goes to part v·K/n, a
// factor to the part of its first variable), builds every part with its
// copy nodes and writes it to the work directory, and gives every node its
// initial colour; then the rounds run as for a graph file (Job); a finish
// job renumbers the classes densely (by their smallest member, as
// ColourPassing numbers them), writes every node's class and counts the
// slots of the compressed graph. The driver reads only counts.

// EdgeListResult describes colour passing on an edge list: the statistics
// of "lifted compress" that do not need the tables.
type EdgeListResult struct {
	Variables, Factors, Edges int64
	Clusternodes              int64
	Clusterfactors            int64
	// LiftedEdges is the number of slots of the compressed graph:
	// (slot key, clusternode) pairs of every factor class's representative.
	LiftedEdges int64
	Rounds      int
}

// NodeCount counts records and their largest id.
type NodeCount struct{ N, Max int64 }

// PartItem is what a part receives in the setup job: an owned variable
// (V), an owned factor (Rec), or an edge at an owned variable (V, F, Key,
// and FPart, the factor's part).
type PartItem struct {
	Kind             int8
	Rec              lift.EdgeRecord
	V, F, Key, FPart int32
}

const (
	itemVar int8 = iota
	itemFactor
	itemEdge
)

// SlotReq asks a variable's colour for a slot of factor F.
type SlotReq struct{ F, Key int32 }

// SlotPair is a slot of factor F: its key and the variable's colour.
type SlotPair struct{ Key, Colour int32 }

func init() {
	register.DoFn3x1[string, func(lift.EdgeRecord), func(lift.EdgeRecord), error](&parseEdgesFn{})
	register.Function1x1[lift.EdgeRecord, NodeCount](countNode)
	register.Function2x1[NodeCount, NodeCount, NodeCount](addCounts)
	register.DoFn3x1[lift.EdgeRecord, NodeCount, func(int32, PartItem), error](&partItemsFn{})
	register.DoFn5x1[context.Context, int32, func(*PartItem) bool, NodeCount, func(string), error](&buildPartFn{})
	register.Function2x1[lift.EdgeRecord, func(int64, int), error](factorIDs)
	register.Function1x2[lift.EdgeRecord, []byte, int32](varInit)
	register.Function1x2[lift.EdgeRecord, []byte, int32](factorInit)
	register.Function2x1[int64, func(*int) bool, error](checkUnique)
	register.Function1x1[lift.EdgeRecord, int](arity)
	register.DoFn2x0[NodeCount, func(string)](&labelCountFn{})
	register.Function3x0[int64, int32, func(int64)](repKeys)
	register.DoFn4x0[int64, int32, func(*int64) bool, func(string)](&classLineFn{})
	register.DoFn3x0[lift.EdgeRecord, func(*int64) bool, func(int64, SlotReq)](&repSlotsFn{})
	register.Function4x0[int64, func(*SlotReq) bool, func(*int32) bool, func(int32, SlotPair)](slotColours)
	register.Function3x0[int32, func(*SlotPair) bool, func(int)](countSlots)
	register.DoFn2x0[int64, func(int)](&kindFn{})
	register.Emitter1[lift.EdgeRecord]()
	register.Emitter2[int32, PartItem]()
	register.Emitter2[int64, int]()
	register.Emitter2[int64, SlotReq]()
	register.Emitter2[int32, SlotPair]()
	register.Emitter1[int64]()
	register.Iter1[PartItem]()
	register.Iter1[int]()
	register.Iter1[int64]()
	register.Iter1[SlotReq]()
	register.Iter1[SlotPair]()
	register.Iter1[int32]()
	for _, x := range []any{lift.EdgeRecord{}, NodeCount{}, PartItem{}, SlotReq{}, SlotPair{}} {
		beam.RegisterType(reflect.TypeOf(x))
	}
}

// parseEdgesFn parses edge-list lines into variable and factor records.
type parseEdgesFn struct{}

func (*parseEdgesFn) ProcessElement(line string, vars, facs func(lift.EdgeRecord)) error {
	rec, ok, err := lift.ParseEdgeRecord(line)
	switch {
	case err != nil:
		return err
	case !ok:
	case rec.Factor:
		facs(rec)
	default:
		vars(rec)
	}
	return nil
}

func countNode(rec lift.EdgeRecord) NodeCount { return NodeCount{1, int64(rec.ID)} }
func addCounts(a, b NodeCount) NodeCount      { return NodeCount{a.N + b.N, max(a.Max, b.Max)} }
func arity(rec lift.EdgeRecord) int           { return len(rec.Vars) }

// nodeCount counts recs; with none it is {0, -1}.
func nodeCount(s beam.Scope, recs beam.PCollection) beam.PCollection {
	none := beam.Create(s, NodeCount{0, -1})
	return beam.Combine(s, addCounts, beam.Flatten(s, none, beam.ParDo(s, countNode, recs)))
}

// parting splits n variables into k = min(K, n) ranges.
type parting struct{ k, n int64 }

func newParting(parts int, nv NodeCount) parting {
	n := nv.Max + 1
	return parting{max(1, min(int64(parts), n)), max(n, 1)}
}

func (p parting) of(v int32) int32 { return int32(int64(v) * p.k / p.n) }

// partItemsFn sends every record to the parts that need it.
type partItemsFn struct{ Parts int }

func (fn *partItemsFn) ProcessElement(rec lift.EdgeRecord, nv NodeCount, emit func(int32, PartItem)) error {
	p := newParting(fn.Parts, nv)
	if !rec.Factor {
		emit(p.of(rec.ID), PartItem{Kind: itemVar, V: rec.ID})
		return nil
	}
	fq := int32(0)
	for i, v := range rec.Vars {
		if int64(v) > nv.Max {
			return fmt.Errorf("colourpass: factor %d: variable %d has no v line (the largest is %d)", rec.ID, v, nv.Max)
		}
		if i == 0 {
			fq = p.of(v)
		}
	}
	emit(fq, PartItem{Kind: itemFactor, Rec: rec})
	for i, v := range rec.Vars {
		emit(p.of(v), PartItem{Kind: itemEdge, V: v, F: rec.ID, Key: rec.Keys[i], FPart: fq})
	}
	return nil
}

// buildPartFn builds one part (lift.Part, as Partition.Parts builds it
// from a graph), writes it to Dir and emits its path and its border
// counts as "cut N", "copy-vars N" and "copy-factors N" lines.
type buildPartFn struct {
	Parts int
	Dir   string
}

func (fn *buildPartFn) ProcessElement(ctx context.Context, q int32, items func(*PartItem) bool, nv NodeCount, emit func(string)) error {
	p := newParting(fn.Parts, nv)
	var facs []lift.EdgeRecord
	var vars []int32
	var edges []PartItem
	var it PartItem
	for items(&it) {
		switch it.Kind {
		case itemVar:
			vars = append(vars, it.V)
		case itemFactor:
			facs = append(facs, it.Rec)
		default:
			edges = append(edges, it)
		}
	}
	slices.SortFunc(facs, func(a, b lift.EdgeRecord) int { return int(a.ID) - int(b.ID) })
	slices.Sort(vars)
	for i := 1; i < len(vars); i++ {
		if vars[i] == vars[i-1] {
			return fmt.Errorf("colourpass: variable %d has two v lines", vars[i])
		}
	}
	slices.SortFunc(edges, func(a, b PartItem) int {
		if a.V != b.V {
			return int(a.V) - int(b.V)
		}
		return int(a.F) - int(b.F)
	})
	pt := &lift.Part{Index: int(q), FactorStart: []int64{0}, VarStart: []int64{0}}
	for _, f := range facs {
		pt.Factors = append(pt.Factors, f.ID)
		pt.FactorVar = append(pt.FactorVar, f.Vars...)
		pt.FactorKey = append(pt.FactorKey, f.Keys...)
		pt.FactorStart = append(pt.FactorStart, int64(len(pt.FactorVar)))
		pt.FactorSorted = append(pt.FactorSorted, f.Sorted)
		for _, v := range f.Vars {
			if p.of(v) != q {
				pt.CopyVars = append(pt.CopyVars, v)
			}
		}
	}
	cut := 0
	e := 0
	for _, v := range vars {
		for ; e < len(edges) && edges[e].V == v; e++ {
			pt.VarFactor = append(pt.VarFactor, edges[e].F)
			pt.VarKey = append(pt.VarKey, edges[e].Key)
			if edges[e].FPart != q {
				pt.CopyFactors = append(pt.CopyFactors, edges[e].F)
				cut++
			}
		}
		pt.VarStart = append(pt.VarStart, int64(len(pt.VarFactor)))
		pt.Vars = append(pt.Vars, v)
	}
	if e < len(edges) {
		return fmt.Errorf("colourpass: factor %d: variable %d has no v line", edges[e].F, edges[e].V)
	}
	slices.Sort(pt.CopyVars)
	pt.CopyVars = slices.Compact(pt.CopyVars)
	slices.Sort(pt.CopyFactors)
	pt.CopyFactors = slices.Compact(pt.CopyFactors)
	name := joinPath(fn.Dir, fmt.Sprintf("part-%05d.gob", q))
	if err := writeFile(name, func(w *bufio.Writer) error { return gob.NewEncoder(w).Encode(pt) }); err != nil {
		return err
	}
	emit("part " + name)
	emit(fmt.Sprintf("cut %d", cut))
	emit(fmt.Sprintf("copy-vars %d", len(pt.CopyVars)))
	emit(fmt.Sprintf("copy-factors %d", len(pt.CopyFactors)))
	return nil
}

// factorIDs keys every factor by its id, to find duplicates.
func factorIDs(rec lift.EdgeRecord, emit func(int64, int)) error {
	emit(int64(rec.ID), 1)
	return nil
}

func checkUnique(id int64, ones func(*int) bool) error {
	n, x := 0, 0
	for ones(&x) {
		n++
	}
	if n > 1 {
		return fmt.Errorf("colourpass: factor %d has %d f lines", id, n)
	}
	return nil
}

// varInit and factorInit key a node by its initial colour: the reduce step
// (recolourFn) then names every initial class by its smallest member.
func varInit(rec lift.EdgeRecord) ([]byte, int32) {
	return binary.LittleEndian.AppendUint64(nil, uint64(rec.Colour)), rec.ID
}
func factorInit(rec lift.EdgeRecord) ([]byte, int32) { return varInit(rec) }

// labelCountFn writes a NodeCount as "LABEL N" and "LABEL-max MAX".
type labelCountFn struct{ Label string }

func (fn *labelCountFn) ProcessElement(c NodeCount, emit func(string)) {
	emit(fmt.Sprintf("%s %d", fn.Label, c.N))
	emit(fmt.Sprintf("%s-max %d", fn.Label, c.Max))
}

// SetupJob builds the setup pipeline: the edge list at glob into parts in
// dir (part-*.gob), the initial colours (dir/colours-0.txt), and the
// figures in dir/setup.txt.
func SetupJob(glob, dir string, parts int) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	vars, facs := beam.ParDo2(s, &parseEdgesFn{}, textio.Read(s, glob))
	nv := nodeCount(s.Scope("variables"), vars)
	nf := nodeCount(s.Scope("factors"), facs)
	items := beam.Flatten(s,
		beam.ParDo(s, &partItemsFn{Parts: parts}, vars, beam.SideInput{Input: nv}),
		beam.ParDo(s, &partItemsFn{Parts: parts}, facs, beam.SideInput{Input: nv}))
	lines := []beam.PCollection{
		beam.ParDo(s, &buildPartFn{Parts: parts, Dir: dir}, beam.GroupByKey(s, items), beam.SideInput{Input: nv}),
		beam.ParDo(s, &labelCountFn{Label: "variables"}, nv),
		beam.ParDo(s, &labelCountFn{Label: "factors"}, nf),
		beam.ParDo(s, &labelFn{Label: "edges"}, beam.Combine(s, sumInts, beam.ParDo(s, arity, facs))),
	}
	beam.ParDo0(s, checkUnique, beam.GroupByKey(s, beam.ParDo(s, factorIDs, facs)))
	v0 := beam.ParDo(s, &recolourFn{Factors: false}, beam.GroupByKey(s, beam.ParDo(s, varInit, vars)))
	f0 := beam.ParDo(s, &recolourFn{Factors: true}, beam.GroupByKey(s, beam.ParDo(s, factorInit, facs)))
	lines = append(lines, classCount(s, v0, "0 v"), classCount(s, f0, "0 f"))
	textio.Write(s, joinPath(dir, "colours-0.txt"), beam.ParDo(s, formatColour, beam.Flatten(s, v0, f0)))
	textio.Write(s, joinPath(dir, "setup.txt"), beam.Flatten(s, lines...))
	return p
}

// repKeys emits the key of every node that names its class (a class is
// named by its smallest member).
func repKeys(key int64, c int32, emit func(int64)) {
	if int64(c) == key&^factorBit {
		emit(key)
	}
}

// reps sorts the class representatives of each kind (from a side input),
// once per DoFn instance.
type reps struct{ vars, facs []int32 }

func readReps(keys func(*int64) bool) *reps {
	r := &reps{}
	var k int64
	for keys(&k) {
		if k&factorBit != 0 {
			r.facs = append(r.facs, int32(k&^factorBit))
		} else {
			r.vars = append(r.vars, int32(k))
		}
	}
	slices.Sort(r.vars)
	slices.Sort(r.facs)
	return r
}

// classLineFn writes a node's class, numbered densely by its smallest
// member (ColourPassing's numbering by first appearance): "v|f ID CLASS".
type classLineFn struct{ r *reps }

func (fn *classLineFn) ProcessElement(key int64, c int32, keys func(*int64) bool, emit func(string)) {
	if fn.r == nil {
		fn.r = readReps(keys)
	}
	kind, list := "v", fn.r.vars
	if key&factorBit != 0 {
		kind, list = "f", fn.r.facs
	}
	class, _ := slices.BinarySearch(list, c)
	emit(kind + " " + strconv.FormatInt(key&^factorBit, 10) + " " + strconv.Itoa(class))
}

// repSlotsFn asks, for every position of a representative factor, its
// variable's colour.
type repSlotsFn struct{ set map[int32]bool }

func (fn *repSlotsFn) ProcessElement(rec lift.EdgeRecord, keys func(*int64) bool, emit func(int64, SlotReq)) {
	if fn.set == nil {
		fn.set = map[int32]bool{}
		for _, f := range readReps(keys).facs {
			fn.set[f] = true
		}
	}
	if !fn.set[rec.ID] {
		return
	}
	for i, v := range rec.Vars {
		emit(varKey(v), SlotReq{rec.ID, rec.Keys[i]})
	}
}

func slotColours(_ int64, reqs func(*SlotReq) bool, cols func(*int32) bool, emit func(int32, SlotPair)) {
	var c int32
	if !cols(&c) {
		return
	}
	var r SlotReq
	for reqs(&r) {
		emit(r.F, SlotPair{r.Key, c})
	}
}

// countSlots counts a representative factor's distinct (key, colour)
// pairs: its slots in the compressed graph (lift.Compressed.FinishSlots).
func countSlots(_ int32, pairs func(*SlotPair) bool, emit func(int)) {
	var ps []SlotPair
	var x SlotPair
	for pairs(&x) {
		ps = append(ps, x)
	}
	slices.SortFunc(ps, func(a, b SlotPair) int {
		if a.Key != b.Key {
			return int(a.Key) - int(b.Key)
		}
		return int(a.Colour) - int(b.Colour)
	})
	emit(len(slices.Compact(ps)))
}

// kindFn emits 1 for a key of its kind.
type kindFn struct{ Factors bool }

func (fn *kindFn) ProcessElement(key int64, emit func(int)) {
	if (key&factorBit != 0) == fn.Factors {
		emit(1)
	}
}

// FinishJob builds the finish pipeline: from the final colours in
// colourFile and the edge list at glob, every node's dense class to
// coloursOut and the numbers of clusternodes, clusterfactors and lifted
// edges to statsOut.
func FinishJob(glob, colourFile, coloursOut, statsOut string) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	colours := beam.ParDo(s, &parseColourFn{}, textio.Read(s, colourFile))
	rk := beam.ParDo(s, repKeys, colours)
	textio.Write(s, coloursOut, beam.ParDo(s, &classLineFn{}, colours, beam.SideInput{Input: rk}))
	_, facs := beam.ParDo2(s, &parseEdgesFn{}, textio.Read(s, glob))
	reqs := beam.ParDo(s, &repSlotsFn{}, facs, beam.SideInput{Input: rk})
	vcols, _ := beam.ParDo2(s, splitKinds, colours)
	slots := beam.ParDo(s, countSlots, beam.GroupByKey(s, beam.ParDo(s, slotColours, beam.CoGroupByKey(s, reqs, vcols))))
	textio.Write(s, statsOut, beam.Flatten(s,
		beam.ParDo(s, &labelFn{Label: "lifted_edges"}, beam.Combine(s, sumInts, slots)),
		beam.ParDo(s, &labelFn{Label: "clusternodes"}, beam.Combine(s, sumInts, beam.ParDo(s, &kindFn{false}, rk))),
		beam.ParDo(s, &labelFn{Label: "clusterfactors"}, beam.Combine(s, sumInts, beam.ParDo(s, &kindFn{true}, rk)))))
	return p
}

// readFigures reads "NAME N" lines; "part PATH" lines are collected.
func readFigures(name string) (map[string]int64, []string, error) {
	b, err := readFile(name)
	if err != nil {
		return nil, nil, err
	}
	out := map[string]int64{}
	var paths []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		l := sc.Text()
		if l == "" {
			continue
		}
		i := strings.LastIndexByte(l, ' ')
		if i < 0 {
			return nil, nil, fmt.Errorf("%s: bad line %q", name, l)
		}
		if l[:i] == "part" {
			paths = append(paths, l[i+1:])
			continue
		}
		n, err := strconv.ParseInt(l[i+1:], 10, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: bad line %q", name, l)
		}
		out[l[:i]] += n
	}
	sort.Strings(paths)
	return out, paths, sc.Err()
}

// RefineEdgeList runs colour passing on the edge list at glob (any Beam
// filesystem; the driver never reads it) with r's parts, rounds per job,
// work directory and runner, writes every node's class ("v|f ID CLASS"
// lines, in no particular order) to coloursOut, and returns the figures.
// Of opt, only MaxIter and Progress apply: the colouring mode and the
// evidence were fixed when the edge list was written.
func (r Refiner) RefineEdgeList(ctx context.Context, glob, coloursOut string, opt lift.Options) (*EdgeListResult, error) {
	dir, cleanup, err := r.workDir()
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if err := r.Run(ctx, SetupJob(glob, dir, max(1, r.Parts))); err != nil {
		return nil, fmt.Errorf("colourpass: setup job: %w", err)
	}
	fig, partFiles, err := readFigures(joinPath(dir, "setup.txt"))
	if err != nil {
		return nil, err
	}
	for _, kind := range []string{"variables", "factors"} {
		if fig[kind] != fig[kind+"-max"]+1 {
			return nil, fmt.Errorf("colourpass: %s: %d %s with ids up to %d: ids must be 0, 1, …, n-1, each once", glob, fig[kind], kind, fig[kind+"-max"])
		}
	}
	if fig["variables"] == 0 {
		return nil, fmt.Errorf("colourpass: %s: no variables (no \"v\" lines)", glob)
	}
	if r.Stats != nil {
		*r.Stats = Stats{Parts: len(partFiles), CutEdges: fig["cut"], CopyVars: fig["copy-vars"], CopyFactors: fig["copy-factors"], Jobs: 1}
	}
	rounds, last, err := r.rounds(ctx, partFiles, dir, int(fig["0 v"]), int(fig["0 f"]), opt)
	if err != nil {
		return nil, err
	}
	stats := joinPath(dir, "finish.txt")
	if err := r.Run(ctx, FinishJob(glob, last, coloursOut, stats)); err != nil {
		return nil, fmt.Errorf("colourpass: finish job: %w", err)
	}
	if r.Stats != nil {
		r.Stats.Jobs++
	}
	fin, _, err := readFigures(stats)
	if err != nil {
		return nil, err
	}
	return &EdgeListResult{Variables: fig["variables"], Factors: fig["factors"], Edges: fig["edges"],
		Clusternodes: fin["clusternodes"], Clusterfactors: fin["clusterfactors"], LiftedEdges: fin["lifted_edges"], Rounds: rounds}, nil
}
