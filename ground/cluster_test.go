package ground

import (
	"context"
	"math"
	"testing"
)

// EvidenceClusters puts atoms of one predicate together exactly when
// their constants have the same evidence (in buckets) and keeps the
// constants the MLN names apart (Smokes and Friends are closed-world
// here: the Cancer atoms are the variables).
func TestEvidenceClusters(t *testing.T) {
	m := parse(t, `
Smokes(person)
Cancer(person)
Friends(person, person)
1.5 Smokes(x) => Cancer(x)
1.1 Friends(x, y) ^ Smokes(x) => Smokes(y)
0.7 Cancer(Zed)
`)
	db := readDB(t, m, `
Smokes(A)
Smokes(B)
Friends(A, C)
Friends(B, C)
Friends(B, D)
Friends(B, E)
Friends(D, Zed)
!Smokes(Zed)
Friends(D, F)
!Smokes(F)
`)
	gr, err := Ground(context.Background(), m, db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	class := func(cl []int32, name string) int32 {
		for v := 0; v < gr.NumAtoms; v++ {
			if gr.AtomName(int32(v)) == name {
				return cl[v]
			}
		}
		t.Fatalf("no variable %s", name)
		return 0
	}
	exact := gr.EvidenceClusters(0)
	kinds := gr.EvidenceClusters(math.Inf(1))
	for _, c := range []struct {
		a, b         string
		exact, kinds bool
	}{
		// A: smokes, one friend; B: smokes, three friends.
		{"Cancer(A)", "Cancer(B)", false, true},
		// C: befriended twice, E once; both unobserved otherwise.
		{"Cancer(C)", "Cancer(E)", false, true},
		// D befriends Zed and is befriended: not E's evidence.
		{"Cancer(D)", "Cancer(E)", false, false},
		// F has Zed's evidence, but Zed is named in the MLN.
		{"Cancer(Zed)", "Cancer(F)", false, false},
	} {
		if (class(exact, c.a) == class(exact, c.b)) != c.exact {
			t.Errorf("counts: %s and %s together: want %v", c.a, c.b, c.exact)
		}
		if (class(kinds, c.a) == class(kinds, c.b)) != c.kinds {
			t.Errorf("kinds: %s and %s together: want %v", c.a, c.b, c.kinds)
		}
	}
}
