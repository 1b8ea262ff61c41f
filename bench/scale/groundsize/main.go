// Command groundsize grounds one MLN with its evidence, as `lifted map` and
// `lifted infer` do, and prints the size of the ground network and what it
// costs: ground atoms, ground formulas, factors, CPU seconds, and the bytes
// the ground network holds (the live heap after grounding, less the live
// heap before it, both after a garbage collection) per ground formula,
// and first the grounder's prediction of the ground formulas (ground.
// Estimate) and the memory-sized limit it is checked against, and the
// memory the pipelines of marginal inference and MAP are predicted to take
// (ground.Size.Bytes under ground.MarginalMemory and ground.MAPMemory).
//
//	go run ./bench/scale/groundsize -mln prog.mln -db evidence.db -q advisedBy
//
// A grounding over the memory-sized limit (ground.DefaultMaxGround) is
// refused before any ground formula is made, with the predicted size, as
// in lifted's commands, and one with more ground atoms than the limit
// before the prediction allocates its atom tables; -max-ground raises the
// limit.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/internal/benchstat"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the command: the prediction first, under the same limit as the
// grounding (a grounding with more ground atoms than the limit is refused
// there, before its atom tables are allocated), then the grounding.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("groundsize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	mlnPath := fs.String("mln", "", "the program")
	dbPath := fs.String("db", "", "the evidence database")
	query := fs.String("q", "", "comma-separated query predicates")
	maxGround := fs.Int64("max-ground", 0, "ground.Options.MaxGround (0: sized to memory)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *mlnPath == "" || *dbPath == "" {
		fmt.Fprintln(stderr, "usage: groundsize -mln PROG.mln -db EVIDENCE.db [-q PRED,...]")
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "groundsize:", err)
		return 1
	}
	m, err := mlnfile.ParseFile(*mlnPath)
	if err != nil {
		return fail(err)
	}
	db, err := mlnfile.ReadDBFiles(m, *dbPath)
	if err != nil {
		return fail(err)
	}
	var q []string
	if *query != "" {
		q = strings.Split(*query, ",")
	}
	opt := ground.Options{Query: q, MaxGround: *maxGround}
	sz, err := ground.Estimate(m, db, opt)
	if err != nil {
		return fail(err)
	}
	limit := *maxGround
	if limit == 0 {
		limit = ground.DefaultMaxGround()
	}
	fmt.Fprintf(stdout, "predicted formulas %.0f (upper bound %.3g) limit %d\n", sz.Estimate, sz.Upper, limit)
	mopt := opt
	mopt.Memory = ground.MAPMemory
	if msz, err := ground.Estimate(m, db, mopt); err == nil {
		fmt.Fprintf(stdout, "predicted bytes: marginal inference %.0f, map %.0f (%.0f per ground formula)\n", sz.Bytes, msz.Bytes, msz.Bytes/max(msz.Estimate, 1))
	}
	before := live()
	c0 := benchstat.CPUSeconds()
	t0 := time.Now()
	gr, err := ground.Ground(context.Background(), m, db, opt)
	if err != nil {
		return fail(err)
	}
	wall, cpu := time.Since(t0).Seconds(), benchstat.CPUSeconds()-c0
	net := live() - before
	fmt.Fprintf(stdout, "atoms %d formulas %d factors %d wall_s %.3f cpu_s %.3f network_bytes %d bytes_per_formula %.1f\n",
		gr.NumAtoms, gr.NumFormulas, gr.Graph.NumFactors(), wall, cpu, net, float64(net)/float64(max(gr.NumFormulas, 1)))
	runtime.KeepAlive(gr)
	runtime.KeepAlive(m)
	runtime.KeepAlive(db)
	return 0
}

// live returns the live heap bytes after a collection.
func live() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
