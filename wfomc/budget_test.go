package wfomc

import (
	"errors"
	"strings"
	"testing"

	mlnfile "github.com/lifted-dev/lifted/format/mlnfile"
)

// cellBlowUp is a model found by FuzzCompile on which atom counting's
// candidates gave the cell algorithm 2917 cells per case on a domain of
// two elements: before the pair budget it had not finished after minutes
// (4.3·10^6 pair weights and a 68 MB pair table per case, up to 2^9
// cases).
const cellBlowUp = "t = {A}\nP(t)\nR(t, tA)\n-0.850 (!R(x,A) v !(x = A)) v P(1)\n-1.314 EXIST y (R(x,A) ^ R(y,o)) "

// TestCellPairBudget: the blow-up is refused by its predicted size, with
// the size in the message, and the ground fallback then answers it as
// brute force does.
func TestCellPairBudget(t *testing.T) {
	m, err := mlnfile.Parse("blowup.mln", []byte(cellBlowUp))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Compile(m, &Options{})
	var pe *pairsError
	if !errors.As(err, &pe) || pe.pairs <= DefaultMaxCellPairs {
		t.Fatalf("lifted only: want the pair budget's refusal, got %v", err)
	}
	for _, s := range []string{"pair weights", "cells in one case", "--allow-ground"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("message lacks %q: %v", s, err)
		}
	}
	mod, err := Compile(m, &Options{AllowGround: true, MaxGroundAtoms: 12})
	if err != nil {
		t.Fatalf("with ground computation allowed: %v", err)
	}
	weights := weightsOf(m)
	got, err := mod.Evaluate(weights, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := brute(m, weights, nil, nil, nil, nil)
	if !near(got.LogZ, want.logZ, 1e-9) {
		t.Fatalf("log Z = %.15g, brute force %.15g", got.LogZ, want.logZ)
	}
	for j := range want.counts {
		if !near(got.ExpectedCounts[j], want.counts[j], 1e-9) {
			t.Fatalf("E[n_%d] = %.15g, brute force %.15g", j+1, got.ExpectedCounts[j], want.counts[j])
		}
	}

	// Options.MaxCellPairs sets the limit: friends and smokers compiles
	// by the default and is refused by a limit of one pair.
	fs, err := mlnfile.Parse("fs.mln", []byte("person = {A, B, C}\nSmokes(person)\nFriends(person, person)\n1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(fs, &Options{}); err != nil {
		t.Fatalf("friends and smokers: %v", err)
	}
	_, err = Compile(fs, &Options{MaxCellPairs: 1})
	if !errors.As(err, &pe) || pe.limit != 1 || !strings.Contains(err.Error(), "more than the 1 allowed in one model (Options.MaxCellPairs, --max-cell-pairs") {
		t.Fatalf("friends and smokers with MaxCellPairs 1: %v", err)
	}
}
