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

// allocs is this process's cumulative heap allocations (runtime/metrics).
type allocs struct{ objects, bytes uint64 }

func readAllocs() allocs {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}, {Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	var a allocs
	if s[0].Value.Kind() == metrics.KindUint64 {
		a.objects = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		a.bytes = s[1].Value.Uint64()
	}
	return a
}

func (a allocs) minus(b allocs) allocs { return allocs{a.objects - b.objects, a.bytes - b.bytes} }

// perOp is the allocations per operation as Result.Extra figures (Go peers: the whole process,
// so the harness's few allocations per cycle are included).
func (a allocs) perOp(ops int64) map[string]float64 {
	if ops <= 0 || a.objects == 0 {
		return nil
	}
	return map[string]float64{"allocs_per_op": float64(a.objects) / float64(ops), "alloc_bytes_per_op": float64(a.bytes) / float64(ops)}
}
