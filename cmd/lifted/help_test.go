package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// helpSections runs "lifted CMD --help" and returns each listed flag's
// section title ("Flags", "Flags of smd", …).
func helpSections(t *testing.T, cmd string) (map[string]string, string) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{cmd, "--help"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	flagLine := regexp.MustCompile(`^\s+(?:-\w, )?--([\w-]+)`)
	sections := map[string]string{}
	title := ""
	for _, line := range strings.Split(text[strings.Index(text, "\nFlags:\n"):], "\n") {
		if strings.HasPrefix(line, "Flags") && strings.HasSuffix(line, ":") {
			title = strings.TrimSuffix(line, ":")
		} else if m := flagLine.FindStringSubmatch(line); m != nil && title != "" {
			if _, dup := sections[m[1]]; dup {
				t.Errorf("%s --help lists --%s twice", cmd, m[1])
			}
			sections[m[1]] = title
		}
	}
	return sections, text
}

// Every command's help lists each of its flags once; map's names no
// sampler flag; learn's says which methods each flag applies to.
func TestHelpFlagsApply(t *testing.T) {
	root := newRoot()
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		sections, _ := helpSections(t, c.Name())
		c.InitDefaultHelpFlag()
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if _, ok := sections[f.Name]; !ok {
				t.Errorf("%s --help does not list --%s", c.Name(), f.Name)
			}
		})
	}
	sections, text := helpSections(t, "map")
	for _, f := range []string{"samples", "burn-in", "chains", "block-size", "block-states", "dynamic", "horizon", "max-product"} {
		if _, ok := sections[f]; ok {
			t.Errorf("map --help lists --%s", f)
		}
	}
	if flags := text[strings.Index(text, "\nFlags:\n"):]; strings.Contains(flags, "sampler") || strings.Contains(flags, "gibbs") {
		t.Errorf("map --help's flags mention samplers:\n%s", flags)
	}
	if s := sections["relaxation"]; s != "Flags of --method lp, ilp" {
		t.Errorf("map: --relaxation under %q", s)
	}
	sections, _ = helpSections(t, "infer")
	if s := sections["samples"]; !strings.Contains(s, "gibbs") || strings.Contains(s, "lbp") {
		t.Errorf("infer: --samples under %q", s)
	}
	if _, ok := sections["relaxation"]; ok {
		t.Error("infer --help lists map's --relaxation")
	}
	sections, _ = helpSections(t, "learn")
	for flag, want := range map[string]string{
		"method": "Flags", "input": "Flags", "train": "Flags", "output": "Flags",
		"pll-unweighted": "Flags of pll",
		"tol":            "Flags of lwl, pll, scg and lbfgs-bp",
		"max-iter":       "Flags of lwl, pll, disc, dn, dscg, vp, scg and lbfgs-bp",
		"prior-mean":     "Flags of lwl, pll, disc, dn, dscg and vp",
		"learning-rate":  "Flags of vp",
		"counts":         "Flags of disc, dn, dscg and vp",
		"ne":             "Flags of disc, dn, dscg, vp, smd, sgd, scg and lbfgs-bp",
		"seed":           "Flags of disc, dn, dscg, vp, smd, sgd, scg and lbfgs-bp",
		"holdout":        "Flags of smd, sgd, scg and lbfgs-bp",
		"shards":         "Flags of smd, sgd, scg and lbfgs-bp",
		"pieces":         "Flags of smd and sgd",
		"smd-mu":         "Flags of smd",
	} {
		if sections[flag] != want {
			t.Errorf("learn: --%s under %q, want %q", flag, sections[flag], want)
		}
	}
	sections, _ = helpSections(t, "count")
	if sections["recolour"] != "Flags of --method lbpcount" || sections["trials"] != "Flags of --method bpcount, lbpcount" || sections["timeout"] != "Flags" {
		t.Errorf("count: %v", sections)
	}
}

// The command line's subcommand alone is built when args[0] names it (by
// name or alias); help, completion, mistyped names and no arguments get
// every subcommand.
func TestNewRootForBuildsTheNamedSubcommand(t *testing.T) {
	names := func(args ...string) []string {
		var out []string
		for _, c := range newRootFor(args).Commands() {
			if c.Name() != "help" && c.Name() != "completion" {
				out = append(out, c.Name())
			}
		}
		return out
	}
	for _, tc := range []struct {
		args []string
		want int
		only string
	}{
		{[]string{"count", "x.cnf"}, 1, "count"},
		{[]string{"learnwts", "-i", "m.mln"}, 1, "learn"},
		{[]string{"infer"}, 1, "infer"},
		{[]string{"help", "count"}, len(subcommands), ""},
		{[]string{"cout"}, len(subcommands), ""},
		{nil, len(subcommands), ""},
	} {
		got := names(tc.args...)
		if len(got) != tc.want || tc.only != "" && got[0] != tc.only {
			t.Errorf("newRootFor(%q): subcommands %v", tc.args, got)
		}
	}
}
