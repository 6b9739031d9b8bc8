package zktest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"time"
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
// client's own bookkeeping. ctx bounds the exchange (default 10 s).
func ExpireSession(ctx context.Context, server string, id int64, passwd []byte) error {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", server)
	if err != nil {
		return fmt.Errorf("zktest: expire session: %w", err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := attachAndClose(conn, id, passwd); err != nil {
		if ctx.Err() != nil {
			err = errors.Join(ctx.Err(), err)
		}
		return fmt.Errorf("zktest: expire session 0x%x: %w", id, err)
	}
	return nil
}

// attachAndClose runs the raw exchange on conn.
func attachAndClose(conn net.Conn, id int64, passwd []byte) error {
	if _, err := conn.Write(appendConnectRequest(nil, 30000, id, passwd)); err != nil {
		return err
	}
	b, err := readFrame(conn)
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
		return err
	}
	for {
		b, err := readFrame(conn)
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
