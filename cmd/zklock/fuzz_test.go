package main

import (
	"io"
	"strings"
	"testing"
)

// FuzzFlags parses an arbitrary command line (arguments separated by NUL) with the global flags
// and with every command's own parser, as zklock does before it connects: none may panic. Nothing
// connects or runs: only the parsers are called.
func FuzzFlags(f *testing.F) {
	for _, s := range []string{
		"", "--servers\x00127.0.0.1:2181\x00/p", "--timeout\x005\x00/p\x00--\x00true",
		"--semaphore\x000\x00/p\x00--\x00x", "--read\x00--write\x00/p", "--auth\x00:pw\x00/p",
		"--namespace\x00/a//b\x00/p", "--kill-grace\x00-1s\x00/p\x00--", "--error-policy\x00x",
		"/a\x00/b\x00--json", "--id\x00\u202e\x00/p\x00--\x00sh", "--port\x0099999", "--ensemble\x00-3",
		"--session-timeout\x001e300h", "-h", "--\x00--",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		g := newGlobals(func(string) string { return "" })
		if _, err := parseInterleaved(g.flagSet("holders"), args); err == nil {
			_, _ = g.options(io.Discard)
		}
		_, _ = parseExec(newGlobals(noEnv), args)
		_, _ = parseLock(newGlobals(noEnv), args)
		_, _ = parseElect(newGlobals(noEnv), args)
		_, _ = parseDemo(newGlobals(noEnv), args)
		_, _ = parseDevServer(newGlobals(noEnv), args)
		_ = checkPaths(args...)
	})
}

// noEnv is an empty environment.
func noEnv(string) string { return "" }
