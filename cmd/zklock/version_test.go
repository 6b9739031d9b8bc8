package main

import (
	"debug/buildinfo"
	"runtime/debug"
	"strings"
	"testing"
)

// zklock --version and zklock version print the version from the binary's own build info
// (issue 17.7). Whether that names a revision depends on how it was built (go build
// -buildvcs in a checkout); TestVersionLine covers each form.
func TestVersion(t *testing.T) {
	info, err := buildinfo.ReadFile(zklockBin)
	if err != nil {
		t.Fatal(err)
	}
	want := versionLine(info) + "\n"
	if !strings.HasPrefix(want, "zklock (devel) ") && !strings.HasPrefix(want, "zklock v") {
		t.Fatalf("version line %q", want)
	}
	for _, args := range [][]string{{"--version"}, {"version"}, {"--servers", "x:1", "--version"}} {
		out, errOut, code := runZklock(t, args...)
		if code != 0 || out != want {
			t.Fatalf("zklock %v: exit %d, stdout %q, want %q; stderr:\n%s", args, code, out, want, errOut)
		}
	}
}

// versionLine prefers the module version, and names the revision of a build from a checkout.
func TestVersionLine(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"},
		{Key: "vcs.time", Value: "2026-11-24T18:00:00Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tt := range []struct {
		info *debug.BuildInfo
		want string
	}{
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}}, "zklock v1.2.3 (go1.26.8)"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			"zklock (devel) revision 0123456789ab 2026-11-24T18:00:00Z modified (go1.26.8)"},
		{&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261124180000-0123456789ab+dirty"}, Settings: vcs},
			"zklock v0.0.0-20261124180000-0123456789ab+dirty revision 0123456789ab 2026-11-24T18:00:00Z modified (go1.26.8)"},
		{nil, "zklock (unknown version: no build information)"},
	} {
		if got := versionLine(tt.info); got != tt.want {
			t.Errorf("versionLine = %q, want %q", got, tt.want)
		}
	}
}
