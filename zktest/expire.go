package zktest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// ErrNoSession is returned by ExpireSession when the server does not know
// the session (it already expired, or the password is wrong).
var ErrNoSession = errors.New("zktest: no such session")

// ExpireSession expires a session on the server for real: it opens a raw
// connection to server, attaches to the session with its id and password,
// sends closeSession and waits for the reply. The session's ephemeral nodes
// are deleted and its watches dropped; the original client learns that its
// session expired (StateExpired) when it next reaches a server. Take id and
// passwd from zk.Conn.SessionID and the Proxy's Session, or from the
// client's own bookkeeping; for a framework.Framework, Expire does all this. ctx bounds the exchange (default 10 s).
func ExpireSession(ctx context.Context, server string, id int64, passwd []byte) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	sent := false
	for attempt := 1; ; attempt++ {
		err := expireOnce(ctx, server, id, passwd)
		switch {
		case err == nil:
			return nil
		case sent && errors.Is(err, ErrNoSession):
			return nil // an earlier closeSession did it
		case errors.Is(err, errClosedBeforeReply) && attempt < expireAttempts && ctx.Err() == nil:
			// Attaching moved the session to our connection, and the client,
			// reconnecting at once, moved it back and got ours closed before
			// the server answered (or the server closed ours as it closed the
			// session): try again; an unknown session then means it is gone.
			sent = sent || errors.Is(err, errClosedAfterClose)
			continue
		}
		if ctx.Err() != nil {
			err = errors.Join(ctx.Err(), err)
		}
		return fmt.Errorf("zktest: expire session 0x%x: %w", id, err)
	}
}

// Expire expires fw's current session on c for real, as Curator's KillSession does for any
// client: it takes the session's id and password from fw.SessionCredentials (no Proxy needed)
// and calls ExpireSession on the first running member of c that answers. fw then reports Lost
// and opens a new session; its leases end with recipes.ErrLockLost. It returns ErrNoSession
// if fw has no session yet. ctx bounds it (default 10 s).
func Expire(ctx context.Context, c *Cluster, fw *framework.Framework) error {
	id, passwd := fw.SessionCredentials()
	if id == 0 {
		return fmt.Errorf("zktest: expire: %w (the framework has none yet)", ErrNoSession)
	}
	var errs []error
	for _, m := range c.members {
		if !m.Running() {
			continue
		}
		err := ExpireSession(ctx, m.Addr(), id, passwd)
		if err == nil || errors.Is(err, ErrNoSession) || ctx.Err() != nil {
			return err
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return fmt.Errorf("zktest: expire session 0x%x: no member is running", id)
	}
	return errors.Join(errs...)
}

// expireAttempts bounds the tries when a reconnecting client keeps taking
// its session back.
const expireAttempts = 20

// errClosedBeforeReply: the server closed the connection without answering.
var errClosedBeforeReply = errors.New("connection closed by the server before its reply")

// errClosedAfterClose: the same, once closeSession was sent.
var errClosedAfterClose = fmt.Errorf("%w to closeSession", errClosedBeforeReply)

// closedByServer reports an end of stream or a reset from the server.
func closedByServer(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE)
}

// expireOnce dials server and runs one attach-and-close exchange.
func expireOnce(ctx context.Context, server string, id int64, passwd []byte) error {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(expireExchangeTimeout))
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	return attachAndClose(conn, id, passwd)
}

// expireExchangeTimeout bounds one exchange; a server answers in
// milliseconds unless the session was taken from our connection meanwhile.
const expireExchangeTimeout = 2 * time.Second

// attachAndClose runs the raw exchange on conn.
func attachAndClose(conn net.Conn, id int64, passwd []byte) error {
	if _, err := conn.Write(appendConnectRequest(nil, 30000, id, passwd)); err != nil {
		return err
	}
	b, err := readFrame(conn)
	if closedByServer(err) {
		return errClosedBeforeReply
	}
	if err != nil {
		return fmt.Errorf("read ConnectResponse: %w", err)
	}
	r, err := parseConnectResponse(b)
	if err != nil {
		return err
	}
	if r.sessionID != id || r.timeout <= 0 {
		return ErrNoSession
	}
	const xid = 1
	if _, err := conn.Write(appendRequestHeader(nil, xid, OpCloseSession)); err != nil {
		if closedByServer(err) {
			return errClosedBeforeReply
		}
		return err
	}
	for {
		b, err := readFrame(conn)
		var ne net.Error
		if closedByServer(err) || errors.As(err, &ne) && ne.Timeout() {
			// A server whose session moved away from our connection during
			// the exchange may close it, or leave it unanswered.
			return fmt.Errorf("%w: %w", errClosedAfterClose, err)
		}
		if err != nil {
			return fmt.Errorf("read closeSession reply: %w", err)
		}
		h, err := parseReplyHeader(b)
		if err != nil {
			return err
		}
		if h.xid != xid {
			continue // a notification or ping
		}
		if h.err != 0 {
			return fmt.Errorf("closeSession: server error %d", h.err)
		}
		return nil
	}
}
