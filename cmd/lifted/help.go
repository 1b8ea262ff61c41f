package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Flags that apply to some methods only are listed in groups titled with
// those methods, after the flags that apply to every method.

func init() { cobra.AddTemplateFunc("flagGroups", flagGroups) }

// flagGroup is a title ("Flags of lwl and pll") and the names of its flags.
type flagGroup struct {
	title string
	names []string
}

// groupFlags lists cmd's flags in groups in its help (flags in no group
// first, under "Flags").
func groupFlags(cmd *cobra.Command, groups ...flagGroup) {
	titles := make([]string, len(groups))
	for i, g := range groups {
		titles[i] = g.title
		for _, n := range g.names {
			if err := cmd.Flags().SetAnnotation(n, "group", []string{g.title}); err != nil {
				panic(err) // a flag renamed without its group
			}
		}
	}
	cmd.Annotations = map[string]string{"flagGroups": strings.Join(titles, "\n")}
	cmd.SetUsageTemplate(strings.Replace(cmd.UsageTemplate(), "{{.LocalFlags.FlagUsages | trimTrailingWhitespaces}}", "{{flagGroups .}}", 1))
}

// flagGroups is the flags part of a grouped help.
func flagGroups(cmd *cobra.Command) string {
	sets := map[string]*pflag.FlagSet{"": pflag.NewFlagSet("", pflag.ContinueOnError)}
	titles := strings.Split(cmd.Annotations["flagGroups"], "\n")
	for _, t := range titles {
		sets[t] = pflag.NewFlagSet(t, pflag.ContinueOnError)
	}
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		g := f.Annotations["group"]
		if len(g) == 0 {
			sets[""].AddFlag(f)
		} else {
			sets[g[0]].AddFlag(f)
		}
	})
	out := strings.TrimRight(sets[""].FlagUsages(), " \n")
	for _, t := range titles {
		out += "\n\n" + t + ":\n" + strings.TrimRight(sets[t].FlagUsages(), " \n")
	}
	return out
}
