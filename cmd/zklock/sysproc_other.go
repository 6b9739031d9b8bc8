//go:build !linux

package main

import (
	"os"
	"syscall"
)

// childSysProcAttr puts the command in a process group of its own.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// selfExe is the running zklock binary, as well as the system can tell.
func selfExe() string {
	if p, err := os.Executable(); err == nil {
		return p
	}
	return os.Args[0]
}

// stopSignal would return the signal that stopped child pid: unknown here, so 0.
func stopSignal(int) syscall.Signal { return 0 }
