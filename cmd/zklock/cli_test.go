package main

import (
	"flag"
	"strings"
	"testing"
	"time"
)

func TestHelpExitsZero(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"help"}, "Commands:"},
		{[]string{"-h"}, "Commands:"},
		{[]string{"--help"}, "Exit codes:"},
		{[]string{"help", "exec"}, "ZKLOCK_TOKEN"},
		{[]string{"exec", "-h"}, "Usage: zklock exec"},
		{[]string{"exec", "--help"}, "Examples:"},
		{[]string{"help", "holders"}, "Usage: zklock holders"},
		{[]string{"holders", "-h"}, "zklock holders /locks/backup"},
		{[]string{"revoke", "--help"}, "Usage: zklock revoke"},
		{[]string{"help"}, "elect       run a command while this process is the leader"},
		{[]string{"help", "elect"}, "ZKLOCK_ID"},
		{[]string{"elect", "-h"}, "Usage: zklock elect"},
		{[]string{"demo", "-h"}, "Usage: zklock demo"},
		{[]string{"dev-server", "-h"}, "Usage: zklock dev-server"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := runZklock(t, tt.args...)
			if code != exitOK || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, stdout lacks %q:\n%s\nstderr:\n%s", code, tt.want, out, errOut)
			}
		})
	}
}

// Every documented exit code that needs no server, and the message.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "no command"},
		{"unknown command", []string{"elekt", "/p"}, `unknown command "elekt"`},
		{"unknown flag", []string{"exec", "--bogus", "/p", "--", "true"}, "bogus"},
		{"no dashes", []string{"--servers", "127.0.0.1:1", "exec", "/p", "true"}, "missing '--'"},
		{"no command after dashes", []string{"--servers", "127.0.0.1:1", "exec", "/p", "--"}, "no command after"},
		{"a set with a semaphore", []string{"--servers", "127.0.0.1:1", "exec", "--semaphore", "2", "/p", "/q", "--", "true"}, "several PATHs"},
		{"a set with --revocable", []string{"--servers", "127.0.0.1:1", "exec", "--revocable", "/p", "/q", "--", "true"}, "several PATHs"},
		{"read and write", []string{"--servers", "127.0.0.1:1", "exec", "--read", "--write", "/p", "--", "true"}, "exclude each other"},
		{"negative semaphore", []string{"--servers", "127.0.0.1:1", "exec", "--semaphore", "-1", "/p", "--", "true"}, `invalid value "-1" for flag --semaphore`},
		{"no servers", []string{"exec", "/p", "--", "true"}, "ZK_SERVERS"},
		{"bad policy", []string{"--servers", "127.0.0.1:1", "--error-policy", "x", "holders", "/p"}, "--error-policy"},
		{"bad auth", []string{"--servers", "127.0.0.1:1", "--auth", "nopassword", "holders", "/p"}, "user:password"},
		{"bad namespace", []string{"--servers", "127.0.0.1:1", "--namespace", "a//b", "holders", "/p"}, "namespace"},
		{"bad timeout", []string{"--servers", "127.0.0.1:1", "--session-timeout", "0s", "holders", "/p"}, "--session-timeout"},
		{"revocable semaphore", []string{"--servers", "127.0.0.1:1", "exec", "--revocable", "--semaphore", "2", "/p", "--", "true"}, "--revocable"},
		{"holders without path", []string{"--servers", "127.0.0.1:1", "holders"}, "want a lock PATH"},
		{"revoke without node", []string{"--servers", "127.0.0.1:1", "revoke"}, "one lock NODE"},
		{"demo with argument", []string{"demo", "extra"}, "unexpected arguments"},
		{"dev-server ensemble 0", []string{"dev-server", "--ensemble", "0"}, "--ensemble 0"},
		{"help for unknown", []string{"help", "elekt"}, "unknown command"},
		{"elect no dashes", []string{"--servers", "127.0.0.1:1", "elect", "/p", "true"}, "missing '--'"},
		{"elect two paths", []string{"--servers", "127.0.0.1:1", "elect", "/p", "/q", "--", "true"}, "one election PATH"},
		{"elect no command", []string{"--servers", "127.0.0.1:1", "elect", "--id", "a", "/p", "--"}, "no command after"},
		{"elect negative grace", []string{"--servers", "127.0.0.1:1", "elect", "--kill-grace", "-1s", "/p", "--", "true"}, "--kill-grace"},
		{"elect unknown flag", []string{"--servers", "127.0.0.1:1", "elect", "--read", "/p", "--", "true"}, "read"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runZklock(t, append([]string{"--verbose"}, tt.args...)...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d (want %d), stderr lacks %q:\n%s", code, exitUsage, tt.want, errOut)
			}
			if strings.Contains(errOut, "connecting to") {
				t.Fatalf("a usage error connected first:\n%s", errOut)
			}
		})
	}
}

// A wrong address fails, at once when refused, naming the address.
func TestConnectFailure(t *testing.T) {
	for _, cmd := range [][]string{{"holders", "/p"}, {"exec", "/p", "--", "true"}, {"revoke", "/p/lock-0000000001"}} {
		t.Run(cmd[0], func(t *testing.T) {
			args := append([]string{"--servers", "127.0.0.1:1", "--connect-timeout", "1s"}, cmd...)
			p := startZklock(t, args...)
			code := p.wait(t, 30*time.Second)
			errOut := p.stderr.String()
			if code != exitConnect {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitConnect, errOut)
			}
			if !strings.Contains(errOut, "refused the connection: tried 127.0.0.1:1 (dial tcp 127.0.0.1:1: connect: connection refused)") {
				t.Fatalf("stderr does not say what it tried:\n%s", errOut)
			}
		})
	}
}

// Every flag a command accepts is in its help, and every global flag in
// the global flags' help.
func TestUsageListsEveryFlag(t *testing.T) {
	g := newGlobals(func(string) string { return "" })
	sets := []struct {
		usage string
		fs    *flag.FlagSet
	}{
		{globalFlagsHelp, g.flagSet("zklock")},
		{execUsage, execFlags(g, &execOptions{})},
		{lockUsage, lockFlags(g, &execOptions{})},
		{electUsage, electFlags(g, &electOptions{})},
		{demoUsage, demoFlags(g, &demoConfig{})},
		{devServerUsage, devServerFlags(g, &devServerOptions{})},
	}
	for _, s := range sets {
		global := s.fs.Name() != "zklock"
		s.fs.VisitAll(func(f *flag.Flag) {
			if global && g.flagSet("x").Lookup(f.Name) != nil {
				return
			}
			if !strings.Contains(s.usage, "--"+f.Name+" ") {
				t.Errorf("%s: --%s is not in its help", s.fs.Name(), f.Name)
			}
		})
	}
	if !strings.Contains(holdersUsage, "--json") {
		t.Error("holders: --json is not in its help")
	}
}

// flagCase is a zklock run that must end in a usage error whose message contains want.
type flagCase struct {
	name string
	args []string
	want string
}

// checkFlagErrors runs each case with an unreachable server and a short --connect-timeout: it
// must exit 64 at once, naming what was wrong, without connecting first.
func checkFlagErrors(t *testing.T, cases []flagCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--verbose", "--servers", "127.0.0.1:1", "--connect-timeout", "1s"}, tt.args...)
			_, errOut, code := runZklock(t, args...)
			if code != exitUsage || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d (want %d), stderr lacks %q:\n%s", code, exitUsage, tt.want, errOut)
			}
			if strings.Contains(errOut, "connecting") {
				t.Fatalf("a usage error connected first:\n%s", errOut)
			}
		})
	}
}

// Every numeric flag refuses 0, a negative number and a non-number with a usage error that
// names the flag (issue 17.1: --semaphore 0 used to take a plain mutex and exit 0).
func TestNumericFlags(t *testing.T) {
	var cases []flagCase
	for _, v := range []string{"0", "-1", "x", "1.5"} {
		cases = append(cases,
			flagCase{"semaphore " + v, []string{"exec", "--semaphore", v, "/p", "--", "true"}, "--semaphore"},
			flagCase{"demo workers " + v, []string{"demo", "--workers", v}, "--workers"},
			flagCase{"demo rounds " + v, []string{"demo", "--rounds", v}, "--rounds"},
		)
	}
	checkFlagErrors(t, cases)
}

// Every duration flag refuses a number without a unit, saying that a unit is needed, and 0
// or a negative duration, naming the flag (issue 17.3).
func TestDurationFlags(t *testing.T) {
	flags := []struct {
		flag string
		args func(v string) []string
	}{
		{"--timeout", func(v string) []string { return []string{"exec", "--timeout", v, "/p", "--", "true"} }},
		{"--kill-grace", func(v string) []string { return []string{"exec", "--kill-grace", v, "/p", "--", "true"} }},
		{"--kill-grace", func(v string) []string { return []string{"elect", "--kill-grace", v, "/p", "--", "true"} }},
		{"--session-timeout", func(v string) []string { return []string{"--session-timeout", v, "holders", "/p"} }},
		{"--connect-timeout", func(v string) []string { return []string{"revoke", "--connect-timeout", v, "/p/lock-0000000001"} }},
		{"--work", func(v string) []string { return []string{"demo", "--work", v} }},
	}
	var cases []flagCase
	for _, f := range flags {
		cases = append(cases,
			flagCase{f.args("5")[0] + " " + f.flag + " 5", f.args("5"), f.flag + ": a duration needs a unit, such as 5s or 1m"},
			flagCase{f.args("5")[0] + " " + f.flag + " 0", f.args("0"), f.flag},
			flagCase{f.args("5")[0] + " " + f.flag + " -1s", f.args("-1s"), f.flag},
			flagCase{f.args("5")[0] + " " + f.flag + " soon", f.args("soon"), f.flag},
		)
	}
	checkFlagErrors(t, cases)
}

// A relative or otherwise invalid path is a usage error found before connecting (issue 17.4:
// it failed with exit 70 after connecting).
func TestInvalidPathIsUsageError(t *testing.T) {
	checkFlagErrors(t, []flagCase{
		{"exec relative", []string{"exec", "locks/backup", "--", "true"}, "locks/backup"},
		{"exec trailing slash", []string{"exec", "/locks/backup/", "--", "true"}, "/locks/backup/"},
		{"exec set relative", []string{"exec", "/locks/a", "b", "--", "true"}, `"b"`},
		{"elect relative", []string{"elect", "elections/x", "--", "true"}, "elections/x"},
		{"holders relative", []string{"holders", "locks/backup"}, "locks/backup"},
		{"revoke relative", []string{"revoke", "locks/backup/lock-0000000001"}, "locks/backup/lock-0000000001"},
		{"revoke lock directory", []string{"revoke", "/locks/backup"}, "not a contender node"},
	})
}
