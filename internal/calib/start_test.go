package calib

import (
	"math/rand/v2"
	"testing"

	"github.com/lifted-dev/lifted/gibbs"
)

// The chains' WalkSAT start (gibbs.Start) on event-calculus theories over 8
// time points: 30 narratives, 20 seeds each, every start finds a world
// (before hard unit factors pinned their variables' states, 25 of the 600
// starts failed, on 8 of the 30 models; at 12 time points 97 of 600 still
// fail, 122 before: long chains of implications are beyond its moves).
func TestStartOnEventCalculus(t *testing.T) {
	ms, err := EventCalculus(41, 8, 30)
	if err != nil {
		t.Fatal(err)
	}
	fail := 0
	for _, m := range ms {
		for s := range 20 {
			x := make([]int32, m.Graph.NumVars())
			if err := gibbs.Start(m.Graph, nil, x, rand.New(rand.NewPCG(uint64(s), 1))); err != nil {
				fail++
				t.Logf("model %d seed %d: %v", m.Index, s, err)
			}
		}
	}
	if fail > 0 {
		t.Errorf("%d of 600 starts found no world", fail)
	}
}
