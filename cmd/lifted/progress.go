package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/lifted-dev/lifted/engine"
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

	plainStage string    // the stage of the last update
	stageStart time.Time // when it was first shown, and how far it was
	stageN0    int64     // then (for the plain lines' time left)
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
	if stage != p.plainStage {
		p.plainStage, p.stageStart, p.stageN0 = stage, now, n
	}
	if !p.tty {
		if p.lines > 0 && now.Sub(p.last) < progressInterval {
			return
		}
		p.last = now
		p.lines++
		if total > 0 && n >= 0 {
			// How far, and the time left at the stage's rate so far.
			eta := ""
			if ran, did := now.Sub(p.stageStart), n-p.stageN0; did > 0 && ran > 0 {
				left := time.Duration(float64(ran) * float64(total-n) / float64(did))
				eta = ", about " + left.Round(time.Second).String() + " left"
			}
			fmt.Fprintf(p.w, "lifted: [%.1f s] %s: %d of %d (%.0f%%%s): %s\n", elapsed.Seconds(), stage, n, total, 100*float64(n)/float64(total), eta, detail)
			return
		}
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

// report shows the engine's progress.
func (p *progress) report(e engine.Progress) { p.update(e.Stage, e.Done, e.Total, e.Detail) }

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
