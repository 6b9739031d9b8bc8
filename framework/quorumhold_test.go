package framework_test

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// Quorum packet types (ZooKeeper's Leader.java) that a quorumHold lets through while holding.
const (
	qpPing       = 5
	qpRevalidate = 6
	qpSnap       = 15
)

// quorumHold sits on the link from the leader to one follower and can hold the leader's
// replication traffic (proposals, commits, sync answers) while letting pings and session
// revalidations through: the follower keeps serving clients and re-attaching sessions, but lags.
// This is how a follower that has not yet applied a committed write looks to a client. Safe for
// concurrent use.
type quorumHold struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	mu      sync.Mutex
	holding bool
	held    [][]byte
	conns   []net.Conn
	parsed  bool // the current link is parsed packet by packet (false after a SNAP)
}

// holdQuorumLink restarts member lag of c so that it reaches member lead's quorum port through a
// quorumHold, and returns the hold.
func holdQuorumLink(t *testing.T, c *zktest.Cluster, lag, lead int) *quorumHold {
	t.Helper()
	cfg := filepath.Join(c.Dir(), fmt.Sprintf("server%d", c.Member(lag).ID()), "zoo.cfg")
	text, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(fmt.Sprintf(`(?m)^server\.%d=127\.0\.0\.1:(\d+):`, c.Member(lead).ID()))
	m := re.FindSubmatch(text)
	if m == nil {
		t.Fatalf("no server.%d line in %s", c.Member(lead).ID(), cfg)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	q := &quorumHold{ln: ln, target: "127.0.0.1:" + string(m[1])}
	q.wg.Add(1)
	go q.accept()
	t.Cleanup(q.close)
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	text = re.ReplaceAll(text, []byte(fmt.Sprintf("server.%d=127.0.0.1:%s:", c.Member(lead).ID(), port)))
	if err := os.WriteFile(cfg, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Member(lag).Restart(testCtx(t)); err != nil {
		t.Fatalf("restart member %d through the hold: %v", lag, err)
	}
	return q
}

func (q *quorumHold) accept() {
	defer q.wg.Done()
	for {
		follower, err := q.ln.Accept()
		if err != nil {
			return
		}
		leader, err := net.Dial("tcp", q.target)
		if err != nil {
			follower.Close()
			continue
		}
		q.mu.Lock()
		q.conns = append(q.conns, follower, leader)
		q.parsed, q.held = true, nil
		q.mu.Unlock()
		q.wg.Add(2)
		go func() { defer q.wg.Done(); io.Copy(leader, follower); leader.Close() }()
		go func() { defer q.wg.Done(); q.forward(follower, leader); follower.Close() }()
	}
}

// forward copies the leader's packets to the follower, holding them while asked to.
func (q *quorumHold) forward(follower, leader net.Conn) {
	r := bufio.NewReader(leader)
	for {
		pkt, typ, err := readQuorumPacket(r)
		if err != nil {
			return
		}
		q.mu.Lock()
		if q.holding && typ != qpPing && typ != qpRevalidate {
			q.held = append(q.held, pkt)
			q.mu.Unlock()
			continue
		}
		_, err = follower.Write(pkt)
		if typ == qpSnap { // a raw snapshot follows: stop parsing this link
			q.parsed = false
		}
		q.mu.Unlock()
		if err != nil {
			return
		}
		if typ == qpSnap {
			io.Copy(follower, r)
			return
		}
	}
}

// hold starts holding replication traffic; it reports false if the link cannot be parsed.
func (q *quorumHold) hold() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.holding = true
	return q.parsed && len(q.conns) > 0
}

// release sends what was held, in order, and stops holding.
func (q *quorumHold) release() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.holding {
		return
	}
	q.holding = false
	if len(q.conns) > 0 {
		follower := q.conns[len(q.conns)-2]
		for _, pkt := range q.held {
			follower.Write(pkt)
		}
	}
	q.held = nil
}

func (q *quorumHold) close() {
	q.release()
	q.ln.Close()
	q.mu.Lock()
	for _, c := range q.conns {
		c.Close()
	}
	q.mu.Unlock()
	q.wg.Wait()
}

// readQuorumPacket reads one jute-encoded QuorumPacket (int type, long zxid, buffer data,
// vector<Id> authinfo) and returns its bytes and type.
func readQuorumPacket(r *bufio.Reader) ([]byte, int32, error) {
	var pkt []byte
	read := func(n int) ([]byte, error) {
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		pkt = append(pkt, b...)
		return b, nil
	}
	readInt := func() (int32, error) {
		b, err := read(4)
		if err != nil {
			return 0, err
		}
		return int32(binary.BigEndian.Uint32(b)), nil
	}
	readBuf := func() error {
		n, err := readInt()
		if err == nil && n > 0 {
			_, err = read(int(n))
		}
		return err
	}
	typ, err := readInt()
	if err != nil {
		return nil, 0, err
	}
	if _, err := read(8); err != nil {
		return nil, 0, err
	}
	if err := readBuf(); err != nil {
		return nil, 0, err
	}
	count, err := readInt()
	for i := int32(0); err == nil && i < count; i++ {
		if err = readBuf(); err == nil {
			err = readBuf()
		}
	}
	return pkt, typ, err
}
