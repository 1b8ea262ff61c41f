package engine

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestNamedResolve checks the one rule by which the command's flags and
// the Python package's keywords become a Request: defaults per mode, the
// settings' defaults passed only to methods that have them, --prop, and
// each refusal with its message and as a *RequestError (a usage error).
func TestNamedResolve(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      Named
		query  []string
		method string
		task   Task
		props  map[string]string // some of the properties expected
		absent []string          // properties that must not be passed
		err    string
	}{
		{name: "infer default", n: Named{}, method: DefaultMethod, task: Marginals},
		{name: "map default", n: Named{Mode: ModeMAP}, method: DefaultMAPMethod, task: MAP},
		{name: "max-product", n: Named{Method: "lbp", MaxProduct: true}, method: "lbp", task: MAP},
		{name: "setting defaults", n: Named{Method: "lbp"}, method: "lbp", task: Marginals,
			props: map[string]string{"tol": "1e-08", "max-iter": "1000"}, absent: []string{"samples"}},
		{name: "bgibbs keeps its junction-tree blocks", n: Named{Method: "bgibbs"}, method: "bgibbs", task: Marginals,
			props: map[string]string{"samples": "1000"}, absent: []string{"block-size", "block-states"}},
		{name: "bgibbs block bounds given", n: Named{Method: "bgibbs", Given: map[string]string{"block-size": "4"}}, method: "bgibbs", task: Marginals,
			props: map[string]string{"block-size": "4"}, absent: []string{"block-states"}},
		{name: "mcsat keeps the block defaults", n: Named{Method: "mcsat"}, method: "mcsat", task: Marginals,
			props: map[string]string{"block-size": "8"}},
		{name: "map leaves lp its tolerance", n: Named{Mode: ModeMAP, Method: "lp"}, method: "lp", task: MAP, absent: []string{"tol"}},
		{name: "a setting given", n: Named{Method: "gibbs", Given: map[string]string{"samples": "50"}}, method: "gibbs", task: Marginals,
			props: map[string]string{"samples": "50"}},
		{name: "--prop overrides", n: Named{Method: "gibbs", Given: map[string]string{"samples": "50"}, Props: map[string]string{"samples": "60"}},
			method: "gibbs", task: Marginals, props: map[string]string{"samples": "60"}},
		{name: "dynamic defaults to lbp and fb", n: Named{Dynamic: &Dynamic{Horizon: -1}}, query: []string{"Rain"}, method: "lbp", task: Marginals},
		{name: "unknown method", n: Named{Method: "gibs"}, err: `unknown --method "gibs"`},
		{name: "setting not applicable", n: Named{Method: "gibbs", Given: map[string]string{"damping": "0.5"}}, err: "--damping does not apply to --method gibbs"},
		{name: "unknown flag", n: Named{Given: map[string]string{"sampels": "5"}}, err: "unknown flag --sampels for 'lifted infer' (did you mean --samples?)"},
		{name: "another method's property", n: Named{Method: "lp", Mode: ModeMAP, Given: map[string]string{"bp-check": "0"}}, err: "--bp-check does not apply to --method lp"},
		{name: "--prop not a property", n: Named{Method: "bp", Props: map[string]string{"samples": "5"}}, err: "--prop samples=5: --method bp has no property \"samples\""},
		{name: "task", n: Named{Method: "maxwalksat"}, err: "--method maxwalksat does not answer marginals queries (it answers MAP queries: add --max-product)"},
		{name: "map task", n: Named{Mode: ModeMAP, Method: "gibbs"}, err: "--method gibbs does not answer map queries"},
		{name: "dynamic MAP", n: Named{MaxProduct: true, Dynamic: &Dynamic{}}, query: []string{"Rain"}, err: "--max-product does not apply to --dynamic"},
		{name: "dynamic schedule", n: Named{Given: map[string]string{"schedule": "seq"}, Dynamic: &Dynamic{}}, query: []string{"Rain"}, err: "--schedule does not apply to --dynamic"},
		{name: "dynamic protocol", n: Named{Method: "gibbs", Dynamic: &Dynamic{Protocol: "fb"}}, query: []string{"Rain"}, err: "--protocol applies to --method lbp and bp only"},
		{name: "dynamic bad protocol", n: Named{Dynamic: &Dynamic{Protocol: "fw"}}, query: []string{"Rain"}, err: `unknown --protocol "fw"`},
		{name: "dynamic filter and smooth", n: Named{Dynamic: &Dynamic{Filter: true, Smooth: true}}, query: []string{"Rain"}, err: "--filter and --smooth exclude each other"},
		{name: "dynamic without query", n: Named{Dynamic: &Dynamic{}}, err: "--dynamic needs query fluents"},
		{name: "dynamic map", n: Named{Mode: ModeMAP, Dynamic: &Dynamic{}}, query: []string{"Rain"}, err: "map has no dynamic runs"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := Request{Query: c.query}
			err := c.n.Resolve(&req)
			if c.err != "" {
				var re *RequestError
				if err == nil || !errors.As(err, &re) || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want a *RequestError containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if req.Method != c.method || req.Task != c.task {
				t.Fatalf("method %q task %v, want %q %v", req.Method, req.Task, c.method, c.task)
			}
			for k, v := range c.props {
				if req.Properties[k] != v {
					t.Errorf("property %s = %q, want %q", k, req.Properties[k], v)
				}
			}
			for _, k := range c.absent {
				if _, ok := req.Properties[k]; ok {
					t.Errorf("property %s passed, want none", k)
				}
			}
			if c.n.Dynamic != nil && (req.Dynamic == nil || req.Dynamic.Protocol != "fb") {
				t.Errorf("dynamic %+v, want protocol fb", req.Dynamic)
			}
		})
	}
}

// TestCheckLearnOptions: every option of LearnOptionGroups (the groups of
// learn's help) is taken by the learners of its group and refused, naming
// them, by every other learner; options in no group apply to all.
func TestCheckLearnOptions(t *testing.T) {
	for _, g := range LearnOptionGroups {
		for _, o := range g.Options {
			for _, m := range LearnMethods {
				err := CheckLearnOptions(m, []string{"input", o})
				var re *RequestError
				switch in := slices.Contains(g.Methods, m); {
				case in && err != nil:
					t.Errorf("--%s with %s: %v", o, m, err)
				case !in && (!errors.As(err, &re) || !strings.Contains(err.Error(), "--"+o+" applies to --method ")):
					t.Errorf("--%s with %s: %v, want a refusal", o, m, err)
				}
			}
		}
	}
	if err := CheckLearnOptions("lwll", nil); err == nil || !strings.Contains(err.Error(), `unknown --method "lwll"`) {
		t.Errorf("unknown learner: %v", err)
	}
}
