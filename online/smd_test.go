package online

import (
	"math"
	"testing"
)

// TestSMDStep checks two SMD updates against Eqs. 15–18 worked out by hand
// for two parameters, with (C + I)⁻¹ from the explicit 2×2 inverse.
func TestSMDStep(t *testing.T) {
	const eta0, lambda, mu, gamma = 0.2, 0.99, 0.1, 0.9
	s := NewSMD([]float64{0.5, -1}, eta0, lambda, mu, gamma)
	g1 := []float64{0.3, -0.6}
	g2 := []float64{-0.2, -0.5}
	s.Step(g1)
	// v0 = 0: gains unchanged, θ1 = θ0 − η0 g1, v1 = −η0 g1 (C⁻¹·0 = 0).
	th := []float64{0.5 - eta0*g1[0], -1 - eta0*g1[1]}
	v := []float64{-eta0 * g1[0], -eta0 * g1[1]}
	s.Step(g2)
	var c [2][2]float64
	for i := range 2 {
		for j := range 2 {
			c[i][j] = gamma*g1[i]*g1[j] + g2[i]*g2[j]
		}
		c[i][i]++ // δ = 1
	}
	det := c[0][0]*c[1][1] - c[0][1]*c[1][0]
	cinv := [2]float64{
		(c[1][1]*v[0] - c[0][1]*v[1]) / det,
		(-c[1][0]*v[0] + c[0][0]*v[1]) / det,
	}
	for i := range 2 {
		eta := eta0 * math.Max(0.5, 1-mu*g2[i]*v[i])
		wantTh := th[i] - eta*g2[i]
		wantV := lambda*v[i] - eta*(g2[i]+lambda*cinv[i])
		if math.Abs(s.Eta[i]-eta) > 1e-15 || math.Abs(s.Theta[i]-wantTh) > 1e-15 || math.Abs(s.V[i]-wantV) > 1e-14 {
			t.Errorf("parameter %d: η %v θ %v v %v, want %v %v %v", i, s.Eta[i], s.Theta[i], s.V[i], eta, wantTh, wantV)
		}
	}
}
