package zktest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// maxFrame bounds one frame; ZooKeeper's default jute.maxbuffer is 1 MiB.
const maxFrame = 64 << 20

var errFrame = errors.New("zktest: bad ZooKeeper frame")

// readFrame reads one length-prefixed frame and returns it whole, prefix
// included, so it can be forwarded unchanged.
func readFrame(r io.Reader) ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > maxFrame {
		return nil, fmt.Errorf("%w: length %d", errFrame, n)
	}
	buf := make([]byte, 4+int(n))
	copy(buf, hdr[:])
	if _, err := io.ReadFull(r, buf[4:]); err != nil {
		return nil, err
	}
	return buf, nil
}

// requestHeader returns the xid and opcode of a client frame after the
// ConnectRequest.
func requestHeader(frame []byte) (xid, op int32, ok bool) {
	if len(frame) < 12 {
		return 0, 0, false
	}
	return int32(binary.BigEndian.Uint32(frame[4:])), int32(binary.BigEndian.Uint32(frame[8:])), true
}

// firstMultiOp returns the opcode of the first operation of a transaction
// (an OpMulti request frame: its first MultiHeader follows the request
// header), or -1 for any other request.
func firstMultiOp(frame []byte, op int32) int32 {
	if op != OpMulti || len(frame) < 16 {
		return -1
	}
	return int32(binary.BigEndian.Uint32(frame[12:]))
}

// replyXid returns the xid of a server frame after the ConnectResponse.
func replyXid(frame []byte) (int32, bool) {
	if len(frame) < 8 {
		return 0, false
	}
	return int32(binary.BigEndian.Uint32(frame[4:])), true
}

// connectResponse is the server's answer to a ConnectRequest.
type connectResponse struct {
	protocolVersion int32
	timeout         int32
	sessionID       int64
	passwd          []byte
}

// parseConnectResponse decodes a whole ConnectResponse frame.
func parseConnectResponse(frame []byte) (connectResponse, error) {
	b := frame[min(4, len(frame)):]
	if len(b) < 20 {
		return connectResponse{}, fmt.Errorf("%w: short ConnectResponse", errFrame)
	}
	r := connectResponse{
		protocolVersion: int32(binary.BigEndian.Uint32(b)),
		timeout:         int32(binary.BigEndian.Uint32(b[4:])),
		sessionID:       int64(binary.BigEndian.Uint64(b[8:])),
	}
	n := int32(binary.BigEndian.Uint32(b[16:]))
	if n < 0 || int(n) > len(b)-20 {
		return r, nil // no password (n = -1) or truncated: keep what we have
	}
	r.passwd = append([]byte(nil), b[20:20+n]...)
	return r, nil
}

// appendConnectRequest appends a ConnectRequest frame that attaches to an
// existing session.
func appendConnectRequest(dst []byte, timeoutMs int32, sessionID int64, passwd []byte) []byte {
	body := binary.BigEndian.AppendUint32(nil, 0) // protocolVersion
	body = binary.BigEndian.AppendUint64(body, 0) // lastZxidSeen: 0 is never refused
	body = binary.BigEndian.AppendUint32(body, uint32(timeoutMs))
	body = binary.BigEndian.AppendUint64(body, uint64(sessionID))
	body = binary.BigEndian.AppendUint32(body, uint32(len(passwd)))
	body = append(body, passwd...)
	body = append(body, 0) // readOnly = false
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(body)))
	return append(dst, body...)
}

// appendRequestHeader appends a body-less request frame (xid, opcode).
func appendRequestHeader(dst []byte, xid, op int32) []byte {
	dst = binary.BigEndian.AppendUint32(dst, 8)
	dst = binary.BigEndian.AppendUint32(dst, uint32(xid))
	return binary.BigEndian.AppendUint32(dst, uint32(op))
}

// replyHeader is the header of a server reply: xid, zxid, err.
type replyHeader struct {
	xid  int32
	zxid int64
	err  int32
}

func parseReplyHeader(frame []byte) (replyHeader, error) {
	if len(frame) < 20 {
		return replyHeader{}, fmt.Errorf("%w: short reply header", errFrame)
	}
	return replyHeader{
		xid:  int32(binary.BigEndian.Uint32(frame[4:])),
		zxid: int64(binary.BigEndian.Uint64(frame[8:])),
		err:  int32(binary.BigEndian.Uint32(frame[16:])),
	}, nil
}
