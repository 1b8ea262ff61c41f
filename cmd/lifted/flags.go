package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/internal/suggest"
)

// flagError phrases pflag's errors for the command line: an unknown flag
// with the closest flag of the command ("did you mean --method?"), a bad
// value with what the flag takes instead of strconv's text.
func flagError(c *cobra.Command, err error) error {
	var ne *pflag.NotExistError
	var ve *pflag.InvalidValueError
	switch {
	case errors.As(err, &ne) && ne.GetSpecifiedShortnames() != "":
		return usageError{fmt.Errorf("unknown flag -%s in -%s", ne.GetSpecifiedName(), ne.GetSpecifiedShortnames())}
	case errors.As(err, &ne):
		name := ne.GetSpecifiedName()
		msg := fmt.Sprintf("unknown flag --%s for '%s'", name, c.CommandPath())
		if s := closestFlag(c, name); s != "" {
			msg += fmt.Sprintf(" (did you mean --%s?)", s)
		}
		return usageError{errors.New(msg)}
	case errors.As(err, &ve):
		f := ve.GetFlag()
		return usageError{fmt.Errorf("--%s %q: %s", f.Name, ve.GetValue(), wantOf(f, ve.Unwrap()))}
	}
	return usageError{err}
}

// closestFlag is the flag of c (its own or inherited) nearest to name, or
// "".
func closestFlag(c *cobra.Command, name string) string {
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	c.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return suggest.Flag(name, names)
}

// wantOf says what a flag's value must be, from its type; cause is the
// flag's own message where the type is one of ours.
func wantOf(f *pflag.Flag, cause error) string {
	out := ""
	if errors.Is(cause, strconv.ErrRange) {
		out = "out of range; "
	}
	switch f.Value.Type() {
	case "int", "int64", "int32":
		return out + "want a whole number, e.g. --" + f.Name + " " + example(f)
	case "uint", "uint64", "uint32":
		return out + "want a non-negative whole number, e.g. --" + f.Name + " " + example(f)
	case "float64", "float32":
		return out + "want a number, e.g. --" + f.Name + " " + example(f)
	case "duration":
		return "want a duration with its unit, e.g. 30s, 1.5m or 2h"
	case "bool":
		return "want true or false"
	case "stringSlice", "stringArray", "string":
		return cause.Error()
	}
	if cause == nil {
		return "invalid value"
	}
	msg := cause.Error()
	if i := strings.LastIndex(msg, ": "); strings.HasPrefix(msg, "strconv.") && i >= 0 {
		msg = "invalid value (" + msg[i+2:] + ")"
	}
	return msg
}

// example is the flag's default as an example value, or 1.
func example(f *pflag.Flag) string {
	if f.DefValue != "" && f.DefValue != "0" && !strings.HasPrefix(f.DefValue, "-") {
		return f.DefValue
	}
	return "1"
}

// finiteFlags refuses NaN and ±Inf in every numeric flag the user gave
// (pflag's float parser accepts them: "--tol NaN" would compare false
// with everything, "--prior-stddev Inf" would silence the prior).
func finiteFlags(c *cobra.Command) error {
	var err error
	c.Flags().Visit(func(f *pflag.Flag) {
		if err != nil {
			return
		}
		var vals []string
		switch f.Value.Type() {
		case "float64", "float32", "float":
			vals = []string{f.Value.String()}
		case "float64Slice", "float32Slice":
			vals = strings.Split(strings.Trim(f.Value.String(), "[]"), ",")
		}
		for _, s := range vals {
			if v, e := strconv.ParseFloat(strings.TrimSpace(s), 64); e == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
				err = usageError{fmt.Errorf("--%s %s: want a finite number", f.Name, strings.TrimSpace(s))}
				return
			}
		}
	})
	return err
}

// helpPath is the command whose help a usage error points at: the
// subcommand args call ("lifted infer"), or "lifted".
func helpPath(root *cobra.Command, args []string) string {
	if c, _, err := root.Find(args); err == nil && c != nil && c != root {
		return c.CommandPath()
	}
	for _, c := range root.Commands() {
		if len(args) > 0 && (c.Name() == args[0] || c.HasAlias(args[0])) {
			return c.CommandPath()
		}
	}
	return root.Name()
}

// maxMemory is --max-memory (0: memlimit's default).
var maxMemory sizeFlag

// sizeFlag is a size in bytes written with a unit (memlimit.ParseBudget).
type sizeFlag int64

func (s *sizeFlag) String() string {
	if *s == 0 {
		return ""
	}
	return memlimit.Bytes(float64(*s))
}

func (s *sizeFlag) Set(v string) error {
	n, err := memlimit.ParseBudget(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

func (s *sizeFlag) Type() string { return "size" }
