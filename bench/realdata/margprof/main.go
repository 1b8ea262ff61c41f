// Command margprof runs one default marginal query (engine.Run) under a
// CPU profile: the tool behind MARGINALS.md's profile of the auto chain.
// With -heap it writes instead a heap profile taken at the peak of the live
// heap (the profile after the collection that saw the most live bytes;
// -gogc sets the collector's percentage so that collections are frequent)
// and prints the peak live heap and its bytes per ground formula: the tool
// behind bench/scale/RESULTS.md's memory of lifted infer.
//
//	go run ./bench/realdata/margprof -prof /tmp/cora.prof -dir cora-class/tuffy-class -q category
//	go run ./bench/realdata/margprof -heap /tmp/cora.heap -gogc 10 -db /tmp/cora-10.db
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
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
	db := flag.String("db", "", "evidence file (default the dataset's evidence.db)")
	heap := flag.String("heap", "", "heap profile file, taken at the peak live heap")
	gogc := flag.Int("gogc", 10, "the collector's percentage with -heap")
	flag.Parse()
	ev := filepath.Join(*data, *dir, "evidence.db")
	if *db != "" {
		ev = *db
	}
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
	req := engine.Request{Model: filepath.Join(*data, *dir, "prog.mln"), Evidence: []string{ev},
		Query: []string{*q}, Method: *method, Properties: p, Seed: 1, AllowUnconverged: true}
	var res *engine.Result
	var err error
	var stop func() (uint64, uint64, []byte)
	if *heap == "" {
		res, err = engine.Run(context.Background(), req)
	} else {
		// the evidence is read before the watch starts: its live heap is the base
		var m *engine.Model
		m, err = engine.Load(req.Model, engine.LoadOptions{Evidence: req.Evidence})
		if err != nil {
			log.Fatal(err)
		}
		stop = peakProfile(*gogc)
		res, err = m.Run(context.Background(), req)
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s (converged %v) %.2fs\n", res.Method, res.MethodReason, res.Converged, time.Since(t).Seconds())
	if stop != nil {
		base, peak, prof := stop()
		if err := os.WriteFile(*heap, prof, 0o644); err != nil {
			log.Fatal(err)
		}
		nf := float64(res.Stats.GroundFormulas)
		fmt.Printf("live heap before the run %.1f MB (the evidence); peak %.1f MB; less the evidence %.1f MB = %.0f bytes per ground formula (%.0f ground formulas)\n",
			float64(base)/1e6, float64(peak)/1e6, float64(peak-base)/1e6, float64(peak-base)/nf, nf)
	}
}

// peakProfile sets the collector's percentage to gogc and watches the live
// heap after each collection; it keeps a heap profile (which is as of the
// last collection) taken whenever the live heap reaches a new peak. Its
// result stops the watch and returns the live heap at the start (after a
// collection), the peak and the peak's profile.
func peakProfile(gogc int) func() (base, peak uint64, prof []byte) {
	debug.SetGCPercent(gogc)
	runtime.MemProfileRate = 64 << 10
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	base := s[0].Value.Uint64()
	var mu sync.Mutex
	peak, prof := base, []byte(nil)
	done := make(chan struct{})
	go func() {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			metrics.Read(s)
			v := s[0].Value.Uint64()
			mu.Lock()
			if v > peak+peak/50 || (v > peak && prof == nil) {
				var b bytes.Buffer
				pprof.Lookup("heap").WriteTo(&b, 0)
				peak, prof = v, b.Bytes()
			} else if v > peak {
				peak = v
			}
			mu.Unlock()
		}
	}()
	return func() (uint64, uint64, []byte) {
		close(done)
		mu.Lock()
		defer mu.Unlock()
		return base, peak, prof
	}
}
