package fg_test

import (
	"reflect"
	"testing"

	"github.com/lifted-dev/lifted/fg"
)

func TestClauseSigns(t *testing.T) {
	tests := []struct {
		name string
		t    fg.Table
		neg  []bool
		ok   bool
	}{
		{"x1 or not x2", fg.Table{Dims: []int32{2, 2}, Values: []float64{1, 0, 1, 1}}, []bool{false, true}, true},
		{"not x1 or x2", fg.Table{Dims: []int32{2, 2}, Values: []float64{1, 1, 0, 1}}, []bool{true, false}, true},
		{"unit", fg.Table{Dims: []int32{2}, Values: []float64{0, 1}}, []bool{false}, true},
		{"three negated", fg.Table{Dims: []int32{2, 2, 2}, Values: []float64{1, 1, 1, 1, 1, 1, 1, 0}}, []bool{true, true, true}, true},
		{"empty clause", fg.Table{Values: []float64{0}}, []bool{}, true},
		{"negative zero", fg.Table{Dims: []int32{2}, Values: []float64{1, negZero()}}, []bool{true}, true},
		{"constant", fg.Table{Values: []float64{1}}, nil, false},
		{"no zero", fg.Table{Dims: []int32{2, 2}, Values: []float64{1, 1, 1, 1}}, nil, false},
		{"two zeros", fg.Table{Dims: []int32{2, 2}, Values: []float64{0, 0, 1, 1}}, nil, false},
		{"a weight", fg.Table{Dims: []int32{2, 2}, Values: []float64{0, 2, 1, 1}}, nil, false},
		{"a fraction", fg.Table{Dims: []int32{2, 2}, Values: []float64{0.5, 1, 1, 0}}, nil, false},
		{"ternary variable", fg.Table{Dims: []int32{3}, Values: []float64{0, 1, 1}}, nil, false},
	}
	for _, tt := range tests {
		neg, ok := fg.ClauseSigns(&tt.t)
		if ok != tt.ok || !reflect.DeepEqual(neg, tt.neg) {
			t.Errorf("%s: ClauseSigns = %v %v, want %v %v", tt.name, neg, ok, tt.neg, tt.ok)
		}
	}
}

func negZero() float64 {
	z := 0.0
	return -z
}
