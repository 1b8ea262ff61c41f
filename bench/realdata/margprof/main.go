// Command margprof runs one default marginal query (engine.Run) under a
// CPU profile: the tool behind MARGINALS.md's profile of the auto chain.
//
//	go run ./bench/realdata/margprof -prof /tmp/cora.prof -dir cora-class/tuffy-class -q category
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/lifted-dev/lifted/engine"
)

func main() {
	dir := flag.String("dir", "cora-class/tuffy-class", "dataset under -data")
	data := flag.String("data", "/work/shared/data/mln", "data root")
	q := flag.String("q", "category", "query predicate")
	method := flag.String("method", "", "method (default auto)")
	props := flag.String("props", "", "properties, k=v,k=v")
	prof := flag.String("prof", "", "CPU profile file")
	flag.Parse()
	p := map[string]string{}
	for _, kv := range strings.Split(*props, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			p[k] = v
		}
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			log.Fatal(err)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	t := time.Now()
	res, err := engine.Run(context.Background(), engine.Request{
		Model: filepath.Join(*data, *dir, "prog.mln"), Evidence: []string{filepath.Join(*data, *dir, "evidence.db")},
		Query: []string{*q}, Method: *method, Properties: p, Seed: 1, AllowUnconverged: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s (converged %v) %.2fs\n", res.Method, res.MethodReason, res.Converged, time.Since(t).Seconds())
}
