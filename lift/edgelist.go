package lift

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/lifted-dev/lifted/fg"
)

// This file holds the edge-list text format: colour passing's input (the
// graph's structure, the initial colours and the slot keys) as plain
// lines that can be split into any number of shards and read in parallel
// (the Apache Beam pipeline in module beam/ reads it from a glob). One
// record per line, fields separated by blanks; blank lines and lines
// starting with '#' are ignored; records may come in any order and in any
// shard:
//
//	v ID COLOUR
//	f ID COLOUR SORTED VAR:KEY VAR:KEY …
//
// ID is the node's id: variables and factors are numbered 0, 1, 2, …
// separately. COLOUR is a non-negative integer: nodes of the same kind
// with equal COLOUR start colour passing in the same class (for a factor
// graph: variables of equal cardinality and evidence, factors of equal
// table). SORTED is 1 when the factor's signature is compared as a sorted
// list of (KEY, colour) pairs (positions that are interchangeable) and 0
// when in position order. Then come the factor's variables in scope order,
// each with its slot key (for a plain factor its position 0, 1, 2, …).
// WriteEdgeList writes these fields as SlotKeys decides them, so colour
// passing on the edge list gives ColourPassing's partition.

// EdgeRecord is one line of an edge list: a variable or a factor.
type EdgeRecord struct {
	Factor bool
	ID     int32
	Colour int64
	// Factors only: SORTED, and the scope with the slot keys.
	Sorted bool
	Vars   []int32
	Keys   []int32
}

// ErrEdgeList is wrapped by every error of ParseEdgeRecord.
var ErrEdgeList = errors.New("bad edge-list line")

// ParseEdgeRecord parses one line of an edge list. It reports ok false for
// a blank or comment line.
func ParseEdgeRecord(line string) (rec EdgeRecord, ok bool, err error) {
	fields := strings.Fields(line)
	if len(fields) == 0 || strings.HasPrefix(fields[0], "#") {
		return rec, false, nil
	}
	bad := func(why string) (EdgeRecord, bool, error) {
		return EdgeRecord{}, false, fmt.Errorf("%w %q: %s", ErrEdgeList, line, why)
	}
	switch fields[0] {
	case "v":
		if len(fields) != 3 {
			return bad("want \"v ID COLOUR\"")
		}
	case "f":
		rec.Factor = true
		if len(fields) < 4 {
			return bad("want \"f ID COLOUR SORTED VAR:KEY …\"")
		}
	default:
		return bad("a record starts with v or f")
	}
	id, err := strconv.ParseInt(fields[1], 10, 32)
	if err != nil || id < 0 {
		return bad("ID is not a non-negative 32-bit integer")
	}
	rec.ID = int32(id)
	if rec.Colour, err = strconv.ParseInt(fields[2], 10, 64); err != nil || rec.Colour < 0 {
		return bad("COLOUR is not a non-negative integer")
	}
	if !rec.Factor {
		return rec, true, nil
	}
	switch fields[3] {
	case "0":
	case "1":
		rec.Sorted = true
	default:
		return bad("SORTED is not 0 or 1")
	}
	rec.Vars = make([]int32, 0, len(fields)-4)
	rec.Keys = make([]int32, 0, len(fields)-4)
	for _, fld := range fields[4:] {
		vs, ks, found := strings.Cut(fld, ":")
		v, err1 := strconv.ParseInt(vs, 10, 32)
		k, err2 := strconv.ParseInt(ks, 10, 32)
		if !found || err1 != nil || err2 != nil || v < 0 {
			return bad(fmt.Sprintf("%q is not VAR:KEY", fld))
		}
		for _, u := range rec.Vars {
			if u == int32(v) {
				return bad(fmt.Sprintf("variable %d appears twice", v))
			}
		}
		rec.Vars = append(rec.Vars, int32(v))
		rec.Keys = append(rec.Keys, int32(k))
	}
	return rec, true, nil
}

// AppendEdgeRecord appends rec as one edge-list line (with its newline).
func AppendEdgeRecord(b []byte, rec EdgeRecord) []byte {
	if !rec.Factor {
		b = append(b, "v "...)
		b = strconv.AppendInt(b, int64(rec.ID), 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, rec.Colour, 10)
		return append(b, '\n')
	}
	b = append(b, "f "...)
	b = strconv.AppendInt(b, int64(rec.ID), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, rec.Colour, 10)
	if rec.Sorted {
		b = append(b, " 1"...)
	} else {
		b = append(b, " 0"...)
	}
	for i, v := range rec.Vars {
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(v), 10)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(rec.Keys[i]), 10)
	}
	return append(b, '\n')
}

// WriteEdgeList writes g with evidence ev, coloured per opt, as an edge
// list in len(shards) shards: shard i holds the i-th of len(shards)
// contiguous ranges of the variables and of the factors. Colours and slot
// keys are those of SlotKeys.
func WriteEdgeList(g *fg.Graph, ev fg.Evidence, opt Options, shards []io.Writer) error {
	k := len(shards)
	if k == 0 {
		return errors.New("lift: WriteEdgeList: no shards")
	}
	if err := g.CheckEvidence(ev); err != nil {
		return err
	}
	keys, sorted, vc, fc := SlotKeys(g, ev, opt)
	nv, nf := g.NumVars(), g.NumFactors()
	var line []byte
	for i, w := range shards {
		bw := bufio.NewWriter(w)
		for v := nv * i / k; v < nv*(i+1)/k; v++ {
			line = AppendEdgeRecord(line[:0], EdgeRecord{ID: int32(v), Colour: int64(vc[v])})
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
		for f := nf * i / k; f < nf*(i+1)/k; f++ {
			lo, hi := g.FactorStart[f], g.FactorStart[f+1]
			line = AppendEdgeRecord(line[:0], EdgeRecord{Factor: true, ID: int32(f), Colour: int64(fc[f]), Sorted: sorted[f],
				Vars: g.EdgeVar[lo:hi], Keys: keys[lo:hi]})
			if _, err := bw.Write(line); err != nil {
				return err
			}
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return nil
}
