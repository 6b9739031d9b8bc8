package zktest

import "syscall"

// sysProcAttr puts the JVM in its own process group (so it can be signalled
// as a group) and kills it if the test binary dies first.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
