// Package doctest holds the test that runs every command shown in README.md
// and docs/*.md and compares what the program prints with the text shown.
//
// What is checked: in a ```sh block, each line that starts with `lifted ` or
// `go run ./cmd/lifted ` is a command (a trailing `\` continues it); the lines
// after it that start with `#   ` (or are `#` alone) are its output, and a
// plain ``` block right after the sh block is the output of the block's last
// command. In any other fenced block a line starting with `$ lifted ` is a
// command and the lines up to the next `$ ` line are its output. `cd DIR` and
// `NAME=VALUE` lines of a block apply to the commands after them.
//
// The output shown must be what the program prints, stdout and stderr
// interleaved, line by line, except that a line `…` stands for any number of
// lines, `…` inside a line for any text, and times ("0.331 s", "12 ms",
// "seconds": 0.5 in JSON) may differ. A command shown without output must
// exit with status 0. The commands run with the repository's examples/ copied
// into a temporary directory (so files they write go there) and ../shared
// beside it; a command naming ../shared is skipped, counted, when the shared
// data is absent. An HTML comment <!-- no-test --> on the line before a block
// exempts the block (placeholders such as model.uai, or runs of minutes).
package doctest
