package main

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/lifted-dev/lifted/cnf"
	"github.com/lifted-dev/lifted/count"
)

// diagnose splits every trial's error log10(estimate/#F) into its steps:
// with f the true fraction of the models of the step's formula that take
// the value drawn (two exact counts, the earlier values as unit clauses)
// and q the probability it was drawn with, the estimate is
// #F·Π f/q, so log10(f/q) is what the step cost or gained. The steps are
// then grouped by what the choice was (the most balanced variable or one
// admitted by the slack, BP converged or not, forced).
func diagnose(c *cnf.CNF, res *count.BPCountResult) error {
	total, err := exactLog10(c, nil)
	if err != nil {
		return err
	}
	type group struct {
		n          int
		sum, sumSq float64
		worst      float64
	}
	groups := map[string]*group{}
	add := func(key string, v float64) {
		g := groups[key]
		if g == nil {
			g = &group{worst: math.Inf(1)}
			groups[key] = g
		}
		g.n++
		g.sum += v
		g.sumSq += v * v
		g.worst = math.Min(g.worst, v)
	}
	klSum := make([][]float64, len(qRules))
	fmt.Printf("### %s: per-step error log10(f/q), true count 10^%.4f\n\n", res.Method, total)
	fmt.Println("| trial | estimate − truth (log10) | Σ steps | steps at the most balanced variable: n, Σ | steps by slack: n, Σ | not converged: n, Σ |")
	fmt.Println("|---|---|---|---|---|---|")
	for i, tr := range res.Trials {
		var units [][]int32
		var sum float64
		kl := make([]float64, len(qRules))
		var nb, ns, nn int
		var sb, ss, sn float64
		for _, st := range tr.Steps {
			lit := int32(st.Var + 1)
			lt, err := exactLog10(c, append(units, []int32{lit}))
			if err != nil {
				return err
			}
			lf, err := exactLog10(c, append(units, []int32{-lit}))
			if err != nil {
				return err
			}
			lv := lt
			if !st.Value {
				lv = lf
				lit = -lit
			}
			hi := math.Max(lt, lf)
			f := lv - (hi + math.Log10(math.Pow(10, lt-hi)+math.Pow(10, lf-hi)))
			e := f - math.Log10(st.Prob)
			if !st.Forced {
				fT := math.Pow(10, lt-hi) / (math.Pow(10, lt-hi) + math.Pow(10, lf-hi))
				for r, rule := range qRules {
					kl[r] += klLog10(rule.q(st.Marginal, st.Converged), fT)
				}
			}
			sum += e
			balanced := math.Abs(math.Abs(st.Marginal-0.5)-st.Balance) <= 1e-9
			key := "slack"
			if balanced {
				key = "most balanced"
				nb++
				sb += e
			} else {
				ns++
				ss += e
			}
			if !st.Converged {
				nn++
				sn += e
			}
			conv := "converged"
			if !st.Converged {
				conv = "not converged"
			}
			if st.Forced {
				key, conv = "forced", ""
			}
			if st.Frozen {
				conv += ", frozen"
			}
			add(key+", "+conv, e)
			units = append(units, []int32{lit})
		}
		fmt.Printf("| %d | %.3f | %.3f | %d, %.3f | %d, %.3f | %d, %.3f |\n", i+1, tr.EstimateLog10-total, sum, nb, sb, ns, ss, nn, sn)
		for r := range qRules {
			klSum[r] = append(klSum[r], kl[r])
		}
	}
	fmt.Println()
	fmt.Println("Expected log10 loss E[log10(estimate/#F)] = −Σ KL(q‖f) of each trial's steps under other rules for q (same steps, same variables):")
	fmt.Println()
	fmt.Println("| rule for q | Σ KL per trial (log10) |")
	fmt.Println("|---|---|")
	for r, rule := range qRules {
		fmt.Printf("| %s | %s |\n", rule.name, fmtList(klSum[r]))
	}
	fmt.Println()
	fmt.Println("| step kind | steps | mean log10(f/q) | sd | worst |")
	fmt.Println("|---|---|---|---|---|")
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := groups[k]
		m := g.sum / float64(g.n)
		sd := math.Sqrt(math.Max(0, g.sumSq/float64(g.n)-m*m))
		fmt.Printf("| %s | %d | %.3f | %.3f | %.3f |\n", k, g.n, m, sd, g.worst)
	}
	fmt.Println()
	return nil
}

func exactLog10(c *cnf.CNF, units [][]int32) (float64, error) {
	d := &cnf.CNF{NumVars: c.NumVars, Clauses: append(append([][]int32(nil), c.Clauses...), units...)}
	n, _, err := count.ExactWithOptions(context.Background(), d, count.Options{})
	if err != nil {
		return 0, err
	}
	return count.Log10(n), nil
}

// qRules are ways to draw a value from the BP marginal p, compared by their
// expected loss on the recorded steps.
var qRules = []struct {
	name string
	q    func(p float64, converged bool) float64
}{
	{"clamp [0.25, 0.75] (default)", func(p float64, _ bool) float64 { return clamp(p, 0.25) }},
	{"clamp [0.35, 0.65]", func(p float64, _ bool) float64 { return clamp(p, 0.35) }},
	{"fair coin", func(float64, bool) float64 { return 0.5 }},
	{"½ + (p − ½)/2, clamped 0.25", func(p float64, _ bool) float64 { return clamp(0.5+(p-0.5)/2, 0.25) }},
	{"fair coin when BP did not converge", func(p float64, c bool) float64 {
		if !c {
			return 0.5
		}
		return clamp(p, 0.25)
	}},
	{"½ + (p − ½)/2 when BP did not converge", func(p float64, c bool) float64 {
		if !c {
			return clamp(0.5+(p-0.5)/2, 0.25)
		}
		return clamp(p, 0.25)
	}},
}

func clamp(p, m float64) float64 { return min(max(p, m), 1-m) }

// klLog10 is KL(q‖f) in log10 units for Bernoulli q and f.
func klLog10(q, f float64) float64 {
	t := func(a, b float64) float64 {
		if a == 0 {
			return 0
		}
		if b == 0 {
			return math.Inf(1)
		}
		return a * math.Log10(a/b)
	}
	return t(q, f) + t(1-q, 1-f)
}

func fmtList(v []float64) string {
	s := ""
	tot := 0.0
	for i, x := range v {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.3f", x)
		tot += x
	}
	return fmt.Sprintf("%s (mean %.3f)", s, tot/float64(len(v)))
}
