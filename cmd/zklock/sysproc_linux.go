package main

import (
	"syscall"
	"unsafe"
)

// childSysProcAttr puts the command in a process group of its own, and has
// the kernel kill it if zklock dies without stopping it (SIGKILL of zklock):
// the lock then outlives the command by the session timeout, never the
// other way round.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// selfExe is the running zklock binary, even if its file was replaced since it started.
func selfExe() string { return "/proc/self/exe" }

// stopSignal returns the signal that stopped child pid, or 0 when it is not stopped. It peeks
// (WNOWAIT): the exit status stays for cmd.Wait.
func stopSignal(pid int) syscall.Signal {
	var info [128]byte // siginfo_t
	const pPID = 1
	_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])),
		syscall.WSTOPPED|syscall.WNOHANG|0x1000000 /* WNOWAIT */, 0, 0)
	if errno != 0 {
		return 0
	}
	// siginfo_t for SIGCHLD: si_signo, si_errno, si_code (int32 each), then, aligned to 8,
	// si_pid, si_uid, si_status (the stop signal for CLD_STOPPED).
	if pidOf := *(*int32)(unsafe.Pointer(&info[16])); int(pidOf) != pid {
		return 0 // not stopped (WNOHANG leaves si_pid 0)
	}
	return syscall.Signal(*(*int32)(unsafe.Pointer(&info[24])))
}
