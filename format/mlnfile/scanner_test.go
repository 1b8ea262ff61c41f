package mlnfile

import (
	"fmt"
	"strings"
	"testing"
)

func scanAll(src string) string {
	s := newScanner([]byte(src))
	var out []string
	for {
		t := s.next()
		switch t.kind {
		case tEOF:
			return strings.Join(out, " ")
		case tNewline:
			out = append(out, fmt.Sprintf("NL@%d:%d", t.line, t.col))
		case tIdent:
			out = append(out, "id:"+t.text)
		case tNumber:
			out = append(out, "num:"+t.text)
		case tString:
			out = append(out, "str:"+t.text)
		case tIllegal:
			out = append(out, "bad:"+t.text)
		default:
			out = append(out, t.text)
		}
	}
}

func TestScanner(t *testing.T) {
	tests := []struct{ src, want string }{
		{"Friends(x, y) => Smokes(x)", "id:Friends ( id:x , id:y ) => id:Smokes ( id:x )"},
		{"a <=> b ^ !c v d", "id:a <=> id:b ^ ! id:c id:v id:d"},
		{"x != y = z", "id:x != id:y = id:z"},
		{"1.5 -2 .5 -.5 1e-3 2.5E+2 3. 4.e1", "num:1.5 num:-2 num:.5 num:-.5 num:1e-3 num:2.5E+2 num:3 . num:4.e1"},
		{"{0,...,9}", "{ num:0 , ... , num:9 }"},
		{"Protein_YLR438c-a x' _y a-", "id:Protein_YLR438c-a id:x' id:_y id:a -"},
		{"a :- b =/= c / 2", "id:a :- id:b =/= id:c / num:2"},
		{`"Carl Smith" "a\"b"`, `str:"Carl Smith" str:"a\"b"`},
		{"P // comment\nQ", "id:P NL@1:13 id:Q"},
		{"P /* one line */ Q", "id:P id:Q"},
		{"P /* two\nlines */ Q", "id:P NL@1:3 id:Q"},
		{"P\r\nQ\rR", "id:P NL@1:2 id:Q NL@2:2 id:R"},
		{"\xEF\xBB\xBFP", "id:P"},
		{"#include \"f.mln\" #domains", `#include str:"f.mln" bad:#domains`},
		{"+x *P ?Q @2 [a] b:c", "+ id:x * id:P ? id:Q @ num:2 [ id:a ] id:b : id:c"},
		{"a < b > c <= d >= e", "id:a < id:b > id:c <= id:d >= id:e"},
		{"a | b || c & d -> e <-> f", "id:a bad:| id:b bad:|| id:c bad:& id:d bad:-> id:e bad:<-> id:f"},
		{"1.2.3 3D 1e", "bad:1.2.3 bad:3D bad:1e"},
		{`"abc`, `bad:"abc`},
		{"/* open", "bad:/*"},
		{"é", "bad:é"},
	}
	for _, tt := range tests {
		if got := scanAll(tt.src); got != tt.want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, tt.want)
		}
	}
	// Positions count bytes from 1.
	s := newScanner([]byte("ab\n  cd"))
	s.next()
	s.next()
	if tok := s.next(); tok.line != 2 || tok.col != 3 || tok.off != 5 || tok.end != 7 {
		t.Errorf("cd at %d:%d [%d,%d)", tok.line, tok.col, tok.off, tok.end)
	}
}
