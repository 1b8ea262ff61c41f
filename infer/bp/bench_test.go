package bp_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer/bp"
	"github.com/lifted-dev/lifted/internal/gen"
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
