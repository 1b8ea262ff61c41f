// Command lifted runs lifted probabilistic inference and learning on factor
// graphs (UAI, libDAI, DIMACS CNF) and Markov logic networks.
//
// Run "lifted --help" for the subcommands.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/alchemyargs"
	"github.com/lifted-dev/lifted/internal/buildinfo"
	"github.com/lifted-dev/lifted/internal/memlimit"
	"github.com/lifted-dev/lifted/internal/outfile"
)

// usageError marks errors caused by how the command was called.
type usageError struct{ error }

// runtimeLimit is set by main: the process's runtime soft memory limit
// follows the budget (memlimit.Runtime). Tests run the commands in one
// process and leave it alone (a test's --max-memory 1MiB would slow every
// later test).
var runtimeLimit bool

func main() {
	runtimeLimit = true
	args := os.Args[1:]
	if name := alchemyargs.InvokedAs(os.Args[0]); name != "" {
		args = append([]string{name}, args...) // a link named infer or learnwts, as Alchemy's programs
	}
	root := newRootFor(args)
	called := args
	args, warnings, err := alchemyArgs(root, args)
	if err == nil {
		if !alchemyargs.QuietIn(args) {
			for _, w := range warnings {
				fmt.Fprintln(os.Stderr, "lifted: warning:", w)
			}
		}
		root.SetArgs(args)
		ctx, stop := handleSignals()
		err = root.ExecuteContext(ctx)
		stop()
	}
	if sig := signalled.Load(); err != nil && sig != nil && errors.Is(err, context.Canceled) {
		var ie *interruptedError
		if !errors.As(err, &ie) {
			err = &interruptedError{signalName(*sig) + ": stopped; nothing printed"}
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "lifted:", err)
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(os.Stderr, "Run '%s --help' for usage.\n", helpPath(root, called))
		}
		os.Exit(exitCode(err))
	}
}

// Exit statuses: 1 for errors, 3 when an iterative method did not converge,
// not even with its fallbacks (see infer.NotConvergedError and
// --allow-unconverged), 130 when Ctrl-C or SIGTERM interrupted the run
// (see --allow-partial).
const (
	exitNotConverged = 3
	exitInterrupted  = 130
)

func exitCode(err error) int {
	var nc *infer.NotConvergedError
	var ie *interruptedError
	switch {
	case errors.As(err, &nc):
		return exitNotConverged
	case errors.As(err, &ie), signalled.Load() != nil && errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return 1
}

// The one signal handler of every command: the first SIGINT (Ctrl-C) or
// SIGTERM cancels the command's context, which every library loop polls;
// the command then stops with its message (or, with --allow-partial, its
// answer so far) and exit status 130. A command that has not returned
// within stopGrace (partialGrace with --allow-partial: the answer so far
// is being written) is ended anyway, with a message, its temporary output
// files removed and status 130; so is one that gets a second signal.
var (
	signalled    atomic.Pointer[os.Signal]
	partialGrace atomic.Bool // set by a command given --allow-partial
)

const (
	stopGrace        = 450 * time.Millisecond
	partialStopGrace = 10 * time.Second
)

// handleSignals returns the commands' context and the function that
// stops handling signals.
func handleSignals() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-ch:
		case <-done:
			return
		}
		signalled.Store(&sig)
		cancel()
		grace := stopGrace
		if partialGrace.Load() {
			grace = partialStopGrace
		}
		t := time.NewTimer(grace)
		select {
		case <-done:
			return
		case <-ch:
		case <-t.C:
		}
		outfile.RemoveTemps()
		fmt.Fprintf(os.Stderr, "lifted: %s: ended after %v (the command had not stopped by itself); nothing printed\n", signalName(sig), grace)
		os.Exit(exitInterrupted)
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		cancel()
	}
}

// signalName names a signal as a user sends it.
func signalName(sig os.Signal) string {
	if sig == os.Interrupt {
		return "interrupted (SIGINT, Ctrl-C)"
	}
	return "terminated (SIGTERM)"
}

func newRoot() *cobra.Command { return newRootFor(nil) }

// subcommands are the constructors of the subcommands, by name and alias.
var subcommands = []struct {
	names []string
	build func() *cobra.Command
}{
	{[]string{"infer"}, newInferCmd},
	{[]string{"map"}, newMapCmd},
	{[]string{"compress"}, newCompressCmd},
	{[]string{"convert"}, newConvertCmd},
	{[]string{"count"}, newCountCmd},
	{[]string{"wfomc"}, newWfomcCmd},
	{[]string{"learn", "learnwts"}, newLearnCmd},
	{[]string{"loglik"}, newLoglikCmd},
	{[]string{"score"}, newScoreCmd},
}

// newRootFor returns the command tree for the command line args: when
// args[0] names a subcommand, the root with that subcommand alone (building
// every subcommand's flags and help texts costs about a millisecond, which
// is most of the start-up of a small "lifted count"; bench/sharpsat);
// otherwise (help, completion, a mistyped name that wants "did you mean",
// no arguments) every subcommand.
func newRootFor(args []string) *cobra.Command {
	root := &cobra.Command{
		Use:   "lifted",
		Short: "Lifted probabilistic inference and learning",
		Long: `lifted runs exact and approximate inference on discrete factor graphs and
Markov logic networks, exploiting symmetry: variables and factors that send
identical messages are handled once, as a group (colour passing, lifted BP).

Models: UAI (.uai, with .evid evidence), libDAI (.fg), DIMACS CNF (.cnf), and
Markov logic networks in Alchemy's format (.mln, with .db evidence).`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError)
	root.Version = buildinfo.Text("lifted")
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().Var(&maxMemory, "max-memory", "memory budget, e.g. 4GB or 512MB: size estimates (a grounding, a factor graph, a DIMACS header, --horizon) and text inputs beyond it are refused before allocating (default: 60% of the available memory — MemAvailable, or the control group's or ulimit -v's lower limit —, which depends on the machine's state: infer's auto then answers a grounding beyond it with lifted BP on the first-order network; set it, or --max-ground, for an answer that does not depend on free memory)")
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error {
		memlimit.Set(int64(maxMemory))
		if runtimeLimit {
			memlimit.Runtime()
		}
		return finiteFlags(c)
	}
	// The subcommands, each defined in its own file.
	only := ""
	for _, sc := range subcommands {
		if len(args) > 0 && slices.Contains(sc.names, args[0]) {
			only = args[0]
		}
	}
	for _, sc := range subcommands {
		if only == "" || slices.Contains(sc.names, only) {
			root.AddCommand(sc.build())
		}
	}
	// A named subcommand runs: cobra's completion command (four
	// subcommands and their help texts, built at every Execute) cannot be
	// the one called.
	root.CompletionOptions.DisableDefaultCmd = only != ""
	alchemyHelp(root)
	return root
}
