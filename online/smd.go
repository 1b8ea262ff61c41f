package online

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// SMD is stochastic meta-descent with the natural-gradient form of the
// journal paper's Eqs. 15–18. C, the discounted sum of gradient outer
// products, is kept as a full k×k matrix (k the number of formulas): k is
// small (tens), so its O(k²) update and the O(k³) Cholesky solve per
// mini-batch cost nothing next to BP on the batch, and a low-rank
// approximation (Le Roux et al.) only pays off for thousands of parameters.
// C_0 = 0 is singular until k gradients have been seen, so C⁻¹v is solved
// with C + δI, δ = Delta (default 1). The normalised gradient components
// (Eq. 14) are averages of count differences per clause and lie in [−1, 1],
// so δ = 1 is on their scale and keeps C⁻¹ ≤ I: the recursion
// v ← λ(1 − ηC⁻¹)v − ηg then stays contracting for gains below 2. With a
// vanishing δ, C⁻¹ is huge in directions the few gradients seen so far have
// not visited, and SMD diverged within 14 mini-batches on the smokers test
// model.
type SMD struct {
	Theta, Eta, V []float64
	// C is row-major k×k.
	C                 []float64
	Lambda, Mu, Gamma float64
	// Delta regularises C (see above).
	Delta             float64
	k                 int
	scratch, l, cinvV []float64
}

// NewSMD starts SMD at theta0 with every gain equal to step.
func NewSMD(theta0 []float64, step, lambda, mu, gamma float64) *SMD {
	k := len(theta0)
	s := &SMD{Theta: append([]float64(nil), theta0...), Eta: make([]float64, k), V: make([]float64, k),
		C: make([]float64, k*k), Delta: 1, Lambda: lambda, Mu: mu, Gamma: gamma, k: k,
		l: make([]float64, k*k), cinvV: make([]float64, k), scratch: make([]float64, k)}
	for i := range s.Eta {
		s.Eta[i] = step
	}
	return s
}

// Step applies one update with the gradient g of the loss (the negative
// conditional log-likelihood, so that θ moves against it) at Theta:
// C ← γC + ggᵀ; η ← η·max(½, 1 − μ g·v) componentwise; θ ← θ − η·g;
// v ← λv − η·(g + λC⁻¹v).
func (s *SMD) Step(g []float64) {
	k := s.k
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			s.C[i*k+j] = s.Gamma*s.C[i*k+j] + g[i]*g[j]
		}
	}
	for i := range s.Eta {
		s.Eta[i] *= math.Max(0.5, 1-s.Mu*g[i]*s.V[i])
	}
	s.solve(s.V, s.cinvV)
	for i := range s.Theta {
		s.Theta[i] -= s.Eta[i] * g[i]
		s.V[i] = s.Lambda*s.V[i] - s.Eta[i]*(g[i]+s.Lambda*s.cinvV[i])
	}
}

// solve sets x = (C + δI)⁻¹ b by Cholesky factorisation.
func (s *SMD) solve(b, x []float64) {
	k := s.k
	delta := s.Delta
	L := s.l
	for i := 0; i < k; i++ {
		for j := 0; j <= i; j++ {
			sum := s.C[i*k+j]
			if i == j {
				sum += delta
			}
			for p := 0; p < j; p++ {
				sum -= L[i*k+p] * L[j*k+p]
			}
			if i == j {
				L[i*k+i] = math.Sqrt(math.Max(sum, 1e-300))
			} else {
				L[i*k+j] = sum / L[j*k+j]
			}
		}
	}
	y := s.scratch
	for i := 0; i < k; i++ {
		sum := b[i]
		for p := 0; p < i; p++ {
			sum -= L[i*k+p] * y[p]
		}
		y[i] = sum / L[i*k+i]
	}
	for i := k - 1; i >= 0; i-- {
		sum := y[i]
		for p := i + 1; p < k; p++ {
			sum -= L[p*k+i] * x[p]
		}
		x[i] = sum / L[i*k+i]
	}
}

// TrainOptions configure online training.
type TrainOptions struct {
	// Method is "smd" (default) or "sgd".
	Method string
	// BatchSize is the number of pieces per mini-batch (default 10).
	BatchSize int
	// Passes is the number of passes over the pieces (default 1; fractions
	// allowed).
	Passes float64
	// Step is SMD's initial gain and SGD's step size (default 0.2).
	Step float64
	// Lambda, Mu and Gamma are SMD's decay, meta-gain and covariance
	// discount (defaults 0.99, 0.1, 0.9; negative means 0).
	Lambda, Mu, Gamma float64
	// Init gives the starting weights (nil: zeros, as the paper starts).
	// The entries of hard formulas are returned as given: they are no
	// parameters, and the optimisers see only the soft formulas' weights.
	Init []float64
	// Grad configures the mini-batch gradients.
	Grad GradOptions
	// Gradient, if set, computes every mini-batch's gradient instead of
	// BatchGradient (another engine, such as a distributed pipeline over
	// PieceGradient and SumGradients); its result's Grad must be set.
	Gradient func(ctx context.Context, w []float64, batch []int32) (*BatchResult, error)
	// EvalEvery calls Eval after the first mini-batch that completes each
	// multiple of EvalEvery passes (0: never), and once at the start and at
	// the end.
	EvalEvery float64
	Eval      func(pass float64, w []float64) error
	// Progress, if set, is called after every mini-batch.
	Progress func(Progress)
	// Rand shuffles the pieces; required.
	Rand *rand.Rand
}

// Progress reports the state of online training after a mini-batch.
type Progress struct {
	Pass           float64 // passes over the pieces so far
	Batch, Batches int     // mini-batches done in this pass, and per pass
	Loss           float64 // Bethe negative CLL of the last batch, per piece
	// LiftRatio is lifted size / ground size (nodes plus factors) of the
	// last batch's graph.
	LiftRatio float64
	Weights   []float64
}

// TrainResult is the outcome of online training.
type TrainResult struct {
	Weights   []float64
	Batches   int
	Seconds   float64
	LiftRatio float64 // mean over batches
}

func (o *TrainOptions) defaults() error {
	if o.Method == "" {
		o.Method = "smd"
	}
	if o.Method != "smd" && o.Method != "sgd" {
		return fmt.Errorf("online: unknown method %q", o.Method)
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 10
	}
	if o.Passes == 0 {
		o.Passes = 1
	}
	if o.Step == 0 {
		o.Step = 0.2
	}
	if o.Lambda == 0 {
		o.Lambda = 0.99
	}
	if o.Mu == 0 {
		o.Mu = 0.1
	}
	if o.Gamma == 0 {
		o.Gamma = 0.9
	}
	for _, p := range []*float64{&o.Lambda, &o.Mu, &o.Gamma} {
		if *p < 0 {
			*p = 0
		}
	}
	if o.Rand == nil {
		return errors.New("online: TrainOptions.Rand is required")
	}
	return nil
}

// Train learns weights by SMD or SGD over mini-batches of the given pieces
// (Algorithm 6): every pass shuffles the pieces and cuts them into
// mini-batches of BatchSize; each mini-batch's gradient (BatchGradient)
// updates the weights at once.
func Train(ctx context.Context, md *Model, pieces *Pieces, opt TrainOptions) (*TrainResult, error) {
	if err := opt.defaults(); err != nil {
		return nil, err
	}
	start := time.Now()
	// SMD and SGD run on the learnable weights alone; w is the full vector
	// BatchGradient and the callbacks see, its hard entries as given.
	free := md.learnable()
	if len(free) == 0 {
		return nil, errors.New("online: no soft formula to learn")
	}
	w := make([]float64, md.NumFormulas())
	copy(w, opt.Init)
	smd := NewSMD(gather(w, free), opt.Step, opt.Lambda, opt.Mu, opt.Gamma)
	theta := smd.Theta
	n := pieces.Len()
	if n == 0 {
		return nil, errors.New("online: no pieces (the evidence fixes every soft ground clause)")
	}
	nb := (n + opt.BatchSize - 1) / opt.BatchSize
	total := int(math.Ceil(opt.Passes * float64(nb)))
	// tenth returns how many EvalEvery boundaries t batches have crossed.
	tenth := func(t int) int {
		if opt.EvalEvery <= 0 {
			return 0
		}
		return int(math.Floor(float64(t)/float64(nb)/opt.EvalEvery + 1e-9))
	}
	if opt.Eval != nil {
		if err := opt.Eval(0, w); err != nil {
			return nil, err
		}
	}
	res := &TrainResult{}
	order := make([]int32, n)
	ratio := 0.0
	for t := 0; t < total; t++ {
		bi := t % nb
		if bi == 0 {
			for i, p := range opt.Rand.Perm(n) {
				order[i] = int32(p)
			}
		}
		batch := order[bi*opt.BatchSize : min(n, (bi+1)*opt.BatchSize)]
		var r *BatchResult
		var err error
		if opt.Gradient != nil {
			r, err = opt.Gradient(ctx, w, batch)
		} else {
			r, err = md.BatchGradient(ctx, w, pieces, batch, opt.Grad)
		}
		if err != nil {
			return nil, err
		}
		g := gather(r.Grad, free)
		if opt.Method == "smd" {
			smd.Step(g)
		} else {
			for i := range theta {
				theta[i] -= opt.Step * g[i]
			}
		}
		scatter(w, free, theta)
		for i := range w {
			if math.IsNaN(w[i]) || math.IsInf(w[i], 0) {
				return nil, fmt.Errorf("online: weights diverged after %d mini-batches", t+1)
			}
		}
		lr := float64(r.LiftedNodes+r.LiftedFactors) / float64(r.GroundVars+r.GroundFactors)
		ratio += lr
		pass := float64(t+1) / float64(nb)
		if opt.Progress != nil {
			opt.Progress(Progress{Pass: pass, Batch: bi + 1, Batches: nb, Loss: r.Loss / float64(len(batch)), LiftRatio: lr, Weights: w})
		}
		if opt.Eval != nil && tenth(t+1) > tenth(t) && t+1 != total {
			if err := opt.Eval(pass, w); err != nil {
				return nil, err
			}
		}
	}
	if opt.Eval != nil {
		if err := opt.Eval(float64(total)/float64(nb), w); err != nil {
			return nil, err
		}
	}
	res.Weights = append([]float64(nil), w...)
	res.Batches = total
	res.LiftRatio = ratio / float64(total)
	res.Seconds = time.Since(start).Seconds()
	return res, nil
}
