package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// globals are the flags every command accepts, before or after its name.
type globals struct {
	servers        string
	namespace      string
	auth           string
	authFile       string // --auth-file
	authEnv        string // $ZKLOCK_AUTH
	authFileEnv    string // $ZKLOCK_AUTH_FILE
	acl            string // --acl: creator, creator-read or open; "" chooses (see aclOptions)
	sessionTimeout time.Duration
	connectTimeout time.Duration
	verbose        bool
	errorPolicy    string
	tls            tlsFlags // --cacert, --cert, --key (tlsflags.go)
	protectedTag   string   // marks the GUIDs of the command's nodes (elect: electTag), or ""
}

// Defaults of the global flags.
const (
	// defaultConnectTimeout: long enough for a loaded ensemble, short enough
	// that a wrong address is reported while the operator still watches.
	defaultConnectTimeout = 15 * time.Second
)

func newGlobals(getenv func(string) string) *globals {
	return &globals{
		servers:        getenv("ZK_SERVERS"),
		authEnv:        getenv(envAuth),
		authFileEnv:    getenv(envAuthFile),
		sessionTimeout: framework.DefaultSessionTimeout,
		connectTimeout: defaultConnectTimeout,
		errorPolicy:    "standard",
		tls:            newTLSFlags(getenv),
	}
}

// flagSet returns a FlagSet named name holding the global flags; parse
// errors are reported by the caller, not printed by the FlagSet.
func (g *globals) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&g.servers, "servers", g.servers, "")
	fs.StringVar(&g.namespace, "namespace", g.namespace, "")
	fs.StringVar(&g.auth, "auth", g.auth, "")
	fs.StringVar(&g.authFile, "auth-file", g.authFile, "")
	fs.StringVar(&g.acl, "acl", g.acl, "")
	fs.Var((*durationFlag)(&g.sessionTimeout), "session-timeout", "")
	fs.Var((*durationFlag)(&g.connectTimeout), "connect-timeout", "")
	fs.BoolVar(&g.verbose, "verbose", g.verbose, "")
	fs.StringVar(&g.errorPolicy, "error-policy", g.errorPolicy, "")
	g.tls.register(fs)
	return fs
}

// parseInterleaved parses fs from args, allowing flags after positional
// arguments (zklock holders /p --json); it returns the positional ones.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// serverList splits the comma separated servers.
func (g *globals) serverList() []string {
	var out []string
	for _, s := range strings.Split(g.servers, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// options turns the global flags into framework options.
func (g *globals) options(stderr io.Writer) ([]framework.Option, error) {
	// The library's log is for --verbose only: without it zklock says, in its own words, what
	// the user must act on (a failed connection, a lost lock), and nothing else.
	log := slog.New(slog.DiscardHandler)
	if g.verbose {
		log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	opts := []framework.Option{
		framework.WithSessionTimeout(g.sessionTimeout),
		framework.WithConnectionTimeout(g.connectTimeout),
		framework.WithNamespace(strings.Trim(g.namespace, "/")),
		framework.WithLogger(log),
	}
	if g.protectedTag != "" {
		opts = append(opts, framework.WithProtectedTag(g.protectedTag))
	}
	switch g.errorPolicy {
	case "standard":
	case "session":
		opts = append(opts, framework.WithErrorPolicy(framework.SessionPolicy))
	default:
		return nil, fmt.Errorf("--error-policy %q: want standard or session", g.errorPolicy)
	}
	if ns := strings.Trim(g.namespace, "/"); ns != "" {
		if err := framework.ValidatePath("/" + ns); err != nil {
			return nil, fmt.Errorf("--namespace: %w", err)
		}
	}
	acl, err := g.aclOptions()
	if err != nil {
		return nil, err
	}
	tlsOpt, err := g.tls.option()
	if err != nil {
		return nil, err
	}
	if tlsOpt != nil {
		opts = append(opts, tlsOpt)
	}
	opts = append(opts, acl...)
	if g.sessionTimeout <= 0 || g.connectTimeout <= 0 {
		return nil, errors.New("--session-timeout and --connect-timeout must be positive")
	}
	return opts, nil
}

// connect opens a framework on the servers and waits, at most
// --connect-timeout, for a session. cmd names the command for usage errors.
func (g *globals) connect(ctx context.Context, cmd string, io stdio) (*framework.Framework, error) {
	servers := g.serverList()
	if len(servers) == 0 {
		return nil, usageErr(cmd, "no ZooKeeper servers: set --servers host:port,... or $ZK_SERVERS")
	}
	opts, err := g.options(io.err)
	if err != nil {
		return nil, usageErr(cmd, "%v", err)
	}
	if g.verbose {
		fmt.Fprintf(io.err, "zklock: connecting to %s (timeout %v)\n", strings.Join(servers, ","), g.connectTimeout)
	}
	if err := refusedEverywhere(ctx, servers); err != nil {
		return nil, withCode(exitConnect, err)
	}
	fw, err := framework.New(servers, opts...)
	if errors.Is(err, framework.ErrInvalidOption) {
		return nil, usageErr(cmd, "%v", err)
	}
	if err != nil {
		return nil, withCode(exitConnect, fmt.Errorf("connecting to %s: %w", strings.Join(servers, ","), err))
	}
	wctx, cancel := context.WithTimeout(ctx, g.connectTimeout)
	defer cancel()
	if err := fw.WaitConnected(wctx); err != nil {
		fw.Close()
		if ctx.Err() != nil {
			return nil, withCode(exitInterrupted, fmt.Errorf("interrupted while connecting: %w", ctx.Err()))
		}
		return nil, withCode(exitConnect, fmt.Errorf("no ZooKeeper session within --connect-timeout %v: %s",
			g.connectTimeout, triedServers(err)))
	}
	if g.verbose {
		g.traceSession(fw, io.err)
	}
	return fw, nil
}

// traceSession prints the session id; the framework's logger, at Debug
// under --verbose, reports the connection states and the lock events.
func (g *globals) traceSession(fw *framework.Framework, w io.Writer) {
	fmt.Fprintf(w, "zklock: session 0x%x established\n", fw.SessionID())
}
