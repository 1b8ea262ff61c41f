package wfomc

import (
	"math"
	"math/rand/v2"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// FuzzCompile feeds arbitrary MLN text to the engine. It must never panic,
// and whatever it evaluates without error on a domain small enough to
// enumerate must equal brute force (log Z, expected counts).
func FuzzCompile(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 40 {
		src, _ := randomMLN(r)
		f.Add(src)
	}
	f.Add("person = {A, B, C}\nSmokes(person)\nFriends(person, person)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n")
	f.Add("t = {A, B}\nP(t)\nR(t, t)\nEXIST y R(x, y).\n0.5 R(x, y) => R(y, x)\n")
	f.Add("t = {A, B}\nP(t)\nR(t, t)\n0.3 R(x, y) ^ R(y, z) => R(x, z)\n")
	f.Add(cellBlowUp)
	f.Fuzz(func(t *testing.T, src string) {
		m, err := mlnfile.Parse("fuzz.mln", []byte(src))
		if err != nil || len(m.Formulas) == 0 || len(m.Formulas) > 6 {
			return
		}
		for _, ty := range m.Types {
			if len(ty.Constants) > 4 {
				return // keep brute force tiny
			}
		}
		weights := weightsOf(m)
		for j, w := range weights {
			if math.IsNaN(w) || math.Abs(w) > 20 || !m.Formulas[j].Hard && !m.Formulas[j].HasWeight {
				return
			}
		}
		w := newBruteWorld(m, nil)
		if len(w.atoms) > 12 {
			return
		}
		// A small pair budget keeps every input fast (minimizing an input
		// runs it thousands of times); a refusal falls back to grounding.
		mod, err := Compile(m, &Options{AllowGround: true, MaxGroundAtoms: 12, MaxCellPairs: 1 << 16})
		if err != nil {
			return // refusing is allowed; panicking is not
		}
		got, err := mod.Evaluate(weights, nil)
		want := brute(m, weights, nil, nil, nil, nil)
		if err != nil {
			return
		}
		if math.IsInf(want.logZ, -1) || math.IsNaN(want.logZ) {
			if !math.IsInf(got.LogZ, -1) {
				t.Fatalf("no world satisfies the hard formulas, but log Z = %v\n%s", got.LogZ, m)
			}
			return
		}
		const tol = 1e-9
		if !near(got.LogZ, want.logZ, tol) {
			t.Fatalf("log Z = %.15g, brute force %.15g\n%s", got.LogZ, want.logZ, m)
		}
		for j := range want.counts {
			if !near(got.ExpectedCounts[j], want.counts[j], tol) {
				t.Fatalf("E[n_%d] = %.15g, brute force %.15g\n%s", j+1, got.ExpectedCounts[j], want.counts[j], m)
			}
		}
	})
}
