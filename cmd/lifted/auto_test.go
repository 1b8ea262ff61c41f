package main

import (
	"encoding/json"
	"strings"
	"testing"
)

const tutorialDir = "../../examples/mln/tutorial/"

// The default method is auto: exact by wfomc where it lifts the model, with
// the choice on stderr and in stats.method.
func TestInferAutoExact(t *testing.T) {
	out, stderr, code := run(t, "infer", tutorialDir+"binomial.mln", "-q", "Heads")
	if code != 0 || !strings.HasPrefix(out, "Heads(1) 0.731059\n") || !strings.HasPrefix(stderr, "lifted: method wfomc: exact: ") {
		t.Fatalf("exit %d, stdout %.40q, stderr %q", code, out, stderr)
	}
	out, stderr, code = run(t, "infer", "--quiet", "--output-format", "json", tutorialDir+"binomial.mln", "-q", "Heads")
	var r struct {
		Marginals map[string]float64
		LogZ      float64 `json:"log_z"`
		Stats     map[string]any
	}
	if code != 0 || stderr != "" || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("exit %d, stdout %.80q, stderr %q", code, out, stderr)
	}
	// log Z = 20·log(1+e), exactly.
	if r.Stats["method"] != "wfomc" || r.Stats["method_reason"] == "" || r.Stats["converged"] != true ||
		len(r.Marginals) != 20 || abs(r.LogZ-20*1.3132616875182228) > 1e-9 {
		t.Fatalf("%.300s", out)
	}
	// --method wfomc names it; on a factor graph, or for MAP, it refuses.
	if out, _, code = run(t, "infer", "--method", "wfomc", tutorialDir+"uniform.mln", "-q", "Heads"); code != 0 || !strings.HasPrefix(out, "Heads(1) 0.5\n") {
		t.Fatalf("--method wfomc: exit %d, %.40q", code, out)
	}
	if _, stderr, code = run(t, "infer", "--method", "wfomc", smokers); code != 1 || !strings.Contains(stderr, "first-order model") {
		t.Fatalf("--method wfomc on a .uai: exit %d, %q", code, stderr)
	}
	if _, stderr, code = run(t, "infer", "--method", "wfomc", "--max-product", tutorialDir+"uniform.mln", "-q", "Heads"); code != 1 || !strings.Contains(stderr, "does not answer map") {
		t.Fatalf("--method wfomc --max-product: exit %d, %q", code, stderr)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// The multinomial model makes undamped flooding BP oscillate. The command
// either converges by a fallback (and says so) or fails with exit status 3;
// it never prints a non-converged marginal as if it had converged.
func TestInferNeverPrintsUnconverged(t *testing.T) {
	model := tutorialDir + "multinomial.mln"
	out, stderr, code := run(t, "infer", "--method", "lbp", model, "-q", "Outcome")
	switch code {
	case 0:
		if !strings.Contains(stderr, "converged with damping=") || strings.Contains(out, "Outcome(1,1) 1\n") {
			t.Fatalf("stdout %.60q, stderr %q", out, stderr)
		}
	case exitNotConverged:
		if out != "" {
			t.Fatalf("exit 3 with output %.60q", out)
		}
	default:
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Too few iterations for any fallback: exit 3, nothing printed.
	out, stderr, code = run(t, "infer", "--method", "lbp", "--max-iter", "3", model, "-q", "Outcome")
	if code != exitNotConverged || out != "" || !strings.Contains(stderr, "BP did not converge") || !strings.Contains(stderr, "--allow-unconverged") {
		t.Fatalf("exit %d, stdout %.60q, stderr %q", code, out, stderr)
	}
	// --allow-unconverged prints it, marked in every format.
	out, stderr, code = run(t, "infer", "--method", "lbp", "--max-iter", "3", "--allow-unconverged", "--quiet", model, "-q", "Outcome")
	if code != 0 || !strings.HasPrefix(out, "// NOT CONVERGED") || !strings.Contains(stderr, "NOT CONVERGED") {
		t.Fatalf("alchemy: exit %d, stdout %.60q, stderr %q", code, out, stderr)
	}
	out, _, code = run(t, "infer", "--method", "lbp", "--max-iter", "3", "--allow-unconverged", "--output-format", "json", model, "-q", "Outcome")
	if code != 0 || !strings.Contains(out, `"converged":false`) {
		t.Fatalf("json: exit %d, stdout %.300q", code, out)
	}
	_, stderr, code = run(t, "infer", "--method", "lbp", "--max-iter", "2", "--allow-unconverged", "--quiet", "testdata/tiny.cnf")
	if code != 0 || !strings.Contains(stderr, "NOT CONVERGED") {
		t.Fatalf("mar: exit %d, stderr %q", code, stderr)
	}
}
