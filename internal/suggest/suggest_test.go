package suggest

import "testing"

func TestFlag(t *testing.T) {
	flags := []string{"method", "max-iter", "max-ground", "samples", "seed", "tries", "max-iter"}
	for name, want := range map[string]string{
		"methd":          "method",
		"max-iterations": "max-iter",
		"sample":         "samples",
		"max":            "", // max-iter or max-ground: no guess
		"zz":             "",
		"tris":           "tries",
	} {
		if got := Flag(name, flags); got != want {
			t.Errorf("Flag(%q) = %q, want %q", name, got, want)
		}
	}
}
