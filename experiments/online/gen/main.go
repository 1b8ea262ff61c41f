// Command gen writes training and test mega-examples for the online-learning
// experiments.
//
//	gen -i model.mln -n 5 -o data/smokers        # sample from the MLN's weights
//	gen -i model.mln -from fold1.db -hide workedUnder -frac 0.2 -o train.db
//
// Sampling draws every atom of the -ne predicates (default: all) by Gibbs
// sampling on the ground network (online.Sample) with the weights written in
// the MLN, given the evidence in -db, and writes PREFIX1.db … PREFIXn.db.
// With -from it instead copies a database, writing a random fraction of the
// atoms of the -hide predicates as unknown ("?P(A)"): partially observed
// training data.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/online"
)

func main() {
	in := flag.String("i", "", "MLN")
	ne := flag.String("ne", "", "predicates to sample, comma-separated (default all)")
	dbPath := flag.String("db", "", "evidence for the other predicates")
	n := flag.Int("n", 1, "number of data sets")
	burn := flag.Int("burnin", 200, "Gibbs sweeps per data set")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("o", "", "output prefix (sampling) or file (-from)")
	from := flag.String("from", "", "copy this database instead of sampling")
	hide := flag.String("hide", "", "with -from: predicates whose atoms may be hidden")
	frac := flag.Float64("frac", 0.2, "with -from: fraction of the -hide atoms to hide")
	flag.Parse()
	if err := run(*in, *ne, *dbPath, *n, *burn, *seed, *out, *from, *hide, *frac); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(in, ne, dbPath string, n, burn int, seed uint64, out, from, hide string, frac float64) error {
	m, err := mlnfile.ParseFile(in)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	if from != "" {
		db, err := mlnfile.ReadDBFiles(m, from)
		if err != nil {
			return err
		}
		hp := strings.Split(hide, ",")
		md, err := online.NewModel(m, db, hp)
		if err != nil {
			return err
		}
		fh, err := os.Create(out)
		if err != nil {
			return err
		}
		defer fh.Close()
		return online.WriteDB(fh, md, md.Value, func(a int32) bool {
			return md.Status[a] == online.Observed && rng.Float64() < frac
		})
	}
	var db *mln.DB
	if dbPath != "" {
		if db, err = mlnfile.ReadDBFiles(m, dbPath); err != nil {
			return err
		}
	}
	var preds []string
	for _, p := range m.Preds {
		if ne == "" || slices.Contains(strings.Split(ne, ","), p.Name) {
			preds = append(preds, p.Name)
		}
	}
	md, err := online.NewModel(m, db, preds)
	if err != nil {
		return err
	}
	w := make([]float64, len(m.Formulas))
	for i, f := range m.Formulas {
		w[i] = f.Weight
	}
	for i := 1; i <= n; i++ {
		x, err := online.Sample(md, w, burn, rng)
		if err != nil {
			return err
		}
		fh, err := os.Create(fmt.Sprintf("%s%d.db", out, i))
		if err != nil {
			return err
		}
		err = online.WriteDB(fh, md, x, nil)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
