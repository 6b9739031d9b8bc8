package harness

import (
	"errors"
	"runtime"
	"runtime/metrics"

	"github.com/go-zookeeper/zk"
)

// ErrClientMemory: an in-process peer's heap grew past heapGuard while a queue filled; the
// depth is stopped there so that one peer cannot exhaust the machine's memory (shared with the
// server and the other peers).
var ErrClientMemory = errors.New("harness: client memory guard")

// heapGuard bounds the Go heap during a depth scenario.
const heapGuard = 4 << 30

// heapObjects is the heap's object bytes now (live and not yet collected), without a GC.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// clientMemory is this process's live heap after a full GC and its goroutine count, from
// runtime/metrics.
func clientMemory() (heapBytes uint64, goroutines int64) {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/sched/goroutines:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		heapBytes = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		goroutines = int64(s[1].Value.Uint64())
	}
	return heapBytes, goroutines
}

// numChildren is path's child count from one exists (stat) read, without listing it; -1 on error.
func numChildren(obs *zk.Conn, path string) int {
	ok, st, err := obs.Exists(path)
	if err != nil || !ok {
		return -1
	}
	return int(st.NumChildren)
}
