//go:build unix && !linux

package zktest

import "syscall"

// sysProcAttr puts the JVM in its own process group so it can be signalled
// as a group.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
