// Command zklock runs commands under ZooKeeper locks that share Apache
// Curator 5's znode layout, lists lock holders, and demonstrates the locks.
//
//	zklock exec [--read | --write | --semaphore N] [--kazoo] [--timeout D] [--try] PATH -- CMD ARGS...
//	zklock exec [--read | --write] [--timeout D] [--try] PATH PATH... -- CMD ARGS...
//	zklock lock [--read | --write | --semaphore N] [--kazoo] [--timeout D] [--try] PATH
//	zklock elect [--id ID] [--kill-grace D] PATH -- CMD ARGS...
//	zklock elect --listen PATH
//	zklock holders PATH [--json]
//	zklock revoke NODE
//	zklock demo
//	zklock dev-server [--port N] [--ensemble N]
//	zklock version
//	zklock help [COMMAND]
//
// Servers come from --servers or $ZK_SERVERS. Run 'zklock help' for the
// flags and the exit codes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == guardianArg {
		os.Exit(runGuardian(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == gateArg {
		os.Exit(runGate(os.Args[2:]))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	env := stdio{out: os.Stdout, err: os.Stderr, getenv: os.Getenv}
	code := exitCode(reportErr(env.err, run(ctx, os.Args[1:], env)))
	stop()
	os.Exit(code)
}

// stdio is where a command writes and how it reads the environment.
type stdio struct {
	out, err io.Writer
	getenv   func(string) string
}

// command is one zklock subcommand.
type command struct {
	name  string
	short string // one line for the command list
	usage string // the full help: synopsis, description, example
	run   func(ctx context.Context, g *globals, args []string, io stdio) error
}

// commands lists zklock's subcommands in the order help shows them.
func commands() []command {
	return []command{
		{"exec", "run a command while holding a lock, a read or write lock, or a semaphore lease", execUsage, runExec},
		{"lock", "hold a lock (or a read/write lock, a semaphore lease) until a signal", lockUsage, runLock},
		{"elect", "run a command while this process is the leader of an election; --listen: watch who leads", electUsage, runElect},
		{"holders", "list a lock's holders, then its queue", holdersUsage, runHolders},
		{"revoke", "ask the holder of a lock node to release it", revokeUsage, runRevoke},
		{"demo", "contending workers on one lock, a lost lock and a fenced resource", demoUsage, runDemo},
		{"dev-server", "start a throwaway local ZooKeeper for development; print its connect string", devServerUsage, runDevServer},
		{"version", "print zklock's version (also: zklock --version)", versionUsage, runVersion},
	}
}

// run parses the global flags and dispatches to the command.
func run(ctx context.Context, args []string, io stdio) error {
	g := newGlobals(io.getenv)
	fs := g.flagSet("zklock")
	version := fs.Bool("version", false, "")
	if err := fs.Parse(args); err != nil {
		return helpOrUsage(err, "", io)
	}
	args = fs.Args()
	if *version {
		return runVersion(ctx, g, args, io)
	}
	if len(args) == 0 {
		fmt.Fprint(io.err, mainUsage())
		return usageErr("", "no command given")
	}
	name, rest := args[0], args[1:]
	if name == "help" {
		return runHelp(rest, io)
	}
	for _, c := range commands() {
		if c.name == name {
			std, log := logStderr(io)
			return log.once(c.run(ctx, g, rest, std)) // an error printed already is not printed twice
		}
	}
	names := []string{}
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return usageErr("", "unknown command %q (commands: %s, help)", name, strings.Join(names, ", "))
}

// runHelp prints the main usage or one command's, to stdout.
func runHelp(args []string, io stdio) error {
	if len(args) == 0 {
		fmt.Fprint(io.out, mainUsage())
		return nil
	}
	for _, c := range commands() {
		if c.name == args[0] {
			fmt.Fprint(io.out, c.usage+"\n"+globalFlagsHelp+"\nExit codes: see 'zklock help'.\n")
			return nil
		}
	}
	return usageErr("", "no help for unknown command %q", args[0])
}

// helpOrUsage turns a flag parsing error into the usage on stdout and exit
// 0 for -h/--help, or a usage error.
func helpOrUsage(err error, cmd string, io stdio) error {
	if errors.Is(err, flag.ErrHelp) {
		return runHelp([]string{cmd}[:min(len(cmd), 1)], io)
	}
	return usageErr(cmd, "%s", flagMessage(err))
}

// reportErr prints err on w, on one line with every control and bidi character escaped
// (safeLine), unless it carries no message, and returns it.
func reportErr(w io.Writer, err error) error {
	var ee *exitError
	if err == nil || (errors.As(err, &ee) && ee.err == nil) {
		return err
	}
	fmt.Fprintln(w, "zklock:", safeLine(err.Error())) // it may carry node names any client chose
	return err
}
