package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/lifted-dev/lifted/infer"
)

// progress reports long work on stderr, the same way in every subcommand:
// grounding, colour passing, BP, counting and learning each call update
// with their stage, how far they are (n of total, or total ≤ 0 when the end
// is not known) and their figures. On a terminal that is a progress bar
// (github.com/schollz/progressbar/v3: a bar, or a spinner when the total is
// not known, with the figures and the elapsed time), cleared when the stage
// is done; when stderr is not a terminal (a log file, a pipe), plain lines
// at most once a second; with --quiet nothing. Work shorter than a second
// shows nothing at all.
type progress struct {
	w     io.Writer
	quiet bool
	tty   bool
	now   func() time.Time
	start time.Time
	last  time.Time // of the last plain line
	lines int       // plain lines printed

	bar   *progressbar.ProgressBar
	stage string
	total int64
}

const (
	progressDelay    = time.Second // nothing is shown before
	progressInterval = time.Second // plain lines at most this often
)

// newProgress reports on stderr, as a bar when stderr is a terminal.
func newProgress(quiet bool) *progress {
	return &progress{w: os.Stderr, quiet: quiet, tty: term.IsTerminal(int(os.Stderr.Fd())), now: time.Now, start: time.Now()}
}

// update reports that stage has done n of total steps (total ≤ 0: not
// known); detail holds the stage's figures.
func (p *progress) update(stage string, n, total int64, detail string) {
	if p.quiet {
		return
	}
	now := p.now()
	elapsed := now.Sub(p.start)
	if elapsed < progressDelay {
		return
	}
	if !p.tty {
		if p.lines > 0 && now.Sub(p.last) < progressInterval {
			return
		}
		p.last = now
		p.lines++
		fmt.Fprintf(p.w, "lifted: [%.1f s] %s: %s\n", elapsed.Seconds(), stage, detail)
		return
	}
	if total <= 0 {
		total = -1 // a spinner
	}
	if p.bar == nil || stage != p.stage || (total < 0) != (p.total < 0) {
		p.clear()
		p.stage, p.total = stage, total
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(stage+": "+detail),
			progressbar.OptionSetWidth(24),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetPredictTime(total > 0),
			progressbar.OptionSpinnerType(14),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionClearOnFinish(),
		)
	} else if total != p.total {
		p.total = total
		p.bar.ChangeMax64(total)
	}
	// Set64 draws the bar when its percentage changes, Describe when the
	// last drawing is older than the throttle.
	p.bar.Set64(n)
	p.bar.Describe(stage + ": " + detail)
}

// printf reports work whose end is not known, as one stage.
func (p *progress) printf(stage, format string, args ...any) {
	p.update(stage, 0, 0, fmt.Sprintf(format, args...))
}

// colour reports a round of colour passing (lift.Options.Progress).
func (p *progress) colour(round, variableColours, factorColours int) {
	p.printf("colour passing", "round %d, %d variable and %d factor colours", round, variableColours, factorColours)
}

// iteration reports an iteration of an inference method
// (infer.Query.Progress).
func (p *progress) iteration(it infer.Progress) {
	switch {
	case it.Samples > 0 && it.RHat > 0:
		p.printf("sampling", "%d samples, worst R-hat %s", it.Samples, rhat(it.RHat))
	case it.Samples > 0:
		p.printf("sampling", "%d samples", it.Samples)
	case it.Sampling:
		p.printf("sampling", "burn-in")
	case it.Objective != nil && it.Bound != nil: // map-auto
		p.printf("MAP", "objective %.10g, bound %.10g, gap %.3g (graph scale)", *it.Objective, *it.Bound, *it.Bound-*it.Objective)
	case it.Bound != nil:
		p.printf("LP", "cutting-plane round %d: bound %.10g, %d cuts added, worst violation %.3g", it.Iteration, *it.Bound, it.Cuts, it.MaxChange)
	default:
		p.printf("BP", "iteration %d, max change %.3g", it.Iteration, it.MaxChange)
	}
}

// clear removes the bar of the last stage, if any.
func (p *progress) clear() {
	if p.bar != nil {
		p.bar.Clear()
		p.bar.Exit()
		p.bar = nil
	}
}

// done ends the report; the next output starts on a clean line.
func (p *progress) done() { p.clear() }

// steps converts a float count (groundings) to a bar position.
func steps(x float64) int64 {
	if !(x > 0) {
		return 0
	}
	return int64(math.Min(x, 1<<62))
}

// summarize prints, unless quiet, the one line on stderr that ends an
// inference run, after its output: how large the ground model was (atoms are the variables
// that are ground atoms, for an MLN; variables otherwise), how far colour
// passing compressed it, how many iterations the method took, whether it
// converged, and the seconds (grounding included).
func summarize(quiet bool, st infer.Stats, groundAtoms int, groundSeconds float64) {
	if !quiet {
		fmt.Fprintln(os.Stderr, summaryLine(st, groundAtoms, groundSeconds))
	}
}

// summaryLine is summarize's line; groundAtoms < 0 for a factor graph.
func summaryLine(st infer.Stats, groundAtoms int, groundSeconds float64) string {
	size := fmt.Sprintf("%d variables", st.Variables)
	if groundAtoms >= 0 {
		size = fmt.Sprintf("%d ground atoms", groundAtoms)
		if st.Variables != groundAtoms {
			size += fmt.Sprintf(" (%d variables)", st.Variables)
		}
	}
	secs := strconv.FormatFloat(st.Seconds+groundSeconds, 'g', 3, 64)
	if st.Method == "wfomc" || st.Method == "enumerate" { // exact: no compression, no iterations
		factors := fmt.Sprintf("%d factors", st.Factors)
		if st.Method == "wfomc" && st.Clusternodes == 0 && st.Variables > 0 { // wfomc before grounding
			factors = "not grounded"
		}
		return fmt.Sprintf("lifted: %s, %s; exact by %s; %s s", size, factors, st.Method, secs)
	}
	if st.Bound != nil && st.Components > 0 { // map-auto
		return fmt.Sprintf("lifted: %s, %d factors; MAP by %s, objective %s, bound %s, gap %.3g; %d components, %d proved optimal; %s s",
			size, st.Factors, "map-auto", strconv.FormatFloat(*st.Objective, 'g', 10, 64), strconv.FormatFloat(*st.Bound, 'g', 10, 64), *st.Gap,
			st.Components, st.ExactComponents, secs)
	}
	if st.Bound != nil { // lp, ilp
		return fmt.Sprintf("lifted: %s, %d factors; MAP by LP relaxation, objective %s, bound %s, gap %.3g; LP of %d variables and %d constraints over %d variable orbits, %d cuts in %d rounds; %s s",
			size, st.Factors, strconv.FormatFloat(*st.Objective, 'g', 10, 64), strconv.FormatFloat(*st.Bound, 'g', 10, 64), *st.Gap,
			st.LPVariables, st.LPConstraints, st.Orbits, st.Cuts, st.CutRounds, secs)
	}
	if st.Objective != nil { // MaxWalkSAT
		return fmt.Sprintf("lifted: %s, %d factors; MAP by MaxWalkSAT, objective %s after %d flips; %s s", size, st.Factors,
			strconv.FormatFloat(*st.Objective, 'g', 6, 64), st.BPIterations, secs)
	}
	if st.Chains > 0 { // a sampler
		rh := ""
		if st.RHat > 0 {
			rh = ", worst R-hat " + rhat(st.RHat)
		}
		mixed := "mixed"
		if !st.Converged {
			mixed = "NOT mixed"
		}
		blocks := ""
		if st.Clusters > 0 {
			blocks = fmt.Sprintf(" over %d blocks", st.Clusters)
		}
		if st.LiftedClusters > 0 {
			blocks = fmt.Sprintf(" over %d clusters (%d lifted)", st.Clusters, st.LiftedClusters)
		}
		return fmt.Sprintf("lifted: %s, %d factors; %d samples in %d chains%s%s, %s; %s s", size, st.Factors, st.Samples, st.Chains, blocks, rh, mixed, secs)
	}
	ratio := "-"
	if st.Clusternodes > 0 {
		ratio = strconv.FormatFloat(float64(st.Variables)/float64(st.Clusternodes), 'f', 1, 64) + "x"
	}
	conv := "converged"
	if !st.Converged {
		conv = "not converged"
	}
	return fmt.Sprintf("lifted: %s, %d factors; %d clusternodes, %d clusterfactors (compression %s); %d iterations, %s; %s s",
		size, st.Factors, st.Clusternodes, st.Clusterfactors, ratio, st.BPIterations, conv, secs)
}

// rhat formats a Gelman–Rubin R-hat; the samplers report math.MaxFloat64
// when a variable varies between chains but not within any (a chain that
// has not moved), which is infinite R-hat.
func rhat(r float64) string {
	if r >= math.MaxFloat64 {
		return "inf (a chain has not moved)"
	}
	return fmt.Sprintf("%.4g", r)
}
