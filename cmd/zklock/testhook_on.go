//go:build zklocktest

package main

import (
	"os"
	"syscall"
)

// testHook stops this process when point is the one the test asked for.
func testHook(point string) {
	if os.Getenv(testHookEnv) == point {
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	}
}
