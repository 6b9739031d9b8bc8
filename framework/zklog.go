package framework

import (
	"fmt"
	"log/slog"
)

// zkLogger adapts go-zookeeper's Printf logger to slog at debug level. Nothing is read from its
// lines: the negotiated session timeout comes from the server's ConnectResponse (credentials.go),
// so a user who silences or replaces go-zookeeper's logger changes no timer.
type zkLogger struct {
	log *slog.Logger
}

// Printf implements zk.Logger.
func (l zkLogger) Printf(format string, args ...any) {
	l.log.Debug("zk: " + fmt.Sprintf(format, args...))
}
