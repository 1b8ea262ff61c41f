// Command replicate writes an evidence database whose domain is k copies
// of a dataset's: every constant of the database that the program does not
// name gets a fresh name per replica (C, C_R1, ..., C_R{k-1}), every
// evidence atom is copied into every replica, and each replica r ≥ 1 is
// linked to replica r-1 by -links atoms of the database (chosen by a fixed
// stride) whose first argument is renamed into replica r and the others
// into r-1, so that the result is not k copies of one component.
//
//	go run ./bench/scale/replicate -k 10 -mln prog.mln -db evidence.db > evidence-10.db
//
// Constants are what Alchemy's and Tuffy's formats treat as constants:
// identifiers that start with an upper-case letter or a digit, and quoted
// strings. Lines that are not ground atoms (comments, blank lines) are
// copied once.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"unicode"
)

func main() {
	k := flag.Int("k", 1, "replicas")
	mlnPath := flag.String("mln", "", "the program (its constants are shared by all replicas)")
	dbPath := flag.String("db", "", "the evidence database")
	links := flag.Int("links", 3, "cross-replica atoms per replica r ≥ 1")
	flag.Parse()
	if *k < 1 || *mlnPath == "" || *dbPath == "" {
		fmt.Fprintln(os.Stderr, "usage: replicate -k K -mln PROG.mln -db EVIDENCE.db")
		os.Exit(2)
	}
	prog, err := os.ReadFile(*mlnPath)
	if err != nil {
		fail(err)
	}
	shared := map[string]bool{}
	for _, line := range strings.Split(string(prog), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		for _, t := range tokens(line) {
			if isConstant(t) {
				shared[t] = true
			}
		}
	}
	db, err := os.ReadFile(*dbPath)
	if err != nil {
		fail(err)
	}
	type atom struct {
		neg  string // "!" or ""
		pred string
		args []string
	}
	var atoms []atom
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	defer w.Flush()
	for _, line := range strings.Split(string(db), "\n") {
		s := strings.TrimSpace(line)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if s == "" || strings.HasPrefix(s, "//") || open < 0 || close < open {
			if s != "" {
				fmt.Fprintln(w, s)
			}
			continue
		}
		a := atom{pred: strings.TrimSpace(s[:open])}
		if strings.HasPrefix(a.pred, "!") {
			a.neg, a.pred = "!", strings.TrimSpace(a.pred[1:])
		}
		for _, x := range splitArgs(s[open+1 : close]) {
			a.args = append(a.args, strings.TrimSpace(x))
		}
		atoms = append(atoms, a)
	}
	name := func(c string, r int) string {
		if r == 0 || !isConstant(c) || shared[c] {
			return c
		}
		if strings.HasPrefix(c, "\"") {
			return fmt.Sprintf("%s_R%d\"", strings.TrimSuffix(c, "\""), r)
		}
		return fmt.Sprintf("%s_R%d", c, r)
	}
	write := func(a atom, rOf func(i int) int) {
		w.WriteString(a.neg)
		w.WriteString(a.pred)
		w.WriteByte('(')
		for i, c := range a.args {
			if i > 0 {
				w.WriteString(", ")
			}
			w.WriteString(name(c, rOf(i)))
		}
		w.WriteString(")\n")
	}
	for r := range *k {
		for _, a := range atoms {
			write(a, func(int) int { return r })
		}
	}
	// Links: positive atoms with two or more distinct replicated
	// arguments (not samePerson(P, P)).
	var cand []atom
	for _, a := range atoms {
		seen := map[string]bool{}
		for _, c := range a.args {
			if isConstant(c) && !shared[c] {
				seen[c] = true
			}
		}
		if a.neg == "" && len(seen) >= 2 {
			cand = append(cand, a)
		}
	}
	if len(cand) > 0 {
		step := len(cand)/(*links*max(*k, 1)+1) + 1
		j := 0
		for r := 1; r < *k; r++ {
			for range *links {
				j = (j + step) % len(cand)
				write(cand[j], func(i int) int {
					if i == 0 {
						return r
					}
					return r - 1
				})
			}
		}
	}
}

func isConstant(t string) bool {
	if t == "" {
		return false
	}
	if t[0] == '"' {
		return true
	}
	r := rune(t[0])
	return unicode.IsUpper(r) || unicode.IsDigit(r)
}

// tokens splits a line of the program into identifiers and quoted strings.
func tokens(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				return out
			}
			out = append(out, s[i:i+j+2])
			i += j + 2
		case c == '_' || unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)):
			j := i
			for j < len(s) && (s[j] == '_' || s[j] == '-' || unicode.IsLetter(rune(s[j])) || unicode.IsDigit(rune(s[j]))) {
				j++
			}
			out = append(out, s[i:j])
			i = j
		default:
			i++
		}
	}
	return out
}

// splitArgs splits at the commas outside quotes.
func splitArgs(s string) []string {
	var out []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "replicate:", err)
	os.Exit(1)
}
