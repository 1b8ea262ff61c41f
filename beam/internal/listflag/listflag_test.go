package listflag

import (
	"slices"
	"testing"
)

func TestLists(t *testing.T) {
	var r Repeated
	var c Comma
	for _, v := range []string{"a,b", " c ,, d"} {
		r.Set(v)
		c.Set(v)
	}
	if !slices.Equal(r, []string{"a,b", " c ,, d"}) || !slices.Equal(c, []string{"a", "b", "c", "d"}) || c.String() != "a,b,c,d" {
		t.Fatalf("repeated %q, comma %q", r, c)
	}
}
