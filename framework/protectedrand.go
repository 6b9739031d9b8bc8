package framework

import (
	"bufio"
	"crypto/rand"
	"sync"

	"github.com/google/uuid"
)

// Each protected create needs a random GUID: one per contended acquisition. Read one at a time,
// each is a getrandom system call (and, on a fresh goroutine, the stack growth of that path);
// on a small machine shared with the server that is client CPU taken from it (issue 27). The
// GUIDs are read instead from crypto/rand in blocks of randBlock of them: the same source, the
// same 122 random bits each, one system call per randBlock creates. The uuid package's own
// pool (uuid.EnableRandPool) would do the same, but it is process-wide state that a library
// must not switch on for its users.
const randBlock = 16

var guidSource = struct {
	sync.Mutex
	r *bufio.Reader
}{r: bufio.NewReaderSize(rand.Reader, randBlock*16)}

// newGUID returns a new random (version 4) UUID in its canonical form.
func newGUID() string {
	guidSource.Lock()
	u, err := uuid.NewRandomFromReader(guidSource.r)
	guidSource.Unlock()
	if err != nil { // crypto/rand does not fail on supported systems; never a weaker GUID
		return uuid.NewString()
	}
	return u.String()
}
