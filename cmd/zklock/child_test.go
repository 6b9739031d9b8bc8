package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// testChild is this test binary run by zklock as its command. Modes:
//
//	env              print the ZKLOCK_ variables (ZKLOCK_ID is set by elect only)
//	exit N           exit with N
//	interval F D     print "ready", hold for D, append "start end" (unix ns) to F
//	wait             print "ready PID", wait for SIGINT/SIGTERM, print "got SIG", exit 3
//	ignore           print "ready PID", ignore SIGTERM and SIGINT, wait for ever
//	readstdin        read stdin to its end, print "read N bytes (ERR)", exit 0
//	stopself         print "ready PID", stop itself with SIGTTIN, print "continued", wait for ever
//	stubborn         print "ready PID", then "got SIG" for each SIGINT/SIGTERM, never exit
//	guard DIR NAME S record a start in DIR (see childGuard), print "ready PID", wait for
//	                 SIGINT/SIGTERM, print "got SIG", then take S to stop (write DIR/NAME.end,
//	                 exit 3); S "never": keep ignoring signals until SIGKILL
func testChild(args []string) int {
	if len(args) == 0 {
		return 99
	}
	switch args[0] {
	case "env":
		for _, k := range []string{"ZKLOCK_PATH", "ZKLOCK_NODE", "ZKLOCK_TOKEN", "ZKLOCK_ID"} {
			fmt.Printf("%s=%s\n", k, os.Getenv(k))
		}
		return 0
	case "exit":
		n, _ := strconv.Atoi(args[1])
		return n
	case "interval":
		return childInterval(args[1], args[2])
	case "wait":
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		fmt.Printf("ready %d\n", os.Getpid())
		fmt.Printf("got %v\n", <-sigs)
		return 3
	case "ignore":
		signal.Ignore(syscall.SIGINT, syscall.SIGTERM)
		fmt.Printf("ready %d\n", os.Getpid())
		select {}
	case "stubborn":
		sigs := make(chan os.Signal, 4)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		fmt.Printf("ready %d\n", os.Getpid())
		for s := range sigs {
			fmt.Printf("got %v\n", s)
		}
	case "readstdin":
		b, err := io.ReadAll(os.Stdin)
		fmt.Printf("read %d bytes (%v)\n", len(b), err)
		return 0
	case "stopself":
		fmt.Printf("ready %d\n", os.Getpid())
		_ = syscall.Kill(os.Getpid(), syscall.SIGTTIN) // as a read of the terminal from the background
		fmt.Println("continued")
		select {}
	case "guard":
		return childGuard(args[1], args[2], args[3])
	}
	return 99
}

func childInterval(file, hold string) int {
	d, err := time.ParseDuration(hold)
	if err != nil {
		return 98
	}
	start := time.Now()
	fmt.Println("ready")
	time.Sleep(d) // the critical section's work
	end := time.Now()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return 97
	}
	defer f.Close()
	if _, err := fmt.Fprintf(f, "%d %d\n", start.UnixNano(), end.UnixNano()); err != nil {
		return 96
	}
	return 0
}

// childGuard is a command that checks, as it starts, that no other command of the same DIR
// still runs: it writes DIR/NAME.pid, then DIR/NAME.start with its start time (unix ns) and a
// line "overlap OTHER PID" for every other DIR/OTHER.pid whose process has not exited. Once
// told to stop (SIGINT/SIGTERM) it takes stop to do it, writes DIR/NAME.end with the time and
// exits 3; stop "never" keeps catching signals until a SIGKILL ends it.
func childGuard(dir, name, stop string) int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	start := time.Now()
	if writeFile(filepath.Join(dir, name+".pid"), fmt.Sprintln(os.Getpid())) != nil {
		return 97
	}
	report := fmt.Sprintln(start.UnixNano())
	pids, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
	for _, f := range pids {
		other := strings.TrimSuffix(filepath.Base(f), ".pid")
		data, err := os.ReadFile(f)
		pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
		if other != name && err == nil && pid > 0 && !gone(pid) {
			report += fmt.Sprintf("overlap %s %d\n", other, pid)
		}
	}
	if writeFile(filepath.Join(dir, name+".start"), report) != nil {
		return 97
	}
	fmt.Printf("ready %d\n", os.Getpid())
	fmt.Printf("got %v\n", <-sigs)
	if stop == "never" {
		select {}
	}
	d, err := time.ParseDuration(stop)
	if err != nil {
		return 98
	}
	time.Sleep(d) // the command's own clean-up after SIGTERM
	if writeFile(filepath.Join(dir, name+".end"), fmt.Sprintln(time.Now().UnixNano())) != nil {
		return 97
	}
	return 3
}

// writeFile writes data to path whole: readers see the old file or the new one, never a part.
func writeFile(path, data string) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(data), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
