package zktest

import (
	"bytes"
	"strings"
	"sync"
)

// LogBuffer collects what a logger (slog.NewTextHandler, a command's stderr) writes from
// several goroutines, for a test to read while they still write.
type LogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p; it is safe for concurrent use.
func (l *LogBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String returns everything written so far.
func (l *LogBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Contains reports whether s has been written.
func (l *LogBuffer) Contains(s string) bool { return strings.Contains(l.String(), s) }
