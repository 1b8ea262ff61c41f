package buildinfo

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	for _, c := range []struct {
		version  string
		settings []debug.BuildSetting
		want     string
	}{
		{"(devel)", []debug.BuildSetting{{Key: "vcs.revision", Value: "1d6b4322900d4161fb178238e17a39fcf4fbb4e2"}, {Key: "vcs.time", Value: "2026-12-07T06:40:35Z"}, {Key: "vcs.modified", Value: "true"}},
			"lifted (devel)\ncommit 1d6b4322900d4161fb178238e17a39fcf4fbb4e2 of 2026-12-07T06:40:35Z, with uncommitted changes\nbuilt with go1.26.8"},
		{"v0.0.0-20261207064035-1d6b4322900d", nil, "lifted v0.0.0-20261207064035-1d6b4322900d\ncommit 1d6b4322900d of 2026-12-07T06:40:35Z\nbuilt with go1.26.8"},
		{"v1.2.4-0.20261207064035-1d6b4322900d+incompatible", nil, "commit 1d6b4322900d of 2026-12-07T06:40:35Z"},
		{"v1.2.3-pre.0.20261207064035-1d6b4322900d", nil, "commit 1d6b4322900d of 2026-12-07T06:40:35Z"},
		{"v1.2.3", nil, "lifted v1.2.3\n" + Unknown},
		{"", nil, "lifted (devel)\n" + Unknown},
		{"v1.2.3-rc1", nil, Unknown},
	} {
		got := Of("lifted", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: c.version}, Settings: c.settings})
		if !strings.Contains(got, c.want) {
			t.Errorf("%q %v: %q, want %q in it", c.version, c.settings, got, c.want)
		}
	}
}
