package retry

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"
)

// TestMain fails the package if a test leaves goroutines behind.
func TestMain(m *testing.M) {
	before := runtime.NumGoroutine()
	code := m.Run()
	if code == 0 {
		deadline := time.Now().Add(5 * time.Second)
		for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond) // polling a counter: there is no event to await
		}
		if n := runtime.NumGoroutine(); n > before {
			buf := make([]byte, 1<<16)
			fmt.Fprintf(os.Stderr, "leaked goroutines: %d > %d\n%s\n", n, before, buf[:runtime.Stack(buf, true)])
			code = 1
		}
	}
	os.Exit(code)
}
