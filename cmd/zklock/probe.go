package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"
)

// probeTimeout bounds each dial of refusedEverywhere: a server that neither accepts nor
// refuses by then is left to the framework's --connect-timeout.
const probeTimeout = time.Second

// refusedEverywhere dials each server once and returns an error naming them all when every
// dial was refused (a wrong port, no server started): then waiting --connect-timeout for a
// session cannot help (issue 26.6: it did wait). Any server that accepts, times out or fails
// otherwise returns nil, and the framework's connect decides.
func refusedEverywhere(ctx context.Context, servers []string) error {
	d := net.Dialer{Timeout: probeTimeout}
	why := make([]string, 0, len(servers))
	for _, s := range servers {
		addr := s
		if _, _, err := net.SplitHostPort(s); err != nil {
			addr = net.JoinHostPort(s, "2181") // go-zookeeper's default port
		}
		c, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			c.Close()
			return nil
		}
		if !errors.Is(err, syscall.ECONNREFUSED) {
			return nil
		}
		why = append(why, fmt.Sprintf("%s (%v)", s, err))
	}
	return fmt.Errorf("every ZooKeeper server refused the connection: tried %s", strings.Join(why, ", "))
}
