package main

import (
	"context"
	"fmt"
	"runtime/debug"
	"strings"
)

// runVersion is `zklock version` (and `zklock --version`).
func runVersion(_ context.Context, g *globals, args []string, io stdio) error {
	pos, err := parseInterleaved(g.flagSet("version"), args)
	if err != nil {
		return helpOrUsage(err, "version", io)
	}
	if len(pos) != 0 {
		return usageErr("version", "unexpected arguments %q", pos)
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(io.out, versionLine(info))
	return nil
}

// versionLine is zklock's version from its build info: the module version ("v1.2.3" when
// installed with go install ...@v1.2.3, "(devel)" or a pseudo-version when built from a
// checkout), then the checkout's revision, commit time and whether it had local changes, then
// the Go version.
func versionLine(info *debug.BuildInfo) string {
	if info == nil {
		return "zklock (unknown version: no build information)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	parts := []string{"zklock", v}
	vcs := map[string]string{}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	if rev := vcs["vcs.revision"]; rev != "" {
		parts = append(parts, "revision", rev[:min(len(rev), 12)])
		if t := vcs["vcs.time"]; t != "" {
			parts = append(parts, t)
		}
		if vcs["vcs.modified"] == "true" {
			parts = append(parts, "modified")
		}
	}
	if info.GoVersion != "" {
		parts = append(parts, "("+info.GoVersion+")")
	}
	return strings.Join(parts, " ")
}
