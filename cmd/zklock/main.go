// Command zklock runs zkrecipes' locks from the shell.
//
//	zklock demo [-servers host:port,...] [-workers 4] [-rounds 10]
//
// demo runs contending workers, each in its own ZooKeeper session, on one
// InterProcessMutex, prints who holds the lock with its fencing token, and
// ends with a summary. Without -servers or $ZK_SERVERS it starts a local
// ZooKeeper through zktest (Debian's zookeeper package must be installed).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "zklock:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: zklock demo [flags]")
	}
	switch args[0] {
	case "demo":
		return runDemo(ctx, args[1:], os.Stdout, os.Getenv)
	default:
		return fmt.Errorf("unknown command %q (want: demo)", args[0])
	}
}
