package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/lifted-dev/lifted/engine"
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

// prefixed are the names of the flags whose help starts with prefix
// ("MLN:"), as a group.
func prefixed(cmd *cobra.Command, title, prefix string) flagGroup {
	g := flagGroup{title: title}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if strings.HasPrefix(f.Usage, prefix) {
			g.names = append(g.names, f.Name)
		}
	})
	return g
}

// settingGroups groups the method settings of mode by the methods that
// have them (engine.SettingMethods).
func settingGroups(mode engine.Mode) []flagGroup {
	var gs []flagGroup
	at := map[string]int{}
	for _, s := range engine.Settings {
		if !s.In(mode) {
			continue
		}
		ms := engine.SettingMethods(mode, s.Name)
		t := "Flags of --method " + strings.Join(ms, ", ")
		if i, ok := at[t]; ok {
			gs[i].names = append(gs[i].names, s.Name)
			continue
		}
		at[t] = len(gs)
		gs = append(gs, flagGroup{t, []string{s.Name}})
	}
	return gs
}
