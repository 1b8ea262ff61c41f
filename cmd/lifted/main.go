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
)

// usageError marks errors caused by how the command was called.
type usageError struct{ error }

func main() {
	root := newRoot()
	args := os.Args[1:]
	if name := invokedAs(os.Args[0]); name != "" {
		args = append([]string{name}, args...) // a link named infer or learnwts, as Alchemy's programs
	}
	args, warnings, err := alchemyArgs(root, args)
	if err == nil {
		if !quietIn(args) {
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
			fmt.Fprintln(os.Stderr, "Run 'lifted --help' for usage.")
		}
		os.Exit(1)
	}
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	// Every subcommand, each defined in its own file.
	root.AddCommand(
		newInferCmd(),
		newCompressCmd(),
		newCountCmd(),
		newWfomcCmd(),
		newLearnCmd(),
		newLoglikCmd(),
	)
	alchemyHelp(root)
	return root
}
