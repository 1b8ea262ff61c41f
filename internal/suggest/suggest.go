// Package suggest finds the name a misspelt one was probably meant to be,
// for "did you mean …?" hints in error messages.
package suggest

import "strings"

// Closest returns the candidate closest to name (by edit distance, ignoring
// case), or "" if none is close.
func Closest(name string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if c == name {
			continue
		}
		d := editDistance(strings.ToLower(name), strings.ToLower(c))
		if strings.EqualFold(c, name) {
			d = 0
		}
		limit := 1 + len(name)/4
		if d <= limit && d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// Hint is " (did you mean NAME?)" for the candidate Closest to name, or
// "": the end of an "unknown …" message.
func Hint(name string, candidates []string) string {
	if s := Closest(name, candidates); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}

// Flag returns the flag name (without dashes) that the unknown name was
// probably meant to be: the closest by edit distance, else the one flag
// that name is a prefix or an extension of (max-iterations: max-iter),
// or "".
func Flag(name string, flags []string) string {
	if s := Closest(name, flags); s != "" {
		return s
	}
	found := ""
	for _, n := range flags {
		if len(name) >= 3 && n != name && (strings.HasPrefix(n, name) || strings.HasPrefix(name, n)) {
			if found != "" && found != n {
				return "" // two flags: no guess
			}
			found = n
		}
	}
	return found
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
