// Command uwref builds the reference marginals of UW-CSE's advisedBy
// (bench/realdata/reference/uwcse-advisedBy.json.gz): Gibbs sampling with
// the joint moves of strongly coupled pairs (gibbs.NewPairs: the auxiliary
// variable of each EXIST clause with each of its atoms, and the
// advisedBy(a,b)/advisedBy(b,a) pairs of co-authors), many chains from
// over-dispersed starts (uniformly random worlds and their complements),
// judged by the samplers' rule (rank-normalised split-R-hat < 1.01, bulk
// and tail ESS ≥ 100 per chain, on every atom, every auxiliary variable and
// the log-score) and checked by the agreement of two independent halves of
// the chains. It prints the diagnostics and writes the gzipped JSON.
//
//	go run ./bench/realdata/uwref -chains 8 -samples 1200 -burn-in 300 -seed 11 -out bench/realdata/reference/uwcse-advisedBy.json.gz
package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/ground"
	"github.com/lifted-dev/lifted/infer/mcmc"
)

func main() {
	dir := flag.String("dir", "/work/shared/data/mln/uwcse/tuffy-cse", "the dataset (prog.mln, evidence.db)")
	chains := flag.Int("chains", 8, "chains (an even number: the halves are compared)")
	samples := flag.Int("samples", 2000, "kept steps per chain")
	burn := flag.Int("burn-in", 500, "discarded steps per chain")
	seed := flag.Uint64("seed", 11, "seed")
	pairs := flag.Bool("pairs", true, "joint moves of strongly coupled pairs (off: single-site Gibbs)")
	out := flag.String("out", "", "write the reference here (gzipped JSON)")
	flag.Parse()
	t0 := time.Now()
	m, err := mlnfile.ParseFile(*dir + "/prog.mln")
	if err != nil {
		log.Fatal(err)
	}
	db, err := mlnfile.ReadDBFiles(m, *dir+"/evidence.db")
	if err != nil {
		log.Fatal(err)
	}
	gr, err := ground.Ground(context.Background(), m, db, ground.Options{Query: []string{"advisedBy"}})
	if err != nil {
		log.Fatal(err)
	}
	g := gr.Graph
	np := gibbs.NewPairs(g, nil)
	fmt.Printf("%d variables (%d atoms), %d factors, %d edges; %d strongly coupled pairs\n", g.NumVars(), gr.NumAtoms, g.NumFactors(), g.NumEdges(), np.Len())
	res, err := mcmc.Sample(context.Background(), g, nil, mcmc.Config{Kernel: mcmc.Gibbs, Chains: *chains, Samples: *samples, BurnIn: *burn, Seed: *seed, Pairs: *pairs})
	if err != nil {
		log.Fatal(err)
	}
	d := res.Diag
	fmt.Printf("%d samples in %d chains: worst R-hat %.4f, min bulk ESS %.0f, min tail ESS %.0f, mixed %v %s\n", res.Samples, len(res.ChainSamples), d.RHat, d.BulkESS, d.TailESS, d.Mixed, d.Why)
	// The two halves of the chains, each pooled, compared atom by atom.
	half := len(res.ChainSamples) / 2
	hmean := func(lo, hi, i int) float64 {
		s, n := 0.0, 0
		for k := lo; k < hi; k++ {
			s += res.ChainSum[k][i]
			n += res.ChainSamples[k]
		}
		return s / float64(n)
	}
	marg := map[string]float64{}
	ses := map[string]float64{}
	var halfDiff, halfZ []float64
	failing := 0
	type worst struct {
		name string
		rhat float64
	}
	var ws []worst
	for v := 0; v < gr.NumAtoms; v++ {
		i := res.Off[v] + 1
		name := gr.AtomName(int32(v))
		marg[name] = res.Mean[i]
		ses[name] = res.StdErr[i]
		a, b := hmean(0, half, i), hmean(half, 2*half, i)
		halfDiff = append(halfDiff, math.Abs(a-b))
		if se := res.StdErr[i]; se > 0 {
			halfZ = append(halfZ, math.Abs(a-b)/(2*se)) // each half's s.e. ≈ √2·se: the difference's 2·se
		}
		if !res.Pass[i] {
			failing++
		}
		ws = append(ws, worst{name, res.EntryRHat[i]})
	}
	sort.Slice(ws, func(a, b int) bool { return ws[a].rhat > ws[b].rhat })
	sort.Float64s(halfDiff)
	sort.Float64s(halfZ)
	mean := 0.0
	for _, x := range halfDiff {
		mean += x
	}
	mean /= float64(len(halfDiff))
	maxSE := 0.0
	for _, s := range ses {
		maxSE = max(maxSE, s)
	}
	fmt.Printf("atoms not passing on their own: %d of %d; largest s.e. %.4f\n", failing, gr.NumAtoms, maxSE)
	fmt.Printf("halves (%d chains each): mean |diff| %.5f, max %.4f; |diff|/(2 s.e.) median %.2f, 99%% %.2f, max %.2f\n", half, mean, halfDiff[len(halfDiff)-1], halfZ[len(halfZ)/2], halfZ[len(halfZ)*99/100], halfZ[len(halfZ)-1])
	for _, w := range ws[:5] {
		fmt.Printf("  R-hat %.4f %s\n", w.rhat, w.name)
	}
	cpu := time.Since(t0).Seconds()
	fmt.Printf("%.1f s wall\n", cpu)
	if *out == "" {
		return
	}
	doc := map[string]any{
		"dataset": "uwcse/tuffy-cse, query advisedBy",
		"how": fmt.Sprintf("go run ./bench/realdata/uwref -chains %d -samples %d -burn-in %d -seed %d (Gibbs with the joint moves of strongly coupled pairs, gibbs.NewPairs: %d pairs; chains from uniformly random worlds and their complements)",
			*chains, *samples, *burn, *seed, np.Len()),
		"diagnostics": map[string]any{
			"samples": res.Samples, "chains": len(res.ChainSamples), "r_hat": d.RHat, "bulk_ess": d.BulkESS, "tail_ess": d.TailESS,
			"converged": d.Mixed, "atoms_not_passing": failing, "max_std_error": maxSE,
			"halves_mean_abs_diff": mean, "halves_max_abs_diff": halfDiff[len(halfDiff)-1],
			"note": strings.TrimSpace(d.Why),
		},
		"marginals":  marg,
		"std_errors": ses,
	}
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	if err := json.NewEncoder(zw).Encode(doc); err != nil {
		log.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
