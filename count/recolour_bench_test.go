package count

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// BenchmarkRecolourResidual times the colouring of LBPCount's residual
// graphs along one trial, without BP in between: the clamps of the first
// trial of LBPCount (seed 1, choice slack 0, BP cut at 30 iterations to
// keep the set-up short) are replayed, and each residual graph is coloured
// from scratch (lift.Compress), incrementally (Recolourer.Shrink with
// merging, then Compress: the same counted graph) and incrementally
// without merging. It skips when ../shared is absent.
//
//	go test ./count -run '^$' -bench RecolourResidual -count 3
func BenchmarkRecolourResidual(b *testing.B) {
	ctx := context.Background()
	for _, name := range []string{"2bitmax_6.cnf", "generated/ls8-norm-gen.cnf"} {
		c := sharedCNF(b, name)
		opt := DefaultBPCountOptions()
		opt.Trials, opt.ChoiceSlack, opt.Lifted, opt.MaxIter = 1, 0, true, 30
		res, err := BPCount(ctx, c, opt)
		if err != nil {
			b.Fatal(err)
		}
		type residual struct {
			g        *fg.Graph
			id, from []int32
		}
		var seq []residual
		s := newUnitState(c)
		s.initial()
		for _, st := range res.Trials[0].Steps {
			r, id, from := s.residual()
			g, err := cnf.ToGraph(r)
			if err != nil {
				b.Fatal(err)
			}
			seq = append(seq, residual{g, id, from})
			x := int8(0)
			if st.Value {
				x = 1
			}
			s.set(int32(st.Var), x)
		}
		opts := lift.Options{Mode: lift.CNF}
		modes := []Recolouring{RecolourScratch, RecolourIncremental, RecolourRefine}
		colour := func(mode Recolouring) int {
			nodes := 0
			var cs colourState
			for _, r := range seq {
				var cg *lift.Compressed
				var err error
				if mode == RecolourScratch {
					cg, _, err = infer.Compress(ctx, r.g, nil, true, opts)
				} else {
					cg, _, err = cs.shrink(ctx, r.g, r.id, r.from, len(s.clauses), mode == RecolourIncremental)
				}
				if err != nil {
					b.Fatal(err)
				}
				nodes += cg.NumNodes()
			}
			return nodes
		}
		// The three modes side by side in every iteration (in turn, so that
		// the machine's load weighs on each alike); medians reported.
		b.Run(name, func(b *testing.B) {
			secs := make([][]float64, len(modes))
			nodes := make([]int, len(modes))
			i := 0
			for b.Loop() {
				for k := range modes {
					m := (i + k) % len(modes)
					t0 := time.Now()
					nodes[m] = colour(modes[m])
					secs[m] = append(secs[m], time.Since(t0).Seconds())
				}
				i++
			}
			b.ReportMetric(float64(len(seq)), "steps")
			for m, mode := range modes {
				slices.Sort(secs[m])
				b.ReportMetric(1e3*secs[m][len(secs[m])/2], mode.String()+"-ms")
				b.ReportMetric(float64(nodes[m])/float64(len(seq)), mode.String()+"-clusternodes/step")
			}
		})
	}
}
