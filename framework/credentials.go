package framework

import (
	"encoding/binary"
	"time"
)

// SessionCredentials returns the id and password of the session the server last granted
// (0 and nil before the first). It is meant for tests that expire a session on the server
// (zktest.Expire, as Curator's KillSession does), like the Java client's getSessionPasswd:
// whoever has both can attach to the session and take it over, so never log or send them.
// The password is a copy. Safe for concurrent use.
func (f *Framework) SessionCredentials() (id int64, passwd []byte) {
	c := f.sockets.creds.Load()
	if c == nil {
		return 0, nil
	}
	return c.id, append([]byte(nil), c.passwd...)
}

// sessionCreds is a session the server granted in a ConnectResponse, with the session timeout
// it negotiated (the one every timer of the Framework runs on: see Framework.SessionTimeout).
type sessionCreds struct {
	id      int64
	passwd  []byte
	timeout time.Duration
}

// connectFrameMax bounds the first frame we collect: a ConnectResponse is about 40 bytes.
const connectFrameMax = 256

// sawConnectBytes collects the first frame a connection returns to go-zookeeper (its
// ConnectResponse: int32 length, int32 protocolVersion, int32 timeOut, int64 sessionID, int32
// passwd length, passwd) and records the session it grants and its negotiated timeout, before
// go-zookeeper reports the session (so before any epoch of it starts, and whatever logger the
// user gave go-zookeeper). Only the reading goroutine calls it.
func (c *trackedConn) sawConnectBytes(p []byte) {
	c.head = append(c.head, p...)
	if len(c.head) < 4 {
		return
	}
	n := int(int32(binary.BigEndian.Uint32(c.head)))
	if n < 0 || n > connectFrameMax {
		c.headDone = true
		return
	}
	if len(c.head) < 4+n {
		return
	}
	c.headDone = true
	if creds, ok := parseConnectResponse(c.head[4 : 4+n]); ok {
		c.t.creds.Store(creds)
	}
	c.head = nil
}

// parseConnectResponse decodes a ConnectResponse body; ok is false for a refused session
// (timeOut 0, as the server answers a client resuming an expired session) or a short frame.
func parseConnectResponse(b []byte) (*sessionCreds, bool) {
	if len(b) < 20 {
		return nil, false
	}
	timeout := int32(binary.BigEndian.Uint32(b[4:]))
	id := int64(binary.BigEndian.Uint64(b[8:]))
	n := int(int32(binary.BigEndian.Uint32(b[16:])))
	if timeout <= 0 || id == 0 || n < 0 || n > len(b)-20 {
		return nil, false
	}
	return &sessionCreds{id: id, passwd: append([]byte(nil), b[20:20+n]...),
		timeout: time.Duration(timeout) * time.Millisecond}, true
}
