package mlnfile

import "fmt"

// tokKind is the kind of a lexical token. The scanner is shared by the .mln
// parser and the .db reader.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tNewline          // end of a logical line (also a block comment spanning lines)
	tIdent            // identifier: predicate, type, function, variable, constant, v, EXIST…
	tNumber           // -12, 3.5, .5, 1e-3
	tString           // "quoted constant" (text keeps the quotes)
	tLParen           // (
	tRParen           // )
	tLBrace           // {
	tRBrace           // }
	tLBrack           // [
	tRBrack           // ]
	tComma            // ,
	tNot              // !
	tAnd              // ^
	tImplies          // =>
	tIff              // <=>
	tEq               // =
	tNeq              // !=
	tDot              // .
	tEllipsis         // ...
	tPlus             // +
	tStar             // *
	tQuestion         // ?
	tAt               // @
	tColon            // :
	tInclude          // #include
	tLt               // <
	tGt               // >
	tLe               // <=
	tGe               // >=
	tIf               // :- (LoMRF's definite clauses)
	tSlash            // / (pracmln's weight expressions)
	tMinus            // - not starting a number (pracmln's weight expressions)
	tIllegal          // anything else; text holds the offending input
)

var tokNames = [...]string{
	tEOF:      "end of file",
	tNewline:  "end of line",
	tIdent:    "identifier",
	tNumber:   "number",
	tString:   "string",
	tLParen:   `"("`,
	tRParen:   `")"`,
	tLBrace:   `"{"`,
	tRBrace:   `"}"`,
	tLBrack:   `"["`,
	tRBrack:   `"]"`,
	tComma:    `","`,
	tNot:      `"!"`,
	tAnd:      `"^"`,
	tImplies:  `"=>"`,
	tIff:      `"<=>"`,
	tEq:       `"="`,
	tNeq:      `"!="`,
	tDot:      `"."`,
	tEllipsis: `"..."`,
	tPlus:     `"+"`,
	tStar:     `"*"`,
	tQuestion: `"?"`,
	tAt:       `"@"`,
	tColon:    `":"`,
	tInclude:  `"#include"`,
	tLt:       `"<"`,
	tGt:       `">"`,
	tLe:       `"<="`,
	tGe:       `">="`,
	tIf:       `":-"`,
	tSlash:    `"/"`,
	tMinus:    `"-"`,
	tIllegal:  "illegal character",
}

// String names the kind for messages.
func (k tokKind) String() string {
	if int(k) < len(tokNames) {
		return tokNames[k]
	}
	return fmt.Sprintf("token(%d)", k)
}

// token is one lexical token. off and end are byte offsets into the source;
// line and col give the position of off.
type token struct {
	kind      tokKind
	text      string
	off, end  int
	line, col int
	msg       string // for tIllegal: what is wrong, if more than "unexpected"
}

// describe renders the token for an error message: `"Smokes"`, `end of line`.
func (t token) describe() string {
	switch t.kind {
	case tEOF, tNewline:
		return t.kind.String()
	case tIdent, tNumber, tString, tIllegal:
		return fmt.Sprintf("%q", t.text)
	}
	return t.kind.String()
}
