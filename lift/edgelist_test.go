package lift_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/lifted-dev/lifted/lift"
)

// naiveRefine is colour refinement written from the edge-list records
// alone, with string signatures: an independent check that the records
// carry everything colour passing needs.
func naiveRefine(vars, facs []lift.EdgeRecord) (vc, fc []int32) {
	vc, fc = make([]int32, len(vars)), make([]int32, len(facs))
	regroup := func(sigs []string, out []int32) int {
		ids := map[string]int32{}
		for i, s := range sigs {
			id, ok := ids[s]
			if !ok {
				id = int32(len(ids))
				ids[s] = id
			}
			out[i] = id
		}
		return len(ids)
	}
	vs, fs := make([]string, len(vars)), make([]string, len(facs))
	for i, r := range vars {
		vs[i] = fmt.Sprint(r.Colour)
	}
	for i, r := range facs {
		fs[i] = fmt.Sprint(r.Colour)
	}
	nv, nf := regroup(vs, vc), regroup(fs, fc)
	for {
		adj := make([][]string, len(vars))
		for i, r := range facs {
			pairs := make([]string, len(r.Vars))
			for p, v := range r.Vars {
				pairs[p] = fmt.Sprint(r.Keys[p], "/", vc[v])
			}
			if r.Sorted {
				slices.Sort(pairs)
			}
			fs[i] = fmt.Sprint(fc[i], pairs)
		}
		nf2 := regroup(fs, fc)
		for i, r := range facs {
			for p, v := range r.Vars {
				adj[v] = append(adj[v], fmt.Sprint(fc[i], "/", r.Keys[p]))
			}
		}
		for v := range vars {
			slices.Sort(adj[v])
			vs[v] = fmt.Sprint(vc[v], adj[v])
		}
		nv2 := regroup(vs, vc)
		if nv2 == nv && nf2 == nf {
			return vc, fc
		}
		nv, nf = nv2, nf2
	}
}

// An edge list written in shards and read back line by line holds every
// node once, and colour refinement on its records alone gives
// ColourPassing's classes (same ids) on every graph of the map/reduce tests.
func TestEdgeListColours(t *testing.T) {
	ctx := context.Background()
	for _, m := range mapReduceModels() {
		bufs := make([]bytes.Buffer, 3)
		ws := []io.Writer{&bufs[0], &bufs[1], &bufs[2]}
		if err := lift.WriteEdgeList(m.g, m.ev, m.opt, ws); err != nil {
			t.Fatal(err)
		}
		vars := make([]lift.EdgeRecord, m.g.NumVars())
		facs := make([]lift.EdgeRecord, m.g.NumFactors())
		seen := 0
		for i := range bufs {
			sc := bufio.NewScanner(&bufs[i])
			for sc.Scan() {
				rec, ok, err := lift.ParseEdgeRecord(sc.Text())
				if err != nil || !ok {
					t.Fatalf("%s: line %q: %v %v", m.name, sc.Text(), ok, err)
				}
				if rec.Factor {
					facs[rec.ID] = rec
				} else {
					vars[rec.ID] = rec
				}
				seen++
			}
		}
		if seen != len(vars)+len(facs) {
			t.Fatalf("%s: %d records for %d nodes", m.name, seen, len(vars)+len(facs))
		}
		ref, err := lift.ColourPassing{}.Refine(ctx, m.g, m.ev, m.opt)
		if err != nil {
			t.Fatal(err)
		}
		vc, fc := naiveRefine(vars, facs)
		if !slices.Equal(vc, ref.VarColor) || !slices.Equal(fc, ref.FactorColor) {
			t.Fatalf("%s: edge-list refinement %v %v, want %v %v", m.name, vc, fc, ref.VarColor, ref.FactorColor)
		}
	}
}

func TestEdgeRecordRoundTrip(t *testing.T) {
	for _, rec := range []lift.EdgeRecord{
		{ID: 7, Colour: 3},
		{Factor: true, ID: 2, Colour: 1 << 40, Sorted: true, Vars: []int32{4, 0, 9}, Keys: []int32{0, 1, 0}},
		{Factor: true, ID: 0, Colour: 0, Vars: []int32{}, Keys: []int32{}},
	} {
		line := string(lift.AppendEdgeRecord(nil, rec))
		got, ok, err := lift.ParseEdgeRecord(line)
		if err != nil || !ok || fmt.Sprint(got) != fmt.Sprint(rec) {
			t.Fatalf("%q: got %v %v %v, want %v", line, got, ok, err, rec)
		}
	}
	for _, line := range []string{"", "   ", "# comment"} {
		if _, ok, err := lift.ParseEdgeRecord(line); ok || err != nil {
			t.Fatalf("%q: ok %v err %v, want a skipped line", line, ok, err)
		}
	}
	for _, line := range []string{"x 1 2", "v 1", "v -1 0", "v 1 -2", "f 1 2", "f 1 2 3 0:0", "f 1 2 0 0:0 0:1", "f 1 2 0 4", "f 1 2 0 a:0", "v 99999999999 0"} {
		if _, _, err := lift.ParseEdgeRecord(line); !errors.Is(err, lift.ErrEdgeList) {
			t.Fatalf("%q: err %v, want ErrEdgeList", line, err)
		}
	}
}
