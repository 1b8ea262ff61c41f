package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/lifted-dev/lifted/internal/alchemyargs"
)

// alchemyArgs rewrites the arguments of "lifted infer" and "lifted learn"
// (args[0] is the subcommand) from Alchemy's and Tuffy's spellings into
// ours (alchemyargs.Rewrite); other commands' arguments are returned
// unchanged.
func alchemyArgs(root *cobra.Command, args []string) ([]string, []string, error) {
	if len(args) == 0 {
		return args, nil, nil
	}
	for _, c := range root.Commands() {
		if (c.Name() == "infer" || c.Name() == "learn") && (args[0] == c.Name() || c.HasAlias(args[0])) {
			c.InitDefaultHelpFlag()
			out, warnings, err := alchemyargs.Rewrite(c.Name(), c.Flags(), args)
			var ue *alchemyargs.UsageError
			if errors.As(err, &ue) {
				err = usageError{err}
			}
			return out, warnings, err
		}
	}
	return args, nil, nil
}

// alchemyHelp adds the Alchemy and Tuffy spellings to the help of infer and
// learn.
func alchemyHelp(root *cobra.Command) {
	for _, c := range root.Commands() {
		if h, ok := alchemyargs.Help[c.Name()]; ok {
			c.Long += "\n\n" + h
		}
	}
}
