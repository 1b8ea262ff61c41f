package mcmc

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/lifted-dev/lifted/fg"
	"github.com/lifted-dev/lifted/gibbs"
	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/lift"
)

// Tempering configures replica exchange (parallel tempering, Swendsen and
// Wang 1986; Geyer 1991): every chain is a ladder of replicas, replica i
// sampling p_i(x) ∝ Π_f φ_f(x)^βᵢ at inverse temperature βᵢ = 1/Tᵢ
// (T₀ = 1 < T₁ < …), each by the base kernel (single-site Gibbs or
// blocked Gibbs). After every step of all replicas, neighbouring replicas
// i, i+1 propose to exchange their worlds — the pairs with i even after
// even steps, odd after odd ones (the deterministic even–odd scheme) —
// accepted with probability min(1, exp((βᵢ − βᵢ₊₁)(L(xᵢ₊₁) − L(xᵢ)))),
// L the log-score at T = 1. The product of the p_i is invariant, so the T = 1
// replica samples the model; hot replicas cross the barriers between its
// modes and hand their worlds down. Zero entries stay zero at every
// temperature (hard constraints are not tempered): tempering helps soft
// barriers, and blocked Gibbs's blocks the hard ones.
type Tempering struct {
	// Base is Gibbs or BGibbs.
	Base Kernel
	// Temps is the ladder T₀ = 1 < T₁ < … (at least two).
	Temps []float64
}

// GeometricLadder returns n temperatures from 1 to tmax, evenly spaced in
// log T (n ≥ 2, tmax > 1).
func GeometricLadder(n int, tmax float64) []float64 {
	t := make([]float64, n)
	for i := range t {
		t[i] = math.Pow(tmax, float64(i)/float64(n-1))
	}
	return t
}

// tempered returns g with every table entry raised to the power beta
// (zeros stay zero), sharing g's structure.
func tempered(g *fg.Graph, beta float64) *fg.Graph {
	if beta == 1 {
		return g
	}
	h := *g
	h.Tables = make([]fg.Table, len(g.Tables))
	for t, tb := range g.Tables {
		vals := make([]float64, len(tb.Values))
		for i, v := range tb.Values {
			if v > 0 {
				vals[i] = math.Exp(beta * math.Log(v))
			}
		}
		h.Tables[t] = fg.Table{Dims: tb.Dims, Values: vals}
	}
	return &h
}

// SampleTempering runs cfg.Chains independent replica-exchange chains of
// tp on g given ev, each replica from its own random start (gibbs.Start),
// and returns the T = 1 replicas' Rao-Blackwellised marginals with the
// diagnostics of Sample, Sweeps counting every replica's steps, and the
// swap acceptance rate of every neighbouring pair of temperatures (all
// chains together) in Result.SwapRates.
func SampleTempering(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config, tp Tempering) (*Result, error) {
	if len(tp.Temps) < 2 || tp.Temps[0] != 1 {
		return nil, errors.New("tempering: the ladder needs at least two temperatures, the first 1")
	}
	for i := 1; i < len(tp.Temps); i++ {
		if !(tp.Temps[i] > tp.Temps[i-1]) || math.IsInf(tp.Temps[i], 0) {
			return nil, fmt.Errorf("tempering: temperatures must increase and be finite, got %v", tp.Temps)
		}
	}
	if tp.Base != Gibbs && tp.Base != BGibbs {
		return nil, fmt.Errorf("tempering: base kernel must be gibbs or bgibbs, got %s", tp.Base)
	}
	if cfg.Samples < 0 || cfg.BurnIn < 0 || cfg.Chains < 0 || cfg.TimeLimit < 0 {
		return nil, errors.New("tempering: samples, burn-in, chains and time limit must not be negative")
	}
	if cfg.Samples == 0 && cfg.TimeLimit == 0 {
		return nil, errors.New("tempering: samples must be positive (or 0 with a time limit)")
	}
	nc := defaultChains(cfg.Chains)
	ev = cfg.blockDefaults(g, ev)
	var bk *gibbs.Blocking
	if tp.Base == BGibbs {
		var err error
		if bk, err = gibbs.NewBlocking(g, ev, cfg.BlockSize, cfg.BlockStates); err != nil {
			return nil, err
		}
	}
	R := len(tp.Temps)
	graphs := make([]*fg.Graph, R)
	betas := make([]float64, R)
	for i, t := range tp.Temps {
		betas[i] = 1 / t
		graphs[i] = tempered(g, betas[i])
	}
	var deadline time.Time
	if cfg.TimeLimit > 0 {
		deadline = time.Now().Add(cfg.TimeLimit)
	}
	tried := make([]atomic.Int64, R-1)
	took := make([]atomic.Int64, R-1)
	sel := diagnosed(g, ev)
	runs, err := runChains(ctx, nc, cfg, func(k int, r *chainRun) error {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(k)))
		chs := make([]*gibbs.Chain, R)
		for i := range R {
			x := make([]int32, g.NumVars())
			if err := gibbs.Start(graphs[i], ev, x, rng); err != nil {
				var ue *gibbs.UnsatError
				if errors.As(err, &ue) {
					return &StartError{Err: ue}
				}
				return err
			}
			ch, err := gibbs.NewChain(graphs[i], ev, x)
			if err != nil {
				return err
			}
			chs[i] = ch
		}
		score := make([]float64, R) // log-scores at T = 1
		step := 0
		size := chs[0].Offsets()[g.NumVars()]
		return r.loop(ctx, cfg, deadline, size, sel, nc, chs[0].LogScore, func(cond []float64) error {
			for i, ch := range chs {
				c := cond
				if i > 0 {
					c = nil
				}
				if bk != nil {
					ch.BlockSweep(rng, bk, c)
				} else {
					ch.Sweep(rng, c)
				}
				score[i] = ch.LogScore() / betas[i]
			}
			for i := step % 2; i+1 < R; i += 2 {
				tried[i].Add(1)
				a := (betas[i] - betas[i+1]) * (score[i+1] - score[i])
				if a >= 0 || rng.Float64() < math.Exp(a) {
					took[i].Add(1)
					xi, xj := chs[i].State(), chs[i+1].State()
					for v := range xi {
						xi[v], xj[v] = xj[v], xi[v]
					}
					score[i], score[i+1] = score[i+1], score[i]
				}
			}
			step++
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	res, err := collect(ctx, runs, cfg, "tempering")
	if err != nil {
		return nil, err
	}
	res.Sweeps *= R
	if bk != nil {
		res.Clusters = len(bk.Blocks)
	}
	res.average(g, runs)
	res.SwapRates = make([]float64, R-1)
	for i := range res.SwapRates {
		if n := tried[i].Load(); n > 0 {
			res.SwapRates[i] = float64(took[i].Load()) / float64(n)
		}
	}
	res.diagnose(runs, sel, res.Off, tp.Base)
	return res, nil
}

// temperingSampler is the method "tempering".
type temperingSampler struct {
	cfg Config
	tp  Tempering
}

// Run samples the ground graph by replica exchange; the answer is that of
// the other samplers (sampler.Run) with the swap rates in the statistics.
func (s temperingSampler) Run(ctx context.Context, c *lift.Compressed, q infer.Query) (*infer.Answer, error) {
	return runGround(ctx, c, q, "tempering", s.cfg, func(ctx context.Context, g *fg.Graph, ev fg.Evidence, cfg Config) (*Result, error) {
		return SampleTempering(ctx, g, ev, cfg, s.tp)
	})
}

func init() {
	var tm infer.Method
	tm = infer.Method{
		Name:    "tempering",
		Summary: "replica exchange (parallel tempering): Gibbs or blocked Gibbs at a ladder of temperatures, neighbours swapping worlds; samples from T=1",
		Tasks:   []infer.Task{infer.Marginals},
		Props: append(append([]infer.Property(nil), props...),
			infer.Property{Name: "base", Default: "gibbs", Help: "the kernel of every replica: gibbs or bgibbs"},
			infer.Property{Name: "temperatures", Default: "8", Help: "replicas per chain (a geometric ladder from 1 to max-temperature)"},
			infer.Property{Name: "max-temperature", Default: "10", Help: "the hottest replica's temperature"},
			infer.Property{Name: "ladder", Default: "", Help: "explicit temperatures instead, e.g. 1,1.5,2.5,4 (first 1, increasing)"},
			infer.Property{Name: "block-size", Default: strconv.Itoa(DefaultBlockSize), Help: "most variables in a block (base bgibbs)"},
			infer.Property{Name: "block-states", Default: strconv.Itoa(DefaultBlockStates), Help: "most joint states of a block (base bgibbs)"}),
		New: func(p infer.Properties) (infer.Algorithm, error) {
			base := p.String(tm, "base")
			k := Gibbs
			switch base {
			case "gibbs":
			case "bgibbs":
				k = BGibbs
			default:
				return nil, &infer.PropertyError{Method: tm.Name, Name: "base", Value: base, Msg: fmt.Sprintf("must be gibbs or bgibbs, got %q", base)}
			}
			a, err := newSampler(tm, BGibbs, p) // reads the common and the block properties
			if err != nil {
				return nil, err
			}
			s := temperingSampler{cfg: a.(sampler).cfg, tp: Tempering{Base: k}}
			s.cfg.Kernel = k
			if l := p.String(tm, "ladder"); l != "" {
				for _, f := range strings.Split(l, ",") {
					t, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
					if err != nil {
						return nil, &infer.PropertyError{Method: tm.Name, Name: "ladder", Value: l, Msg: fmt.Sprintf("must be a list of numbers, got %q", f)}
					}
					s.tp.Temps = append(s.tp.Temps, t)
				}
				ok := len(s.tp.Temps) >= 2 && s.tp.Temps[0] == 1
				for i := 1; ok && i < len(s.tp.Temps); i++ {
					ok = s.tp.Temps[i] > s.tp.Temps[i-1] && !math.IsInf(s.tp.Temps[i], 0)
				}
				if !ok {
					return nil, &infer.PropertyError{Method: tm.Name, Name: "ladder", Value: l, Msg: "needs at least two temperatures, the first 1, increasing and finite"}
				}
				return s, nil
			}
			n, err := p.Int(tm, "temperatures")
			if err != nil {
				return nil, err
			}
			tmax, err := p.Float(tm, "max-temperature")
			if err != nil {
				return nil, err
			}
			if n < 2 {
				return nil, &infer.PropertyError{Method: tm.Name, Name: "temperatures", Msg: fmt.Sprintf("must be at least 2, got %d", n)}
			}
			if !(tmax > 1) || math.IsInf(tmax, 0) {
				return nil, &infer.PropertyError{Method: tm.Name, Name: "max-temperature", Msg: fmt.Sprintf("must be finite and above 1, got %v", tmax)}
			}
			s.tp.Temps = GeometricLadder(n, tmax)
			return s, nil
		},
	}
	infer.Register(tm)
}
