package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Environment variables that carry credentials, so that they need not be on the command line,
// where any user of the host reads them (/proc/PID/cmdline) for the whole run: as etcdctl's
// ETCDCTL_USER and consul's CONSUL_HTTP_TOKEN / CONSUL_HTTP_TOKEN_FILE.
const (
	envAuth     = "ZKLOCK_AUTH"      // user:password
	envAuthFile = "ZKLOCK_AUTH_FILE" // a file holding user:password
)

// The values of --acl.
const (
	aclCreator     = "creator"      // every permission for the credentials' identity, none for anyone else
	aclCreatorRead = "creator-read" // the same, and READ for anyone (anonymous zklock holders works)
	aclOpen        = "open"         // world:anyone, every permission (ZooKeeper's and Curator's default)
)

// credentials returns the digest user and password from, in order, --auth, --auth-file,
// $ZKLOCK_AUTH and $ZKLOCK_AUTH_FILE; ok is false when none is given. A file holds
// user:password on its first line.
func (g *globals) credentials() (user, pass string, ok bool, err error) {
	src, what := g.auth, "--auth"
	switch {
	case g.auth != "":
	case g.authFile != "":
		src, what, err = readAuthFile(g.authFile, "--auth-file")
	case g.authEnv != "":
		src, what = g.authEnv, "$"+envAuth
	case g.authFileEnv != "":
		src, what, err = readAuthFile(g.authFileEnv, "$"+envAuthFile)
	default:
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, err
	}
	user, pass, ok = strings.Cut(src, ":")
	if !ok || user == "" {
		return "", "", false, fmt.Errorf("%s: want user:password", what)
	}
	return user, pass, true, nil
}

// readAuthFile reads the first line of the file at p; what names where p came from.
func readAuthFile(p, what string) (string, string, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", what, fmt.Errorf("%s: %w", what, err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimRight(line, "\r"), what + " " + p, nil
}

// aclOptions returns the framework options of the credentials and --acl. With credentials the
// default ACL is creator: nodes zklock creates (the lock node and any parent it creates as a
// container) belong to that identity alone, so that a client without them can neither delete a
// holder's node (and take the lock) nor the lock directory (and recreate it with its own ACL).
// Without credentials nodes stay world-open, as ZooKeeper's and Curator's default: a creator ACL
// needs an authenticated identity.
func (g *globals) aclOptions() ([]framework.Option, error) {
	user, pass, ok, err := g.credentials()
	if err != nil {
		return nil, err
	}
	acl := g.acl
	if acl == "" {
		acl = aclOpen
		if ok {
			acl = aclCreator
		}
	}
	var opts []framework.Option
	if ok {
		opts = append(opts, framework.WithDigestAuth(user, pass))
	}
	switch acl {
	case aclOpen:
		return opts, nil
	case aclCreator, aclCreatorRead:
		if !ok {
			return nil, errors.New("--acl " + acl + ": needs credentials (--auth-file, $" + envAuth + " or $" + envAuthFile + ")")
		}
	default:
		return nil, fmt.Errorf("--acl %q: want %s, %s or %s", acl, aclCreator, aclCreatorRead, aclOpen)
	}
	entries := framework.CreatorACL()
	if acl == aclCreatorRead {
		entries = append(entries, framework.WorldACL(framework.PermRead)...)
	}
	return append(opts, framework.WithACLProvider(framework.ACLProviderFunc(func(string) []framework.ACL { return entries }))), nil
}
