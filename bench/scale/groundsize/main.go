// Command groundsize grounds one MLN with its evidence, as `lifted map` and
// `lifted infer` do, and prints the size of the ground network and what it
// costs: ground atoms, ground formulas, factors, CPU seconds, and the bytes
// the ground network holds (the live heap after grounding, less the live
// heap before it, both after a garbage collection) per ground formula,
// and first the grounder's prediction of the ground formulas (ground.
// Estimate) and the memory-sized limit it is checked against.
//
//	go run ./bench/scale/groundsize -mln prog.mln -db evidence.db -q advisedBy
//
// A grounding over the memory-sized limit (ground.DefaultMaxGround) is
// refused before any ground formula is made, with the predicted size, as
// in lifted's commands; -max-ground raises the limit.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/internal/benchstat"
)

func main() {
	mlnPath := flag.String("mln", "", "the program")
	dbPath := flag.String("db", "", "the evidence database")
	query := flag.String("q", "", "comma-separated query predicates")
	maxGround := flag.Int64("max-ground", 0, "ground.Options.MaxGround (0: sized to memory)")
	flag.Parse()
	if *mlnPath == "" || *dbPath == "" {
		fmt.Fprintln(os.Stderr, "usage: groundsize -mln PROG.mln -db EVIDENCE.db [-q PRED,...]")
		os.Exit(2)
	}
	m, err := mlnfile.ParseFile(*mlnPath)
	if err != nil {
		fail(err)
	}
	db, err := mlnfile.ReadDBFiles(m, *dbPath)
	if err != nil {
		fail(err)
	}
	var q []string
	if *query != "" {
		q = strings.Split(*query, ",")
	}
	sz, err := ground.Estimate(m, db, ground.Options{Query: q, MaxGround: -1})
	if err != nil {
		fail(err)
	}
	fmt.Printf("predicted formulas %.0f (upper bound %.3g) limit %d\n", sz.Estimate, sz.Upper, ground.DefaultMaxGround())
	before := live()
	c0 := benchstat.CPUSeconds()
	t0 := time.Now()
	gr, err := ground.Ground(context.Background(), m, db, ground.Options{Query: q, MaxGround: *maxGround})
	if err != nil {
		fail(err)
	}
	wall, cpu := time.Since(t0).Seconds(), benchstat.CPUSeconds()-c0
	net := live() - before
	fmt.Printf("atoms %d formulas %d factors %d wall_s %.3f cpu_s %.3f network_bytes %d bytes_per_formula %.1f\n",
		gr.NumAtoms, gr.NumFormulas, gr.Graph.NumFactors(), wall, cpu, net, float64(net)/float64(max(gr.NumFormulas, 1)))
	runtime.KeepAlive(gr)
	runtime.KeepAlive(m)
	runtime.KeepAlive(db)
}

// live returns the live heap bytes after a collection.
func live() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "groundsize:", err)
	os.Exit(1)
}
