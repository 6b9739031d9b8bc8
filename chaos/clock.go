package chaos

import (
	"syscall"
	"unsafe"
)

// clockMonotonic is CLOCK_MONOTONIC: one clock for every process of the
// machine, unlike Go's monotonic readings, which start at each process's
// start.
const clockMonotonic = 1

// Now returns CLOCK_MONOTONIC in nanoseconds. Readings from different
// processes on one machine compare, so histories of helper processes merge.
func Now() int64 {
	var ts syscall.Timespec
	_, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockMonotonic, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		panic("chaos: clock_gettime(CLOCK_MONOTONIC): " + errno.Error()) // cannot happen on Linux
	}
	return ts.Nano()
}
