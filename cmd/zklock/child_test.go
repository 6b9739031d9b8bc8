package main

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// testChild is this test binary run by zklock as its command. Modes:
//
//	env              print the ZKLOCK_ variables
//	exit N           exit with N
//	interval F D     print "ready", hold for D, append "start end" (unix ns) to F
//	wait             print "ready PID", wait for SIGINT/SIGTERM, print "got SIG", exit 3
//	ignore           print "ready PID", ignore SIGTERM and SIGINT, wait for ever
func testChild(args []string) int {
	if len(args) == 0 {
		return 99
	}
	switch args[0] {
	case "env":
		for _, k := range []string{"ZKLOCK_PATH", "ZKLOCK_NODE", "ZKLOCK_TOKEN"} {
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
