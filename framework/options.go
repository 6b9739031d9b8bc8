package framework

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-zookeeper/zk"
	"github.com/zkrecipes/zkrecipes/retry"
)

// Defaults.
const (
	// DefaultSessionTimeout is shorter than Curator's 60 s: a lock holder that lost its session
	// should learn it within seconds, and the server clamps it to [2, 20] ticks anyway.
	DefaultSessionTimeout = 10 * time.Second
	// DefaultConnectionTimeout bounds how long an operation waits for a connection before it is
	// tried anyway (and fails retryably); half the session timeout, like Curator's 15 s vs 60 s.
	DefaultConnectionTimeout = 5 * time.Second
)

// DefaultRetryPolicy is Curator's usual ExponentialBackoffRetry(100 ms, 3).
func DefaultRetryPolicy() retry.Policy { return retry.ExponentialBackoff(100*time.Millisecond, 3) }

// ErrorPolicy decides which connection states end a session epoch.
type ErrorPolicy int

const (
	// StandardPolicy (the default) ends an epoch on Suspended or Lost, like Curator's
	// StandardConnectionStateErrorPolicy: after a disconnect nobody can be sure a lock is still held.
	StandardPolicy ErrorPolicy = iota
	// SessionPolicy ends an epoch on Lost only (SessionConnectionStateErrorPolicy).
	SessionPolicy
)

// Option configures a Framework.
type Option func(*config)

type config struct {
	sessionTimeout time.Duration
	connTimeout    time.Duration
	retry          retry.Policy
	namespace      string
	acl            ACLProvider
	authUser       string
	authPass       string
	auth           bool
	defaultData    []byte
	errorPolicy    ErrorPolicy
	logger         *slog.Logger
	dialer         zk.Dialer
	tls            *tls.Config
	zkOptions      []func(*zk.Conn)
	tracer         func(Trace)
	listeners      []func(ConnectionState)
	protectedTag   string // WithProtectedTag's first GUID group, or ""
	err            error
}

func defaultConfig() config {
	return config{
		sessionTimeout: DefaultSessionTimeout,
		connTimeout:    DefaultConnectionTimeout,
		retry:          DefaultRetryPolicy(),
		acl:            DefaultACLProvider(),
		errorPolicy:    StandardPolicy,
		logger:         slog.New(slog.DiscardHandler),
	}
}

func (c *config) fail(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrInvalidOption}, args...)...)
	}
}

// WithSessionTimeout sets the requested session timeout (the server may clamp it).
func WithSessionTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("session timeout %v", d)
		}
		c.sessionTimeout = d
	}
}

// WithConnectionTimeout sets how long an operation waits for a connection before trying anyway.
func WithConnectionTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.fail("connection timeout %v", d)
		}
		c.connTimeout = d
	}
}

// WithRetryPolicy sets the policy every operation runs under.
func WithRetryPolicy(p retry.Policy) Option {
	return func(c *config) {
		if p == nil {
			c.fail("nil retry policy")
		}
		c.retry = p
	}
}

// WithNamespace prefixes every path with "/"+ns (ns may contain "/", e.g. "app/locks").
func WithNamespace(ns string) Option {
	return func(c *config) {
		if ns != "" {
			if err := ValidatePath("/" + ns); err != nil {
				c.fail("namespace: %v", err)
			}
		}
		c.namespace = ns
	}
}

// WithACLProvider sets the ACL of created nodes (default: OpenACL).
func WithACLProvider(p ACLProvider) Option {
	return func(c *config) {
		if p == nil {
			c.fail("nil ACL provider")
		}
		c.acl = p
	}
}

// WithDigestAuth authenticates the connection as user:password (scheme "digest"); go-zookeeper
// re-sends the credentials after every reconnect.
func WithDigestAuth(user, password string) Option {
	return func(c *config) {
		if user == "" {
			c.fail("empty digest user")
		}
		c.authUser, c.authPass, c.auth = user, password, true
	}
}

// WithDefaultData sets the data used when Create is given nil data (default: empty).
func WithDefaultData(data []byte) Option {
	return func(c *config) {
		if len(data) > MaxDataSize {
			c.fail("default data of %d bytes", len(data))
		}
		c.defaultData = append([]byte(nil), data...)
	}
}

// WithErrorPolicy sets which states end a session epoch (default StandardPolicy).
func WithErrorPolicy(p ErrorPolicy) Option {
	return func(c *config) {
		if p != StandardPolicy && p != SessionPolicy {
			c.fail("error policy %d", p)
		}
		c.errorPolicy = p
	}
}

// WithLogger sets the logger (default: discard). go-zookeeper's own log lines go to it at debug level;
// each failed connect attempt is logged at warn level with its address. The default stays silent, not
// slog.Default(): a connection that keeps failing would otherwise write a line per attempt into every
// application's log, and what a caller needs is already in the errors (WaitConnected and every
// operation name the addresses tried and why, matching ErrNoServer).
func WithLogger(l *slog.Logger) Option {
	return func(c *config) {
		if l == nil {
			c.fail("nil logger")
		}
		c.logger = l
	}
}

// WithDialer sets go-zookeeper's dialer (proxies, fault-injection tests). It is called with
// resolved addresses (go-zookeeper resolves host names first): for TLS use WithTLS, which checks
// the certificate against the configured host name.
func WithDialer(d zk.Dialer) Option {
	return func(c *config) { c.dialer = d }
}

// WithZKOptions forwards extra go-zookeeper connection options (zk.WithMaxBufferSize(...), ...).
// They are applied after the Framework's own; do not replace the event callback or the logger.
func WithZKOptions(opts ...func(*zk.Conn)) Option {
	return func(c *config) { c.zkOptions = append(c.zkOptions, opts...) }
}

// WithListener registers fn for connection-state changes before New starts connecting, so that fn
// sees the first Connected: AddListener, called after New, races the connection (as a Curator
// listener added after start() does) and may miss it. fn runs as AddListener's do; it cannot be
// removed (it ends with Close).
func WithListener(fn func(ConnectionState)) Option {
	return func(c *config) {
		if fn == nil {
			c.fail("nil listener")
			return
		}
		c.listeners = append(c.listeners, fn)
	}
}
