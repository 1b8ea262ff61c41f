// Command cpu runs a command and writes the CPU seconds it used (user and
// system, of the command alone: wait4's rusage of the child, to the
// microsecond) and its peak resident memory, for bench/sharpsat/compare.sh.
// The shell's time with GNU time and timeout(1) around a command count
// their own forks and execs too, about 4 ms on the bench machine: as much
// as a whole run of sharpSAT or lifted on the smallest instances.
//
//	go run ./bench/sharpsat/cpu -o OUT -timeout 120 PROGRAM ARGS...
//	# OUT: 0.002913 0.001034 9452 (user s, system s, peak KB)
//
// The command's standard streams are this one's. After -timeout seconds
// (0: none) it gets SIGTERM, and SIGKILL 10 s later; cpu then exits 124,
// as timeout(1) does, otherwise with the command's exit status.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "file for the figures (default: standard error)")
	limit := flag.Float64("timeout", 0, "seconds before the command is stopped (0: none)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: cpu [-o FILE] [-timeout SECONDS] PROGRAM [ARGS...]")
		os.Exit(2)
	}
	ctx := context.Background()
	if *limit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(*limit*float64(time.Second)))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "cpu:", err)
		os.Exit(127)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		fmt.Fprintln(os.Stderr, "cpu: no resource usage on this system")
		os.Exit(1)
	}
	line := fmt.Sprintf("%.6f %.6f %d\n", float64(ru.Utime.Nano())/1e9, float64(ru.Stime.Nano())/1e9, ru.Maxrss)
	if *out == "" {
		fmt.Fprint(os.Stderr, line)
	} else if werr := os.WriteFile(*out, []byte(line), 0o644); werr != nil {
		fmt.Fprintln(os.Stderr, "cpu:", werr)
		os.Exit(1)
	}
	switch {
	case ctx.Err() != nil:
		os.Exit(124)
	case err == nil:
	default:
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			os.Exit(1)
		}
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			os.Exit(128 + int(ws.Signal())) // as a shell reports it
		}
		os.Exit(ee.ExitCode())
	}
}
