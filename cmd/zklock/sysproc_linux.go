package main

import "syscall"

// childSysProcAttr puts the command in a process group of its own, and has
// the kernel kill it if zklock dies without stopping it (SIGKILL of zklock):
// the lock then outlives the command by the session timeout, never the
// other way round.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// selfExe is the running zklock binary, even if its file was replaced since it started.
func selfExe() string { return "/proc/self/exe" }
