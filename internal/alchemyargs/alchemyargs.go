// Package alchemyargs reads Alchemy's and Tuffy's command lines: "lifted
// infer" and "lifted learn" (alias "learnwts") accept their spellings as
// well as lifted's own, rewritten into lifted's flags before the command
// line is parsed (Rewrite). The table is in the README ("Alchemy and
// Tuffy"); a spelling that is neither lifted's nor in the table is an
// error.
package alchemyargs

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/infer"
)

// UsageError is a command line that cannot be read.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Help is the paragraph on the Alchemy and Tuffy spellings for the help of
// infer and learn.
var Help = map[string]string{
	"infer": `Alchemy's and Tuffy's spellings work too (see the README's table "Alchemy
and Tuffy"): -i MODEL, -e A.db,B.db, -r FILE, -q, -f or -queryFile FILE, -cw,
-ow, -bp (ground BP), -lifted [-useHC] (lifted BP), -m or -a with -bp or
-lifted (MAP by max-product BP), -maxSteps N (--max-iter), -convergenceThresh T
(--tol); -ms (MC-SAT) and -gibbs with -maxSteps, -numChains, -burnMaxSteps,
-seed (--samples, --chains, --burn-in, --seed; ignored by BP with a warning);
-m or -a alone (MAP by MaxWalkSAT: --method maxwalksat --max-product) with
-tries, -mwsMaxSteps, Tuffy's -maxTries and -maxFlips (--tries, --max-flips)
and -seed. A link to lifted named infer runs as "lifted infer".`,
	"learn": `Alchemy's learnwts spellings work too ("lifted learnwts", or a link to lifted
named learnwts): -g (--method pll), -d (--method scg), -i, -o, -t, -ne,
-gMaxIter and -dNumIter (--max-iter), -priorMean, -priorStdDev, -noPrior
(--prior-stddev -1), -seed, -multipleDatabases (lwl and pll always learn
from each -t database as its own example).`,
}

// Alchemy's and Tuffy's command lines: "lifted infer" and "lifted learn"
// (alias "learnwts") accept their spellings as well as ours. They write long
// flags with one dash (-ow, -maxSteps), which pflag would read as clusters
// of one-letter flags, so the arguments are rewritten into ours before
// cobra parses them (alchemyArgs). The table is in the README ("Alchemy and
// Tuffy"); a spelling that is neither ours nor in the table is an error.

// alchemyFlag is one Alchemy or Tuffy spelling and what it becomes.
type alchemyFlag struct {
	cmd   string // "infer", "learn", or "" for both
	value bool   // takes a value (the next argument)
	// to is our flag (with dashes) that gets the value, or that stands
	// for a flag without a value.
	to string
	// method is the inference method the flag asks for: a name of the
	// infer registry, or "max-product" (MAP: -m, -a).
	method string
	// what the method is called, and the issue that builds it, for the
	// error when it is not registered.
	what, issue string
	// ours: the flag of ours that takes the value under a method other
	// than BP, where the command has it (a sampler's property); ignored:
	// otherwise the flag is accepted and ignored, with this warning
	// (sampler and MaxWalkSAT settings under BP).
	ours, ignored string
	// no: Alchemy's or Tuffy's flag that lifted does not have, with why.
	no string
}

// sampling is the warning for the settings of samplers under BP.
const sampling = "applies to sampling (MC-SAT, Gibbs), which BP does not do; ignored"

var alchemyFlags = map[string]alchemyFlag{
	// Input and output.
	"i":           {cmd: "infer", value: true, to: "MODEL"},
	"mln":         {cmd: "infer", value: true, to: "MODEL"}, // Tuffy
	"e":           {cmd: "infer", value: true, to: "-e"},    // comma-separated lists too
	"evidence":    {cmd: "infer", value: true, to: "-e"},    // Tuffy
	"r":           {cmd: "infer", value: true, to: "-r"},
	"result":      {cmd: "infer", value: true, to: "-r"}, // Tuffy
	"q":           {cmd: "infer", value: true, to: "-q"},
	"query":       {cmd: "infer", value: true, to: "-q"},           // Tuffy
	"f":           {cmd: "infer", value: true, to: "--query-file"}, // Alchemy's query file
	"queryFile":   {cmd: "infer", value: true, to: "--query-file"}, // Tuffy
	"cw":          {cmd: "infer", value: true, to: "--cw"},
	"closedWorld": {cmd: "infer", value: true, to: "--cw"}, // Tuffy
	"ow":          {cmd: "infer", value: true, to: "--ow"},

	// Inference methods.
	"bp":       {cmd: "infer", method: "bp"},
	"lifted":   {cmd: "infer", method: "lbp"},
	"useHC":    {cmd: "infer", to: ""}, // hypercubes: colour passing needs no representation choice
	"useCT":    {cmd: "infer", to: ""},
	"ms":       {cmd: "infer", method: "mcsat", what: "MC-SAT", issue: "11"},
	"mcsat":    {cmd: "infer", method: "mcsat", what: "MC-SAT", issue: "11"}, // Tuffy
	"marginal": {cmd: "infer", to: ""},                                       // Tuffy: marginals, our default
	"gibbs":    {cmd: "infer", method: "gibbs", what: "Gibbs sampling", issue: "11"},
	"p":        {cmd: "infer", method: "gibbs", what: "Gibbs sampling", issue: "11"},
	"m":        {cmd: "infer", method: "max-product"},
	"a":        {cmd: "infer", method: "max-product"},
	"simtp":    {cmd: "infer", no: "simulated tempering is not built"},
	"efbp":     {cmd: "infer", no: "expanding frontier BP is not built; use -bp or -lifted"},
	"decision": {cmd: "infer", no: "decision-theoretic inference is not built"},
	"mle":      {cmd: "infer", no: "Tuffy's MLE sampler is not built; use -bp or -lifted"},
	"dual":     {cmd: "infer", no: "Tuffy's MAP-and-marginals run is not built; run -m -bp and -bp"},
	"learnwt":  {cmd: "infer", no: "learning is 'lifted learn' (alias learnwts): lifted learnwts -d -i prog.mln -t evidence.db -ne P -o out.mln"},

	// Settings.
	"maxSteps":          {cmd: "infer", value: true, to: "--max-iter", ours: "--samples"}, // BP: its iteration limit, as in Alchemy's BP
	"convergenceThresh": {cmd: "infer", value: true, to: "--tol"},
	"numChains":         {cmd: "infer", value: true, ours: "--chains", ignored: sampling},
	"burnMinSteps":      {cmd: "infer", value: true, ignored: sampling},
	"burnMaxSteps":      {cmd: "infer", value: true, ours: "--burn-in", ignored: sampling},
	"minSteps":          {cmd: "infer", value: true, ignored: sampling},
	"maxSeconds":        {cmd: "infer", value: true, ours: "--time-limit", ignored: "applies to sampling and MaxWalkSAT; ignored by BP"},
	"mcsatSamples":      {cmd: "infer", value: true, ours: "--samples", ignored: sampling},                           // Tuffy
	"mcsatParam":        {cmd: "infer", value: true, ignored: sampling},                                              // Tuffy
	"tries":             {cmd: "infer", value: true, ours: "--tries", ignored: "applies to MaxWalkSAT; ignored"},     // Alchemy
	"mwsMaxSteps":       {cmd: "infer", value: true, ours: "--max-flips", ignored: "applies to MaxWalkSAT; ignored"}, // Alchemy
	"maxFlips":          {cmd: "infer", value: true, ours: "--max-flips", ignored: "applies to MaxWalkSAT; ignored"}, // Tuffy
	"maxTries":          {cmd: "infer", value: true, ours: "--tries", ignored: "applies to MaxWalkSAT; ignored"},     // Tuffy
	"nopart":            {cmd: "infer", ignored: "Tuffy's MRF partitioning has no counterpart; ignored"},             // Tuffy
	"threads":           {cmd: "infer", value: true, ignored: "BP runs on one core; ignored"},                        // Tuffy
	"seed":              {value: true, ours: "--seed", ignored: "BP is deterministic; ignored"},

	// Weight learning.
	"o":                 {cmd: "learn", value: true, to: "-o"},
	"t":                 {cmd: "learn", value: true, to: "-t"},
	"ne":                {cmd: "learn", value: true, to: "--ne"},
	"g":                 {cmd: "learn", to: "--method=pll"},
	"d":                 {cmd: "learn", to: "--method=scg"},
	"gMaxIter":          {cmd: "learn", value: true, to: "--max-iter"},
	"dNumIter":          {cmd: "learn", value: true, to: "--max-iter"},
	"priorMean":         {cmd: "learn", value: true, to: "--prior-mean"},
	"priorStdDev":       {cmd: "learn", value: true, to: "--prior-stddev"},
	"noPrior":           {cmd: "learn", to: "--prior-stddev=-1"},
	"multipleDatabases": {cmd: "learn", to: ""}, // every -t database is its own example in lwl and pll
}

// Rewrite rewrites the arguments of "lifted infer" and "lifted learn"
// (name is "infer" or "learn", fl its flags, args[0] the subcommand as
// called) from Alchemy's and Tuffy's spellings into ours. It returns
// warnings for flags it accepts and ignores, and a *UsageError for a
// method that is not built, or a one-dash flag that is neither ours nor
// in the table.
func Rewrite(name string, fl *pflag.FlagSet, args []string) ([]string, []string, error) {
	out := []string{args[0]}
	var warnings []string
	var methods []string // the method flags, as written
	method := ""         // what they ask for
	mapOnly := false     // -m / -a
	ourMethod := ""      // --method, where given
	type setting struct {
		flag, val string
		af        alchemyFlag
	}
	var settings []setting // those that depend on the method
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			out = append(out, args[i:]...)
			break
		}
		if strings.HasPrefix(a, "--") {
			out = append(out, a)
			// Our long flag: copy its value along.
			n, v, hasVal := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if f := fl.Lookup(n); f != nil && f.NoOptDefVal == "" && !hasVal && i+1 < len(args) {
				i++
				v = args[i]
				out = append(out, v)
			}
			if n == "method" {
				ourMethod = v
			}
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, a) // the model, or "-"
			continue
		}
		n := a[1:]
		af, ok := alchemyFlags[n]
		if ok && af.cmd != "" && af.cmd != name {
			ok = false
		}
		if !ok {
			// Ours: a one-letter flag, maybe with its value attached
			// (-qSmokes); Alchemy's -e and the like are in the table.
			if f := fl.ShorthandLookup(n[:1]); f != nil {
				out = append(out, a)
				if len(n) == 1 && f.NoOptDefVal == "" && i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
				continue
			}
			return nil, nil, &UsageError{fmt.Errorf("unknown flag %s: neither one of lifted %s's flags nor one of Alchemy's or Tuffy's that it reads (see 'lifted %s --help' and the README's table \"Alchemy and Tuffy\")", a, name, name)}
		}
		if af.no != "" {
			return nil, nil, &UsageError{fmt.Errorf("%s: %s", a, af.no)}
		}
		val := ""
		if af.value {
			if i+1 >= len(args) {
				return nil, nil, &UsageError{fmt.Errorf("flag needs an argument: %s", a)}
			}
			i++
			val = args[i]
		}
		switch {
		case af.method != "":
			methods = append(methods, a)
			switch {
			case af.method == "max-product":
				mapOnly = true
			case method == "" || method == af.method:
				method = af.method
			case (method == "bp" && af.method == "lbp") || (method == "lbp" && af.method == "bp"):
				method = "lbp" // -bp -lifted: lifted BP
			default:
				return nil, nil, &UsageError{fmt.Errorf("%s: choose one inference method", strings.Join(methods, " "))}
			}
			if af.what != "" {
				if _, ok := infer.Lookup(af.method); !ok {
					return nil, nil, &UsageError{fmt.Errorf("%s (%s) is not built yet: see issue %s; use -bp or -lifted", a, af.what, af.issue)}
				}
			}
		case af.ours != "" || af.ignored != "":
			settings = append(settings, setting{a, val, af})
		case af.to == "MODEL":
			if strings.Contains(val, ",") && !exists(val) {
				return nil, nil, &UsageError{fmt.Errorf("%s %s: lifted reads one .mln file; concatenate them", a, val)}
			}
			out = append(out, val)
		case af.to == "-e":
			for _, p := range splitList(val) {
				out = append(out, "-e", p)
			}
		case af.to == "":
		case af.value:
			out = append(out, af.to, val)
		default:
			out = append(out, af.to)
		}
	}
	if len(methods) > 0 {
		if ourMethod != "" && method != "" && ourMethod != method {
			return nil, nil, &UsageError{fmt.Errorf("--method %s and %s: choose one inference method", ourMethod, strings.Join(methods, " "))}
		}
		if mapOnly && method == "" && ourMethod != "" {
			method = ourMethod
		}
		if mapOnly && method == "" {
			if _, ok := infer.Lookup("maxwalksat"); !ok {
				return nil, nil, &UsageError{fmt.Errorf("%s (MAP inference by MaxWalkSAT) is not built yet: see issue 12; for MAP by max-product BP write %s -bp or %s -lifted (our --max-product)",
					methods[0], methods[0], methods[0])}
			}
			method = "maxwalksat"
		}
		if method != "" {
			out = append(out, "--method", method)
		}
		if mapOnly {
			out = append(out, "--max-product")
		}
	}
	// Settings whose meaning depends on the method: BP's (Alchemy's BP
	// reads -maxSteps as its iteration limit), a sampler's where the
	// method has them, else ignored.
	if method == "" {
		method = ourMethod
	}
	bpMethod := name == "infer" && (method == "" || method == "bp" || method == "lbp")
	for _, s := range settings {
		switch {
		case !bpMethod && s.af.ours != "" && fl.Lookup(strings.TrimPrefix(s.af.ours, "--")) != nil && takes(name, method, s.af.ours):
			val := s.val
			if _, err := strconv.ParseFloat(val, 64); err == nil && s.af.ours == "--time-limit" {
				val += "s" // Alchemy's -maxSeconds counts seconds
			}
			out = append(out, s.af.ours, val)
		case s.af.to != "":
			out = append(out, s.af.to, s.val)
		case bpMethod || s.af.ours == "":
			warnings = append(warnings, fmt.Sprintf("%s: %s", s.flag, s.af.ignored))
		default:
			warnings = append(warnings, fmt.Sprintf("%s: --method %s has no such setting; ignored", s.flag, method))
		}
	}
	return out, warnings, nil
}

// takes reports whether the flag of ours (a method property's flag, or
// --seed) applies to the method under the subcommand: learn's flags
// always do, infer's when the method has that property.
func takes(cmd, method, flag string) bool {
	name := strings.TrimPrefix(flag, "--")
	if cmd != "infer" || name == "seed" {
		return true
	}
	m, ok := infer.Lookup(method)
	return !ok || m.HasProperty(name)
}

// splitList splits a comma-separated list of files (Alchemy's -e a.db,b.db),
// unless the whole is the name of a file.
func splitList(s string) []string {
	if !strings.Contains(s, ",") || exists(s) {
		return []string{s}
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// InvokedAs returns the subcommand a binary called by Alchemy's program
// names (a link named infer or learnwts) stands for, or "".
func InvokedAs(argv0 string) string {
	switch name := strings.TrimSuffix(filepath.Base(argv0), ".exe"); name {
	case "infer", "learnwts":
		return name
	}
	return ""
}

// QuietIn tells whether the arguments ask for --quiet.
func QuietIn(args []string) bool {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "--quiet" || a == "--quiet=true" {
			return true
		}
	}
	return false
}
