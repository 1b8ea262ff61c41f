package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// timing measures, side by side in one run, the setup time and the time
// per step of a sampler in several builds of lifted (before and after a
// change): for every model and size, each build runs the method with one
// chain, no burn-in and s1, then s2 samples, reps times, the builds
// interleaved; from the medians, step = (wall(s2) − wall(s1))/(s2 − s1)
// and setup = wall(s1) − s1·step (parsing, grounding where the method
// grounds, the chain's start, the output: everything but the steps); the
// same from the process's CPU time (user + system), which a loaded machine
// disturbs less than the wall time.
func timing(ctx context.Context, w io.Writer, bins [][2]string, work string, ms []model, sizes []int, methods []string,
	s1, s2, reps int, timeout time.Duration, seed int64) error {
	fmt.Fprintf(w, "| model | n | method | build | setup (s) | step (s) | setup CPU (s) | step CPU (s) | wall %d / %d samples (s) |\n|---|---|---|---|---|---|---|---|---|\n", s1, s2)
	for _, m := range ms {
		for _, n := range sizes {
			mlnPath, dbPath, err := writeModel(work, m, n, seed)
			if err != nil {
				return err
			}
			var qs []string
			for _, p := range m.preds {
				qs = append(qs, p.name)
			}
			for _, meth := range methods {
				walls := make([][2][]float64, len(bins))
				cpus := make([][2][]float64, len(bins))
				fail := make([]string, len(bins))
				for range reps {
					for b, bin := range bins {
						for k, s := range []int{s1, s2} {
							if fail[b] != "" {
								continue
							}
							rctx, cancel := context.WithTimeout(ctx, timeout)
							res, err := run(rctx, bin[1], "infer", mlnPath, "-e", dbPath, "-q", strings.Join(qs, ","), "--output-format", "json", "--quiet",
								"--method", meth, "--chains", "1", "--burn-in", "0", "--samples", strconv.Itoa(s), "--allow-unconverged",
								"--seed", strconv.FormatInt(seed, 10))
							timedOut := errors.Is(rctx.Err(), context.DeadlineExceeded)
							cancel()
							switch {
							case timedOut:
								fail[b] = fmt.Sprintf("stopped after %s", timeout)
							case err != nil:
								fail[b] = shorten(why(err))
							default:
								walls[b][k] = append(walls[b][k], res.seconds)
								cpus[b][k] = append(cpus[b][k], res.cpu)
							}
						}
					}
				}
				for b, bin := range bins {
					if fail[b] != "" {
						fmt.Fprintf(w, "| %s | %d | %s | %s | — | — | — | — | %s |\n", m.name, n, meth, bin[0], fail[b])
						continue
					}
					w1, w2 := median(walls[b][0]), median(walls[b][1])
					step := (w2 - w1) / float64(s2-s1)
					c1, c2 := median(cpus[b][0]), median(cpus[b][1])
					cstep := (c2 - c1) / float64(s2-s1)
					fmt.Fprintf(w, "| %s | %d | %s | %s | %.3g | %.3g | %.3g | %.3g | %.3g / %.3g |\n", m.name, n, meth, bin[0],
						w1-float64(s1)*step, step, c1-float64(s1)*cstep, cstep, w1, w2)
				}
			}
		}
	}
	return nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
