// Package listflag holds the list flags of the beam module's commands.
package listflag

import "strings"

// Repeated collects the values of a repeated flag as given.
type Repeated []string

func (l *Repeated) String() string     { return strings.Join(*l, ",") }
func (l *Repeated) Set(s string) error { *l = append(*l, s); return nil }

// Comma collects the values of a repeated flag whose values may also be
// comma-separated lists (blank items dropped).
type Comma []string

func (l *Comma) String() string { return strings.Join(*l, ",") }
func (l *Comma) Set(s string) error {
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			*l = append(*l, x)
		}
	}
	return nil
}
