// Package tok is the tokenizer and number formatter shared by the text
// readers and writers under format (UAI and libDAI): a Scanner that splits
// input into whitespace-separated tokens with '#' comments, tracks the
// position of every token for error messages, and parses integers and
// decimal numbers cheaply; and a Writer that formats tokens and
// numbers (shortest round-tripping form) onto a buffered writer.
package tok
