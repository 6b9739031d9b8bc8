package framework

import (
	"fmt"
	"log/slog"
	"sync/atomic"
)

// zkLogger adapts go-zookeeper's Printf logger to slog at debug level. It also picks the
// negotiated session timeout out of go-zookeeper's "authenticated" line: go-zookeeper does not
// export it, and the Suspended->Lost timer needs it.
type zkLogger struct {
	log        *slog.Logger
	negotiated *atomic.Int64 // milliseconds
}

const authenticatedFormat = "authenticated: id=%d, timeout=%d"

// Printf implements zk.Logger.
func (l zkLogger) Printf(format string, args ...any) {
	if format == authenticatedFormat && len(args) == 2 {
		switch ms := args[1].(type) {
		case int32:
			l.negotiated.Store(int64(ms))
		case int64:
			l.negotiated.Store(ms)
		case int:
			l.negotiated.Store(int64(ms))
		}
	}
	l.log.Debug("zk: " + fmt.Sprintf(format, args...))
}
