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
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/suggest"
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
named learnwts): -g (--method pll), -d (--method disc: discriminative,
started from the conditional pseudo-likelihood's optimum, with BP's counts
where BP converges on the training data, else MC-SAT's: L-BFGS on BP's,
diagonal Newton on MC-SAT's; Alchemy's -d is scaled conjugate gradient),
-dNewton (--method dn: diagonal Newton), -dCG (--method dscg: scaled
conjugate gradient),
-dVP and -dLearningRate (--method vp, --learning-rate), -i, -o, -t,
-ne, -gMaxIter and -dNumIter (--max-iter), -priorMean, -priorStdDev (default
2 for -d, 100 for -g, as Alchemy), -noPrior (--prior-stddev -1), -seed,
-multipleDatabases (every -t database is always its own example).`,
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

// mle is the warning for the settings of Tuffy's MLE sampler.
const mle = "applies to Tuffy's MLE sampler, which lifted does not have; ignored"

// sampling is the warning for the settings of samplers under BP.
const sampling = "applies to sampling (MC-SAT, Gibbs), which BP does not do; ignored"

// alchemyFlags are the Alchemy and Tuffy flags read, built on first use
// (a map literal of this size costs a quarter of a millisecond at start-up,
// which every command, "lifted count" on a small formula too, would pay).
var alchemyFlags = sync.OnceValue(func() map[string]alchemyFlag {
	return map[string]alchemyFlag{
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
		"help":        {to: "--help"}, // Tuffy

		// Inference methods.
		"bp":                        {cmd: "infer", method: "bp"},
		"lifted":                    {cmd: "infer", method: "lbp"},
		"ms":                        {cmd: "infer", method: "mcsat", what: "MC-SAT", issue: "11"},
		"mcsat":                     {cmd: "infer", method: "mcsat", what: "MC-SAT", issue: "11"}, // Tuffy
		"marginal":                  {cmd: "infer", to: ""},                                       // Tuffy: marginals, our default
		"gibbs":                     {cmd: "infer", method: "gibbs", what: "Gibbs sampling", issue: "11"},
		"p":                         {cmd: "infer", method: "gibbs", what: "Gibbs sampling", issue: "11"},
		"simtp":                     {cmd: "infer", method: "tempering", what: "simulated tempering (--method tempering)", issue: "25"},
		"lvg":                       {cmd: "infer", method: "lbg", what: "lifted blocked Gibbs sampling", issue: "11"}, // Alchemy 2's lifted blocked Gibbs
		"m":                         {cmd: "infer", method: "max-product"},
		"a":                         {cmd: "infer", method: "max-product"},
		"efbp":                      {cmd: "infer", no: "expanding frontier BP is not built; use -bp or -lifted"},
		"decision":                  {cmd: "infer", no: "decision-theoretic inference is not built; for the most probable world use -m (MAP)"},
		"mle":                       {cmd: "infer", no: "Tuffy's MLE sampler is not built; use -ms (MC-SAT) or -lifted"},
		"dual":                      {cmd: "infer", no: "Tuffy's MAP-and-marginals run is not built; run -m and -ms (or -lifted) one after the other"},
		"learnwt":                   {cmd: "infer", no: "learning is 'lifted learn' (alias learnwts): lifted learnwts -d -i prog.mln -t evidence.db -ne P -o out.mln"},
		"outputNetwork":             {cmd: "infer", no: "writing the ground network instead of answering is 'lifted convert MODEL -e EVIDENCE --to edgelist -o DIR' (or 'lifted compress' for its size)"},
		"counts":                    {cmd: "infer", no: "clause counts are not written; 'lifted compress MODEL -e EVIDENCE' reports the ground formulas, 'lifted count' counts worlds"},
		"queryEvidence":             {cmd: "infer", no: "taking the query atoms missing from the .db as false evidence would leave nothing to infer; to close a predicate's world use -cw PRED"},
		"lazy":                      {no: "lazy grounding is not built; -lifted builds lifted BP's network from the MLN without grounding where the evidence allows, and --max-ground N bounds a grounding"},
		"lazyNoApprox":              {no: "lazy grounding is not built (see -lazy); use -lifted, or --max-ground N to bound a grounding"},
		"memLimit":                  {value: true, to: "--max-memory"}, // kilobytes: KiB appended
		"PrintSamplePerIteration":   {no: "samples are not printed; the marginals are estimated from them (--output-format json adds their standard errors)"},
		"hybrid":                    {no: "hybrid MLNs (continuous variables) are not supported"},
		"SA":                        {no: "hybrid MLNs' simulated annealing is not built: hybrid MLNs (continuous variables) are not supported"},
		"SAInterval":                {no: "hybrid MLNs (continuous variables) are not supported"},
		"SATempDownRatio":           {no: "hybrid MLNs (continuous variables) are not supported"},
		"MaxSeconds":                {no: "hybrid MLNs (continuous variables) are not supported; for a time limit on sampling write -maxSeconds (lower-case m) or --time-limit"},
		"propstdev":                 {no: "hybrid MLNs (continuous variables) are not supported"},
		"contSamples":               {no: "hybrid MLNs (continuous variables) are not supported"},
		"ic":                        {no: "an input cluster file is not read: lbg chooses its clusters itself (--method lbg)"},
		"probFile":                  {no: "there is no separate probability file: the marginals are written to -r FILE (or --output-format json for standard errors and log Z)"},
		"mcsatSampleFlipProb":       {cmd: "infer", no: "lifted's MC-SAT has no SampleSAT flip probability to set; its mixing is checked by R-hat over --chains (raise --samples, or use --method tempering)"},
		"saRatio":                   {cmd: "infer", no: "lifted's MC-SAT has no simulated-annealing moves to mix in; its mixing is checked by R-hat over --chains (raise --samples or --burn-in, or use --method tempering)"},
		"saTemperature":             {cmd: "infer", no: "lifted's MC-SAT has no simulated-annealing moves (see -saRatio); raise --samples or --burn-in"},
		"lateSa":                    {cmd: "infer", ignored: "lifted's MC-SAT has no simulated-annealing moves; ignored"},
		"numSolutions":              {cmd: "infer", no: "lifted's MC-SAT draws one world from each slice; raise --samples instead"},
		"db":                        {no: "Tuffy's evidence in a database schema: lifted reads .db files (-e FILE)"},
		"dbNeedTranslate":           {no: "Tuffy's evidence in a database schema: lifted reads .db files (-e FILE)"},
		"gz":                        {no: "output is not compressed: pipe -r - (stdout) into gzip"},
		"printResultsAsPrologFacts": {no: "results are written in Alchemy's format or, with --output-format json, as JSON"},
		"minProb":                   {no: "every query atom is written; filter the result file (e.g. awk '$2 >= P')"},
		"softT":                     {no: "soft evidence is not supported"},
		"ae":                        {no: "Tuffy's extra evidence: give every .db file with -e (repeatable, or comma-separated)"},
		"k":                         {no: "Tuffy-CBP's iteration count: use -maxSteps N (BP's --max-iter)"},
		"runBox":                    {no: "box propagation is not built; use -bp or -lifted"},
		"iterSpan":                  {no: "Tuffy's bootstrapping is not built"},

		// Settings.
		"maxSteps":          {cmd: "infer", value: true, to: "--max-iter", ours: "--samples"}, // BP: its iteration limit, as in Alchemy's BP
		"numSamples":        {cmd: "infer", value: true, ours: "--samples", ignored: sampling},
		"convergenceThresh": {cmd: "infer", value: true, to: "--tol"},
		"convThresh":        {cmd: "infer", value: true, to: "--tol"},
		"convIterations":    {cmd: "infer", value: true, ignored: "BP stops when one iteration changes no message by more than --tol; ignored"},
		"useHC":             {cmd: "infer", to: ""}, // hypercubes: colour passing needs no representation choice
		"useCT":             {cmd: "infer", to: ""},
		"explicitRep":       {cmd: "infer", to: ""},
		"hcCreateType":      {cmd: "infer", value: true, ignored: "hypercubes: lifted BP's colour passing needs none; ignored"},
		"hcCreateNoise":     {cmd: "infer", value: true, ignored: "hypercubes: lifted BP's colour passing needs none; ignored"},
		"noHC":              {cmd: "infer", value: true, ignored: "hypercubes: lifted BP's colour passing needs none; ignored"},
		"lncIter":           {cmd: "infer", value: true, ignored: "colour passing always runs to its fixed point, which BP's answer needs; ignored"},
		"numChains":         {cmd: "infer", value: true, ours: "--chains", ignored: sampling},
		"burnMinSteps":      {cmd: "infer", value: true, ignored: sampling},
		"burnMaxSteps":      {cmd: "infer", value: true, ours: "--burn-in", ignored: sampling},
		"minSteps":          {cmd: "infer", value: true, ignored: sampling},
		"maxSeconds":        {cmd: "infer", value: true, ours: "--time-limit", ignored: "applies to sampling and MaxWalkSAT; ignored by BP"},
		"timeout":           {cmd: "infer", value: true, ours: "--time-limit", ignored: "applies to sampling and MaxWalkSAT; ignored by BP"}, // Tuffy
		"delta":             {cmd: "infer", value: true, ignored: "lifted's samplers test mixing by R-hat over --chains; ignored"},
		"epsilonError":      {cmd: "infer", value: true, ignored: "lifted's samplers test mixing by R-hat over --chains; ignored"},
		"fracConverged":     {cmd: "infer", value: true, ignored: "lifted's samplers test mixing by R-hat over --chains; ignored"},
		"testConvergence":   {cmd: "infer", value: true, ignored: "lifted's samplers always test mixing (R-hat over --chains); ignored"},
		"samplesPerTest":    {cmd: "infer", value: true, ignored: "lifted's samplers test mixing by R-hat at the end; ignored"},
		"walksatType":       {cmd: "infer", value: true, ignored: "lifted's samplers start from random worlds (over-dispersed chains); ignored"},
		"subInterval":       {cmd: "infer", value: true, ignored: "lifted's tempering proposes swaps after every step; ignored"},
		"numRuns":           {cmd: "infer", value: true, ours: "--chains", ignored: "applies to simulated tempering (-simtp); ignored"},
		"simtpNumST":        {cmd: "infer", value: true, ours: "--chains", ignored: "applies to simulated tempering (-simtp); ignored"},
		"numSwap":           {cmd: "infer", value: true, ours: "temperatures", ignored: "applies to simulated tempering (-simtp); ignored"},
		"mcsatSamples":      {cmd: "infer", value: true, ours: "--samples", ignored: sampling},                           // Tuffy
		"mcsatParam":        {cmd: "infer", value: true, ignored: sampling},                                              // Tuffy
		"mcsatDumpInt":      {cmd: "infer", value: true, ignored: "intermediate results are not written; ignored"},       // Tuffy
		"mcsatCumulative":   {cmd: "infer", ignored: "intermediate results are not written; ignored"},                    // Tuffy
		"snap":              {cmd: "infer", ignored: "intermediate results are not written; ignored"},                    // Tuffy
		"tries":             {cmd: "infer", value: true, ours: "--tries", ignored: "applies to MaxWalkSAT; ignored"},     // Alchemy
		"mwsMaxSteps":       {cmd: "infer", value: true, ours: "--max-flips", ignored: "applies to MaxWalkSAT; ignored"}, // Alchemy
		"maxFlips":          {cmd: "infer", value: true, ours: "--max-flips", ignored: "applies to MaxWalkSAT; ignored"}, // Tuffy
		"maxTries":          {cmd: "infer", value: true, ours: "--tries", ignored: "applies to MaxWalkSAT; ignored"},     // Tuffy
		"randomStep":        {cmd: "infer", value: true, ours: "--noise", ignored: "applies to MaxWalkSAT; ignored"},     // Tuffy
		"targetWt":          {cmd: "infer", value: true, ignored: "MaxWalkSAT runs its --tries and --max-flips; ignored"},
		"breakHardClauses":  {cmd: "infer", ignored: "lifted's MaxWalkSAT looks for a world of the hard formulas first; ignored"},
		"dontBreak":         {cmd: "infer", ignored: "lifted's MaxWalkSAT looks for a world of the hard formulas first; ignored"}, // Tuffy
		"heuristic":         {cmd: "infer", value: true, ignored: "lifted's MaxWalkSAT has one heuristic (WalkSAT with --noise); ignored"},
		"tabuLength":        {cmd: "infer", value: true, ignored: "lifted's MaxWalkSAT has one heuristic (WalkSAT with --noise); ignored"},
		"lazyLowState":      {cmd: "infer", value: true, ignored: "no effect on the answer; ignored"},
		"activateAll":       {cmd: "infer", ignored: "every ground atom is in the grounding; ignored"},         // Tuffy
		"nopart":            {cmd: "infer", ignored: "Tuffy's MRF partitioning has no counterpart; ignored"},   // Tuffy
		"nopush":            {cmd: "infer", ignored: "Tuffy's MRF partitioning has no counterpart; ignored"},   // Tuffy
		"threads":           {cmd: "infer", value: true, to: "--workers"},                                      // Tuffy
		"innerPara":         {cmd: "infer", value: true, ignored: "Tuffy's MLE sampler is not built; ignored"}, // Tuffy
		"seed":              {value: true, ours: "--seed", ignored: "BP is deterministic; ignored"},
		"verbose":           {value: true, ignored: "progress goes to stderr (--quiet for none); ignored"},       // Tuffy
		"conf":              {value: true, ignored: "lifted needs no configuration file (no database); ignored"}, // Tuffy
		"keepData":          {ignored: "lifted keeps no database; ignored"},                                      // Tuffy
		"dribble":           {value: true, no: "the log is stderr: redirect it (2> FILE)"},                       // Tuffy
		"lineHeader":        {value: true, ignored: "ignored"},                                                   // Tuffy
		"rawString":         {ignored: "constants are read as written; ignored"},                                 // Tuffy

		"hard":          {ignored: "lifted's MaxWalkSAT looks for a world of the hard formulas first; ignored"},
		"debug":         {ignored: "ignored"},                                                                        // Tuffy
		"gp":            {ignored: "Tuffy's MRF partitioning has no counterpart; ignored"},                           // Tuffy
		"jt":            {ignored: mle},                                                                              // Tuffy
		"key":           {ignored: mle},                                                                              // Tuffy
		"partComponent": {ignored: mle},                                                                              // Tuffy
		"small":         {ignored: mle},                                                                              // Tuffy
		"log":           {cmd: "infer", ignored: mle},                                                                // Tuffy
		"serialmix":     {value: true, ignored: mle},                                                                 // Tuffy
		"gibbsThinning": {value: true, ignored: mle},                                                                 // Tuffy
		"sa":            {value: true, ignored: "applies to Tuffy's SampleSAT; ignored"},                             // Tuffy
		"sgdStepSize":   {value: true, ignored: "Tuffy's SGD learning: lifted learn --method sgd --step S; ignored"}, // Tuffy
		"sgdDecay":      {value: true, ignored: "Tuffy's SGD learning: lifted learn --method sgd has its own schedule; ignored"},
		"sgdMetaSample": {value: true, ignored: "Tuffy's SGD learning: lifted learn --method sgd --batch-size N; ignored"},
		"sgdMU":         {value: true, ignored: "Tuffy's SGD learning: lifted learn --method sgd has its own schedule; ignored"},

		// Weight learning.
		"o":                      {cmd: "learn", value: true, to: "-o"},
		"t":                      {cmd: "learn", value: true, to: "-t"},
		"l":                      {cmd: "learn", value: true, to: "DBLIST"},
		"ne":                     {cmd: "learn", value: true, to: "--ne"},
		"g":                      {cmd: "learn", to: "--method=pll"},
		"d":                      {cmd: "learn", to: "--method=disc"},
		"dCG":                    {cmd: "learn", to: "--method=dscg"},
		"dVP":                    {cmd: "learn", to: "--method=vp"},
		"dNewton":                {cmd: "learn", to: "--method=dn"},
		"gMaxIter":               {cmd: "learn", value: true, to: "--max-iter"},
		"dNumIter":               {cmd: "learn", value: true, to: "--max-iter"},
		"dMaxIter":               {cmd: "learn", value: true, to: "--max-iter"}, // Tuffy's learnwt mode
		"gConvThresh":            {cmd: "learn", value: true, ignored: "learn stops when the gradient is below --tol; ignored"},
		"cgMinLLChange":          {cmd: "learn", value: true, ignored: "learn stops when the gradient is below --tol; ignored"},
		"cgLambda":               {cmd: "learn", value: true, ignored: "scg's step control is its own; ignored"},
		"cgMaxLambda":            {cmd: "learn", value: true, ignored: "scg's step control is its own; ignored"},
		"cgNoPrecond":            {cmd: "learn", ignored: "scg's step control is its own; ignored"},
		"dLearningRate":          {cmd: "learn", value: true, to: "--learning-rate"},
		"dMomentum":              {cmd: "learn", value: true, no: "momentum is not built; --method smd adapts its gains (--smd-mu)"},
		"dNoPW":                  {cmd: "learn", ignored: "applies to the voted perceptron; ignored"},
		"dInitWithLogOdds":       {cmd: "learn", no: "the weights start from the .mln's; set them there"},
		"dMwsMaxSubsequentSteps": {cmd: "learn", value: true, ignored: "applies to MaxWalkSAT inside voted-perceptron learning; ignored"},
		"dMaxSec":                {cmd: "learn", value: true, no: "learning has no time limit; bound it by -dNumIter (--max-iter)"},
		"dMaxMin":                {cmd: "learn", value: true, no: "learning has no time limit; bound it by -dNumIter (--max-iter)"},
		"dMaxHour":               {cmd: "learn", value: true, no: "learning has no time limit; bound it by -dNumIter (--max-iter)"},
		"gNoEqualPredWt":         {cmd: "learn", value: true, to: "--pll-unweighted="},
		"priorMean":              {cmd: "learn", value: true, to: "--prior-mean"},
		"priorStdDev":            {cmd: "learn", value: true, to: "--prior-stddev"},
		"noPrior":                {cmd: "learn", to: "--prior-stddev=-1"},
		"multipleDatabases":      {cmd: "learn", to: ""}, // every -t database is its own example in lwl and pll
		"noAddUnitClauses":       {cmd: "learn", ignored: "learn adds no unit clauses; ignored"},
		"withEM":                 {cmd: "learn", no: "EM over missing truth values is not built: atoms missing from a training .db are false, ?ATOM lines mark unknown ones"},
		"periodic":               {cmd: "learn", no: "intermediate MLNs are not written; --log FILE writes the learning curve"},
		"learn:infer":            {cmd: "learn", value: true, ignored: "learn's inference is set by its own flags (--method; see lifted learn --help); ignored"},
		"learn:queryEvidence":    {cmd: "learn", ignored: "the training databases are closed-world: atoms not listed are false; ignored"},
		"learn:learnwt":          {cmd: "learn", to: ""}, // Tuffy: this is learning
	}
})

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
		af, ok := lookup(name, n)
		other := ok && af.cmd != "" && af.cmd != name
		if !ok || other {
			// Ours: a one-letter flag, with its value next, after =
			// (-q=Smokes) or attached where it cannot be read as a word
			// (-qCancer(Anna), -e../x.db). A word (-outputNetwork,
			// -queryEvidence) is never split into letters.
			if f := fl.ShorthandLookup(n[:1]); f != nil && (len(n) == 1 || n[1] == '=' || !isWord(n)) {
				out = append(out, a)
				if len(n) == 1 && f.NoOptDefVal == "" && i+1 < len(args) {
					i++
					out = append(out, args[i])
				}
				continue
			}
			if other {
				return nil, nil, &UsageError{fmt.Errorf("%s is a flag of Alchemy's %s, not of %s (see 'lifted %s --help')", a, program[af.cmd], program[name], af.cmd)}
			}
			hint := ""
			if fl.ShorthandLookup(n[:1]) != nil {
				hint = fmt.Sprintf("; for lifted's -%s with a value write -%s %s", n[:1], n[:1], n[1:])
			}
			if hint == "" {
				hint = closest(name, fl, n)
			}
			return nil, nil, &UsageError{fmt.Errorf("unknown Alchemy flag %s: neither one of lifted %s's flags nor one of Alchemy's or Tuffy's that it reads (see 'lifted %s --help' and the table \"Alchemy and Tuffy\" in docs/mln.md)%s", a, name, name, hint)}
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
		} else if i+1 < len(args) && (args[i+1] == "true" || args[i+1] == "false") {
			// Alchemy's toggles take an optional true or false.
			i++
			if args[i] == "false" {
				continue
			}
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
		case af.to == "DBLIST": // learnwts -l: a file naming a database per line
			text, err := os.ReadFile(val)
			if err != nil {
				return nil, nil, &UsageError{fmt.Errorf("%s %s: %v", a, val, err)}
			}
			for _, line := range strings.Split(string(text), "\n") {
				if line = strings.TrimSpace(line); line != "" {
					out = append(out, "-t", line)
				}
			}
		case af.to == "--max-memory":
			out = append(out, af.to, val+"KiB") // Alchemy's -memLimit counts kilobytes
		case strings.HasSuffix(af.to, "="):
			out = append(out, af.to+val)
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
		case !bpMethod && s.af.ours != "" && !strings.HasPrefix(s.af.ours, "--") && takes(name, method, s.af.ours):
			out = append(out, "--prop", s.af.ours+"="+s.val) // a property without a flag of its own
		case !bpMethod && s.af.ours != "" && fl.Lookup(strings.TrimPrefix(s.af.ours, "--")) != nil && takes(name, method, s.af.ours):
			val := s.val
			if _, err := strconv.ParseFloat(val, 64); err == nil && s.af.ours == "--time-limit" {
				val += "s" // Alchemy's -maxSeconds counts seconds
			}
			out = append(out, s.af.ours, val)
		case s.af.to != "" && (bpMethod || takes(name, method, s.af.to)):
			out = append(out, s.af.to, s.val)
		case bpMethod || s.af.ours == "":
			warnings = append(warnings, fmt.Sprintf("%s: %s", s.flag, s.af.ignored))
		default:
			sets := s.af.ours
			if s.af.to != "" {
				sets = s.af.to + " (BP) or " + sets
			}
			return nil, nil, &UsageError{fmt.Errorf("%s %s: --method %s does not use it (it sets %s, which --method %s does not have)", s.flag, s.val, method, sets, method)}
		}
	}
	return out, warnings, nil
}

// closest is a "did you mean" hint for the unknown one-dash flag n of
// the subcommand name: the nearest Alchemy or Tuffy flag it reads, or the
// nearest of ours.
func closest(name string, fl *pflag.FlagSet, n string) string {
	var names []string
	for k, af := range alchemyFlags() {
		if c, k2, ok := strings.Cut(k, ":"); ok {
			if c != name {
				continue
			}
			k = k2
		}
		if af.cmd == "" || af.cmd == name {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	if s := suggest.Closest(n, names); s != "" {
		return "; did you mean -" + s + "?"
	}
	var ours []string
	fl.VisitAll(func(f *pflag.Flag) { ours = append(ours, f.Name) })
	if s := suggest.Closest(n, ours); s != "" {
		return "; did you mean --" + s + "?"
	}
	return ""
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

// lookup finds an Alchemy or Tuffy flag (without its dash) under the
// subcommand name: a key "learn:NAME" holds a flag whose meaning there
// differs from infer's.
func lookup(name, flag string) (alchemyFlag, bool) {
	if af, ok := alchemyFlags()[name+":"+flag]; ok {
		return af, true
	}
	af, ok := alchemyFlags()[flag]
	return af, ok
}

// program names the Alchemy program of a subcommand.
var program = map[string]string{"infer": "infer", "learn": "learnwts"}

// isWord reports whether s is made of letters and digits only, as the
// name of a flag (an attached value has other characters: parentheses,
// dots, slashes, commas).
func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' {
			return false
		}
	}
	return true
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

// Known reports whether flag (without its dash) is one of Alchemy's or
// Tuffy's flags that the subcommand ("infer" or "learn") maps or refuses
// by a message of its own.
func Known(cmd, flag string) bool {
	af, ok := lookup(cmd, flag)
	return ok && (af.cmd == "" || af.cmd == cmd)
}
