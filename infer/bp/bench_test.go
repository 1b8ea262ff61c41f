package bp_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/format"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/gen"
	"github.com/lifted-dev/lifted/internal/shareddata"
	"github.com/lifted-dev/lifted/lift"
)

// BenchmarkBP compares ground and lifted BP side by side on the ground
// friends-and-smokers network (one Smokes atom observed) and on a square grid
// (one corner observed): 50 flooding iterations each.
func BenchmarkBP(b *testing.B) {
	type model struct {
		name string
		g    *fg.Graph
		ev   fg.Evidence
	}
	sm := gen.Smokers(60, 1.5, 1.1)
	smEv := fg.NoEvidence(sm.NumVars())
	smEv[0] = 1
	gr := gen.SquareGrid(rand.New(rand.NewPCG(1, 1)), 100)
	grEv := fg.NoEvidence(gr.NumVars())
	grEv[0] = 1
	for _, m := range []model{{"smokers60", sm, smEv}, {"grid100", gr, grEv}} {
		ground, err := lift.Ground(m.g, m.ev)
		if err != nil {
			b.Fatal(err)
		}
		lifted, _, err := lift.Compress(context.Background(), m.g, m.ev, lift.Options{})
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name string
			c    *lift.Compressed
		}{{"ground", ground}, {"lifted", lifted}} {
			for _, sched := range []bp.Schedule{bp.Flood, bp.Sequential} {
				b.Run(fmt.Sprintf("%s/%s/%v", m.name, c.name, sched), func(b *testing.B) {
					opt := bp.Options{Tol: 0, MaxIter: 50, Schedule: sched}
					var msgs int64
					for b.Loop() {
						r, err := bp.Run(context.Background(), c.c, opt)
						if err != nil {
							b.Fatal(err)
						}
						msgs = r.Messages
					}
					b.ReportMetric(float64(msgs), "messages")
				})
			}
		}
	}
}

// BenchmarkUAI runs ground BP (tol 1e-9, as bench/libdai/compare.sh runs
// libDAI) on the UAI models of ../shared/data/uai that compare.sh uses,
// for profiling the engine on real models (go test -bench UAI -cpuprofile).
func BenchmarkUAI(b *testing.B) {
	for _, m := range []string{"linkage_16", "Promedus_11", "Promedus_14"} {
		path := shareddata.Need(b, "uai", m+".uai")
		mod, err := format.Load(path, format.Options{})
		if err != nil {
			b.Skipf("%s: %v (../shared/data is not beside the repository)", m, err)
		}
		ev, err := format.LoadEvidence([]string{path + ".evid"}, mod.Graph)
		if err != nil {
			b.Fatal(err)
		}
		c, err := lift.Ground(mod.Graph, ev)
		if err != nil {
			b.Fatal(err)
		}
		for _, sched := range []bp.Schedule{bp.Flood, bp.Sequential} {
			b.Run(m+"/"+sched.String(), func(b *testing.B) {
				for b.Loop() {
					_, err := bp.Run(context.Background(), c, bp.Options{Tol: 1e-9, MaxIter: 10000, Schedule: sched})
					if err != nil && !errors.Is(err, bp.ErrNotNormalizable) {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
