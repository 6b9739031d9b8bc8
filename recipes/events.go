package recipes

import (
	"context"
	"log/slog"
	"time"

	"github.com/zkrecipes/zkrecipes/framework"
)

// Lock events, reported through the framework's tracer (framework.WithTracer) and logged at
// Debug through its logger: queued (the first wait of an acquire), acquired (with the time
// waited), released and lost (with the time held, and the loss's reason).
const (
	eventQueued   = "queued"
	eventAcquired = "acquired"
	eventReleased = "released"
	eventLost     = "lost"
)

// event reports one lock event on node p of l. It costs two checks when nobody listens.
func (l *Lock) event(name, p string, d time.Duration, err error) {
	if l.fw.Tracing() {
		l.fw.Trace(framework.Trace{Kind: framework.TraceLock, Name: name, Path: p, Duration: d, Err: err})
	}
	if log := l.fw.Logger(); log.Enabled(context.Background(), slog.LevelDebug) {
		log.Debug("recipes: lock "+name, "lock", l.path, "node", p, "duration", d, "err", err)
	}
}
