package mlnfile

import (
	"strconv"
	"strings"
	"testing"
)

// A formula nested deeper than MaxDepth is an error at the token that
// passes the limit, whatever the nesting is made of; at the limit it
// parses.
func TestDepthLimit(t *testing.T) {
	const n = 100000
	col := len("1 ") + MaxDepth + 1 // the first token past the limit
	for name, src := range map[string]string{
		"parentheses": "P\n1 " + strings.Repeat("(", n) + "P" + strings.Repeat(")", n) + "\n",
		"negations":   "P\n1 " + strings.Repeat("!", n) + "P\n",
		"quantifiers": "t={A}\nP(t)\n1 " + strings.Repeat("EXIST x ", n) + "P(x)\n",
	} {
		_, err := Parse("deep.mln", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "nested more than") {
			t.Errorf("%s: err = %v, want the nesting limit", name, err)
			continue
		}
		if name != "quantifiers" && !strings.Contains(err.Error(), "deep.mln:2:"+strconv.Itoa(col)+":") {
			t.Errorf("%s: %v: want the position 2:%d", name, err, col)
		}
	}
	at := "P\n1 " + strings.Repeat("!", MaxDepth-1) + "P\n"
	if _, err := Parse("ok.mln", []byte(at)); err != nil {
		t.Errorf("%d negations: %v", MaxDepth-1, err)
	}
}
