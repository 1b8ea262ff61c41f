package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeProgress reports into a buffer on a clock the test moves.
func fakeProgress(quiet, tty bool) (*progress, *bytes.Buffer, *time.Time) {
	var buf bytes.Buffer
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0
	p := &progress{w: &buf, quiet: quiet, tty: tty, now: func() time.Time { return now }, start: t0}
	return p, &buf, &now
}

// Without a terminal: nothing in the first second, then plain lines at
// most once a second; with --quiet nothing at all.
func TestProgressPlainLines(t *testing.T) {
	p, buf, now := fakeProgress(false, false)
	for i := range 50 { // 5 s in steps of 0.1 s
		*now = now.Add(100 * time.Millisecond)
		p.update("grounding", int64(i), 50, "formula 1 of 2")
	}
	p.done()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	// How far, and (from the second line) the time left at the rate so
	// far: 0.1 s a step.
	if len(lines) != 5 || lines[0] != "lifted: [1.0 s] grounding: 9 of 50 (18%): formula 1 of 2" ||
		lines[1] != "lifted: [2.0 s] grounding: 19 of 50 (38%, about 3s left): formula 1 of 2" || strings.Contains(buf.String(), "\r") {
		t.Errorf("%d lines:\n%s", len(lines), buf)
	}
	q, qbuf, qnow := fakeProgress(true, false)
	*qnow = qnow.Add(5 * time.Second)
	q.update("BP", 1, 0, "iteration 1")
	q.done()
	if qbuf.Len() != 0 {
		t.Errorf("--quiet printed %q", qbuf)
	}
}

// On a terminal: a bar with the stage and its figures, a new one for each
// stage, cleared at the end.
func TestProgressBar(t *testing.T) {
	p, buf, now := fakeProgress(false, true)
	*now = now.Add(2 * time.Second)
	p.update("grounding", 5, 10, "formula 1 of 2")
	if !strings.Contains(buf.String(), "grounding: formula 1 of 2") || !strings.Contains(buf.String(), "50%") {
		t.Errorf("bar: %q", buf)
	}
	p.printf("colour passing", "round %d", 3)
	if !strings.Contains(buf.String(), "colour passing: round 3") {
		t.Errorf("spinner: %q", buf)
	}
	n := buf.Len()
	p.done()
	if buf.Len() == n || !strings.HasSuffix(buf.String(), "\r") {
		t.Errorf("done did not clear the line: %q", buf.String()[n:])
	}
	q, qbuf, qnow := fakeProgress(true, true)
	*qnow = qnow.Add(5 * time.Second)
	q.update("BP", 1, 0, "iteration 1")
	if qbuf.Len() != 0 {
		t.Errorf("--quiet printed %q", qbuf)
	}
}
