// Command scaling runs experiment (a) of issue 5: friends-and-smokers log Z
// and one full exact lifted weight-learning run for domain sizes from 100 to
// a million people.
//
// For each n it
//
//   - times log Z (with the expected counts) of Forclift's friends-and-smokers
//     model (weights ln 2, ln 1.2, ln 1.2) and checks it against the closed
//     form Σ_k C(n,k) 3^k 4^(n−k) 2.64^(2k(n−k)) 2.88^(n²−2k(n−k));
//   - draws a random training world — each person smokes with probability
//     0.3, has cancer with probability 0.6 if a smoker and 0.1 if not, and
//     makes about -degree/2 friendships (both directions), each with a person
//     of the same smoking status with probability 0.7 — counts the true
//     groundings of the six formulas of the learning check directly
//     from the friendship list (and, up to -check, with learn.CountDB on the
//     same world written as a database);
//   - learns the six weights by LWL (L-BFGS, prior N(0, 100²)) and times it.
//
// Usage: go run ./experiments/wfomc/scaling [-sizes 100,1000,…] [-degree 10] [-seed 1]
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
	"github.com/lifted-dev/lifted/learn"
	"github.com/lifted-dev/lifted/mln"
	"github.com/lifted-dev/lifted/wfomc"
)

const forcliftModel = `Smokes(person)
Cancer(person)
Friends(person, person)
0.6931471805599453 !Smokes(x) v Cancer(x)
0.1823215567939546 !Friends(x,y) v Smokes(x) v !Smokes(y)
0.1823215567939546 !Friends(x,y) v !Smokes(x) v Smokes(y)
`

const learnModel = `Friends(person, person)
Smokes(person)
Cancer(person)
Smokes(x)
Cancer(x)
Friends(x,y)
Smokes(x) => Cancer(x)
Friends(x,y) ^ Smokes(x) => Smokes(y)
Friends(x,y) ^ Smokes(y) => Smokes(x)
`

func main() {
	sizesFlag := flag.String("sizes", "100,1000,10000,30000,100000,1000000", "domain sizes")
	degree := flag.Float64("degree", 10, "average number of friends per person")
	seed := flag.Uint64("seed", 1, "random seed")
	check := flag.Int("check", 3000, "cross-check the counts with learn.CountDB up to this n")
	flag.Parse()
	var sizes []int64
	for _, s := range strings.Split(*sizesFlag, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil || n < 2 {
			fail(fmt.Errorf("bad size %q", s))
		}
		sizes = append(sizes, n)
	}
	fm, err := mlnfile.Parse("forclift.mln", []byte(forcliftModel))
	fail(err)
	lm, err := mlnfile.Parse("learn.mln", []byte(learnModel))
	fail(err)
	fmod, err := wfomc.Compile(fm, nil)
	fail(err)
	fw := []float64{fm.Formulas[0].Weight, fm.Formulas[1].Weight, fm.Formulas[2].Weight}

	fmt.Println("| n | ground atoms | log Z (Forclift FS model) | closed form, rel. diff. | log Z s | friendships | LWL s | LWL iterations | learned weights (Smokes, Cancer, Friends, S⇒C, F∧S(x)⇒S(y), F∧S(y)⇒S(x)) |")
	fmt.Println("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, n := range sizes {
		t0 := time.Now()
		r, err := fmod.Evaluate(fw, map[string]int64{"person": n})
		fail(err)
		zs := time.Since(t0).Seconds()
		cf := closedForm(n)
		rel := math.Abs(r.LogZ-cf) / math.Abs(cf)

		rng := rand.New(rand.NewPCG(*seed, uint64(n)))
		w := randomWorld(rng, n, *degree)
		counts := w.counts()
		if n <= int64(*check) {
			d, err := learn.CountDB(lm, w.db(lm), "check")
			fail(err)
			if !slices.Equal(d.Counts, counts) {
				fail(fmt.Errorf("n = %d: direct counts %v, learn.CountDB %v", n, counts, d.Counts))
			}
		}
		t1 := time.Now()
		res, err := learn.LWL(lm, []*learn.Data{{Name: fmt.Sprint(n), Sizes: map[string]int64{"person": n}, Counts: counts}}, nil)
		fail(err)
		ls := time.Since(t1).Seconds()
		ws := make([]string, len(res.Weights))
		for i, x := range res.Weights {
			ws[i] = strconv.FormatFloat(x, 'f', 4, 64)
		}
		atoms := float64(n)*float64(n) + 2*float64(n)
		fmt.Printf("| %d | %.3g | %.15g | %.1e | %.4f | %d | %.3f | %d | %s |\n",
			n, atoms, r.LogZ, rel, zs, len(w.friends), ls, res.Iterations, strings.Join(ws, ", "))
	}
}

// closedForm is log Z of the Forclift model by its closed form.
func closedForm(n int64) float64 {
	lf := func(k int64) float64 { v, _ := math.Lgamma(float64(k) + 1); return v }
	maxL := math.Inf(-1)
	ls := make([]float64, 0, n+1)
	for k := int64(0); k <= n; k++ {
		d := float64(2 * k * (n - k))
		l := lf(n) - lf(k) - lf(n-k) + float64(k)*math.Log(3) + float64(n-k)*math.Log(4) +
			d*math.Log(2.64) + (float64(n)*float64(n)-d)*math.Log(2.88)
		ls = append(ls, l)
		maxL = math.Max(maxL, l)
	}
	s := 0.0
	for _, l := range ls {
		s += math.Exp(l - maxL)
	}
	return maxL + math.Log(s)
}

type world struct {
	n       int64
	smokes  []bool
	cancer  []bool
	friends []int64 // i·n + j, sorted, distinct
}

func randomWorld(r *rand.Rand, n int64, degree float64) *world {
	w := &world{n: n, smokes: make([]bool, n), cancer: make([]bool, n)}
	var smokers, others []int64
	for i := int64(0); i < n; i++ {
		w.smokes[i] = r.Float64() < 0.3
		p := 0.1
		if w.smokes[i] {
			p = 0.6
			smokers = append(smokers, i)
		} else {
			others = append(others, i)
		}
		w.cancer[i] = r.Float64() < p
	}
	pick := func(list []int64) int64 { return list[r.IntN(len(list))] }
	per := int(degree / 2)
	for i := int64(0); i < n; i++ {
		for k := 0; k < per; k++ {
			var j int64
			same := r.Float64() < 0.7
			switch {
			case same == w.smokes[i] && len(smokers) > 0:
				j = pick(smokers)
			case len(others) > 0:
				j = pick(others)
			default:
				j = pick(smokers)
			}
			if j == i {
				continue
			}
			w.friends = append(w.friends, i*n+j, j*n+i)
		}
	}
	slices.Sort(w.friends)
	w.friends = slices.Compact(w.friends)
	return w
}

// counts returns the true groundings of the six formulas of learnModel.
func (w *world) counts() []float64 {
	var s, c, sNotC int64
	for i := int64(0); i < w.n; i++ {
		if w.smokes[i] {
			s++
			if !w.cancer[i] {
				sNotC++
			}
		}
		if w.cancer[i] {
			c++
		}
	}
	var breakXY, breakYX int64
	for _, e := range w.friends {
		i, j := e/w.n, e%w.n
		if w.smokes[i] && !w.smokes[j] {
			breakXY++ // Friends(i,j) ^ Smokes(i) => Smokes(j) is false
		}
		if w.smokes[j] && !w.smokes[i] {
			breakYX++
		}
	}
	n2 := float64(w.n) * float64(w.n)
	return []float64{float64(s), float64(c), float64(len(w.friends)), float64(w.n - sNotC), n2 - float64(breakXY), n2 - float64(breakYX)}
}

// db writes the world as a closed-world database.
func (w *world) db(m *mln.MLN) *mln.DB {
	db := mln.NewDB(m)
	name := func(i int64) string { return "P" + strconv.FormatInt(i, 10) }
	for i := int64(0); i < w.n; i++ {
		fail(db.AddAtom("Smokes", []string{name(i)}, truth(w.smokes[i])))
		fail(db.AddAtom("Cancer", []string{name(i)}, truth(w.cancer[i])))
	}
	for _, e := range w.friends {
		fail(db.AddAtom("Friends", []string{name(e / w.n), name(e % w.n)}, mln.True))
	}
	return db
}

func truth(b bool) mln.Truth {
	if b {
		return mln.True
	}
	return mln.False
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "scaling:", err)
		os.Exit(1)
	}
}
