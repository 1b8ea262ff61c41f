package engine

import (
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/lifted-dev/lifted/infer"
)

// The front ends' setting defaults are the methods' own (as numbers), but
// for the tolerance that lifted infer passes to lp and ilp (BP's 1e-8
// against their 1e-6) and lp's symmetry, which the engine chooses: so
// passing a default changes nothing else.
func TestSettingDefaultsAreTheMethods(t *testing.T) {
	same := func(a, b string) bool {
		if a == b {
			return true
		}
		if x, err := strconv.ParseFloat(a, 64); err == nil {
			y, err := strconv.ParseFloat(b, 64)
			return err == nil && x == y
		}
		if x, err := time.ParseDuration(a); err == nil {
			if b == "0" {
				b = "0s"
			}
			y, err := time.ParseDuration(b)
			return err == nil && x == y
		}
		return false
	}
	for _, m := range infer.Methods() {
		for _, p := range m.Props {
			for _, s := range Settings {
				if s.Name != p.Name || s.DefaultText() == "" {
					continue
				}
				// lp and ilp keep their own tol; map-auto reads --time-limit's
				// 0 as its own default (8 s).
				if !same(s.DefaultText(), p.Default) && !(s.Name == "tol" && (m.Name == "lp" || m.Name == "ilp")) &&
					!(s.Name == "time-limit" && m.Name == "map-auto") {
					t.Errorf("--%s: default %s, method %s's %s", s.Name, s.DefaultText(), m.Name, p.Default)
				}
			}
		}
	}
}

func TestSettingProperties(t *testing.T) {
	for _, tc := range []struct {
		mode   Mode
		method string
		given  map[string]string
		want   map[string]string // a subset of the properties, "" for absent
	}{
		{ModeInfer, "lp", nil, map[string]string{"tol": "1e-08", "relaxation": "", "symmetry": "", "time-limit": "0s"}},
		{ModeMAP, "lp", nil, map[string]string{"tol": "", "relaxation": "cycle", "symmetry": "", "time-limit": "0s"}},
		{ModeMAP, "ilp", nil, map[string]string{"tol": ""}},
		{ModeMAP, "lp", map[string]string{"tol": "1e-3", "symmetry": "none"}, map[string]string{"tol": "1e-3", "symmetry": "none"}},
		{ModeMAP, "bp", nil, map[string]string{"tol": "1e-08", "damping": "0", "schedule": "flood", "max-iter": "1000"}},
		{ModeInfer, "gibbs", nil, map[string]string{"samples": "1000", "burn-in": "100", "chains": "0", "tol": "", "noise": ""}},
		{ModeMAP, "maxwalksat", nil, map[string]string{"tries": "1", "max-flips": "100000", "noise": "0.5", "samples": ""}},
		{ModeInfer, "gibbs", map[string]string{"relaxation": "local"}, map[string]string{"relaxation": ""}}, // not infer's: ignored
	} {
		props, err := SettingProperties(tc.mode, tc.method, tc.given)
		if err != nil {
			t.Errorf("%v %s %v: %v", tc.mode, tc.method, tc.given, err)
			continue
		}
		for k, v := range tc.want {
			if got, ok := props[k]; got != v || ok != (v != "") {
				t.Errorf("%v %s %v: %s = %q (set %v), want %q", tc.mode, tc.method, tc.given, k, got, ok, v)
			}
		}
	}
	_, err := SettingProperties(ModeMAP, "lp", map[string]string{"damping": "0.5"})
	var na *NotApplicableError
	var re *RequestError
	if !errors.As(err, &na) || !errors.As(err, &re) || err.Error() != "--damping does not apply to --method lp" {
		t.Errorf("damping for lp: %v", err)
	}
	_, err = SettingProperties(ModeInfer, "nope", nil)
	var um *infer.UnknownMethodError
	if !errors.As(err, &um) || !errors.As(err, &re) {
		t.Errorf("unknown method: %v", err)
	}
}
