package framework

import (
	"bytes"
	"encoding/binary"
	"log/slog"
	"testing"
	"time"
)

func connectResponse(timeout int32, id int64, passwd []byte) []byte {
	body := binary.BigEndian.AppendUint32(nil, 0)
	body = binary.BigEndian.AppendUint32(body, uint32(timeout))
	body = binary.BigEndian.AppendUint64(body, uint64(id))
	body = binary.BigEndian.AppendUint32(body, uint32(len(passwd)))
	body = append(body, passwd...)
	body = append(body, 0) // readOnly
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

// The first frame of a connection, read in any pieces, records the session it grants; a
// refused session (timeOut 0) keeps the last one; later frames are not parsed. The negotiated
// timeout is the frame's timeOut.
func TestSawConnectBytes(t *testing.T) {
	tr := newConnTracker(nil, slog.New(slog.DiscardHandler))
	pw := []byte("0123456789abcdef")
	for _, split := range []int{1, 3, 4, 10, 45} {
		c := &trackedConn{t: tr}
		frame := connectResponse(4000, 0x1234, pw)
		for i := 0; i < len(frame); i += split {
			c.sawConnectBytes(frame[i:min(i+split, len(frame))])
		}
		if !c.headDone {
			t.Fatalf("split %d: first frame not complete", split)
		}
		got := tr.creds.Load()
		if got == nil || got.id != 0x1234 || !bytes.Equal(got.passwd, pw) || got.timeout != 4*time.Second {
			t.Fatalf("split %d: creds %+v", split, got)
		}
	}
	c := &trackedConn{t: tr}
	c.sawConnectBytes(connectResponse(0, 0, make([]byte, 16)))
	if got := tr.creds.Load(); got == nil || got.id != 0x1234 {
		t.Fatalf("a refused session replaced the credentials: %+v", got)
	}
}
