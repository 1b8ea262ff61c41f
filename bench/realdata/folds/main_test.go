package main

import (
	"math"
	"testing"
)

// TestMetricsByHand checks cll and aucPR against values worked out by hand.
func TestMetricsByHand(t *testing.T) {
	p := []float64{0.9, 0.8, 0.3, 0.2, 0.00001}
	y := []bool{true, false, true, false, true}
	// CLL: mean of log 0.9, log 0.2, log 0.3, log 0.8, log 1e-4 (clipped)
	want := (math.Log(0.9) + math.Log(0.2) + math.Log(0.3) + math.Log(0.8) + math.Log(1e-4)) / 5
	if got := cll(p, y); math.Abs(got-want) > 1e-12 {
		t.Errorf("cll = %v, want %v", got, want)
	}
	// ranking 0.9(T) 0.8(F) 0.3(T) 0.2(F) 1e-5(T): precision at the true
	// ones 1/1, 2/3, 3/5; average precision (1 + 2/3 + 3/5)/3
	wantAP := (1 + 2.0/3 + 3.0/5) / 3
	if got := aucPR(p, y); math.Abs(got-wantAP) > 1e-12 {
		t.Errorf("aucPR = %v, want %v", got, wantAP)
	}
	// ties are broken against the true atoms: all 1/2 with 1 true of 4
	// ranks it last, precision 1/4
	if got := aucPR([]float64{0.5, 0.5, 0.5, 0.5}, []bool{false, true, false, false}); math.Abs(got-0.25) > 1e-12 {
		t.Errorf("aucPR with ties = %v, want 0.25", got)
	}
	if got := cll([]float64{0.5, 0.5}, []bool{true, false}); math.Abs(got-math.Log(0.5)) > 1e-12 {
		t.Errorf("cll at 1/2 = %v, want log 1/2", got)
	}
	if !math.IsNaN(aucPR([]float64{0.1}, []bool{false})) {
		t.Error("aucPR with no true atom should be NaN")
	}
}
