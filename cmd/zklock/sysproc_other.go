//go:build !linux

package main

import "syscall"

// childSysProcAttr puts the command in a process group of its own.
func childSysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
