// Command lifted runs lifted probabilistic inference and learning on factor
// graphs (UAI, libDAI, DIMACS CNF) and Markov logic networks.
//
// Run "lifted --help" for the subcommands.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/infer"
	"github.com/lifted-dev/lifted/internal/alchemyargs"
)

// usageError marks errors caused by how the command was called.
type usageError struct{ error }

func main() {
	root := newRoot()
	args := os.Args[1:]
	if name := alchemyargs.InvokedAs(os.Args[0]); name != "" {
		args = append([]string{name}, args...) // a link named infer or learnwts, as Alchemy's programs
	}
	called := args
	args, warnings, err := alchemyArgs(root, args)
	if err == nil {
		if !alchemyargs.QuietIn(args) {
			for _, w := range warnings {
				fmt.Fprintln(os.Stderr, "lifted: warning:", w)
			}
		}
		root.SetArgs(args)
		err = root.Execute()
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
// --allow-unconverged), 130 when Ctrl-C interrupted the run (see
// --allow-partial).
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
	case errors.As(err, &ie):
		return exitInterrupted
	}
	return 1
}

func newRoot() *cobra.Command {
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
	root.Version = version()
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentPreRunE = func(c *cobra.Command, _ []string) error { return finiteFlags(c) }
	// Every subcommand, each defined in its own file.
	root.AddCommand(
		newInferCmd(),
		newMapCmd(),
		newCompressCmd(),
		newConvertCmd(),
		newCountCmd(),
		newWfomcCmd(),
		newLearnCmd(),
		newLoglikCmd(),
		newScoreCmd(),
	)
	alchemyHelp(root)
	return root
}
