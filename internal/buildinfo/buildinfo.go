// Package buildinfo words what a binary knows of its own build for
// --version: the module version, the commit and the Go version.
//
// The commit comes from the VCS settings that go build records
// (vcs.revision, vcs.time, vcs.modified) or, without them, from the
// module's pseudo-version (go install module@version records
// v0.0.0-YYYYMMDDhhmmss-COMMIT12 and no VCS settings). Nothing records it
// for go run, for go build with -buildvcs=false (GOFLAGS may set it), or
// for go build in a git worktree (.git a file, which go's VCS stamping
// does not recognise): the text then says so.
package buildinfo

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Text is the version text of the running binary, named name.
func Text(name string) string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return name + " (no build information)"
	}
	return Of(name, bi)
}

// Unknown is the commit line when nothing recorded it.
const Unknown = "commit unknown (not recorded: go run, go build with -buildvcs=false (see go env GOFLAGS), or a build in a git worktree; go build in a clone records it)"

// Of is the version text of a binary with build information bi: three
// lines, the module version, the commit and the Go version.
func Of(name string, bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		rev, when = pseudo(v)
	}
	commit := Unknown
	if rev != "" {
		commit = "commit " + rev
		if when != "" {
			commit += " of " + when
		}
		if modified == "true" {
			commit += ", with uncommitted changes"
		}
	}
	return fmt.Sprintf("%s %s\n%s\n%s", name, v, commit, "built with "+bi.GoVersion)
}

// pseudo returns the commit prefix and its time of a pseudo-version
// (vX.Y.Z-[pre.]YYYYMMDDhhmmss-abcdef123456, possibly +incompatible), or
// "" for another version.
func pseudo(v string) (commit, when string) {
	v, _, _ = strings.Cut(v, "+")
	i := strings.LastIndexByte(v, '-')
	if i < 0 {
		return "", ""
	}
	rev, rest := v[i+1:], v[:i]
	j := max(strings.LastIndexByte(rest, '-'), strings.LastIndexByte(rest, '.'))
	if j < 0 || len(rev) != 12 || !isDigits(rest[j+1:], 14) || strings.Trim(rev, "0123456789abcdef") != "" {
		return "", ""
	}
	t := rest[j+1:]
	return rev, fmt.Sprintf("%s-%s-%sT%s:%s:%sZ", t[0:4], t[4:6], t[6:8], t[8:10], t[10:12], t[12:14])
}

func isDigits(s string, n int) bool {
	return len(s) == n && strings.Trim(s, "0123456789") == ""
}
