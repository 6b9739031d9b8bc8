package zktest

import (
	"fmt"
	"strings"
	"time"
)

// ticks converts d to a whole number of ticks, at least min.
func ticks(d, tick time.Duration, min int) int {
	n := int((d + tick - 1) / tick)
	if n < min {
		return min
	}
	return n
}

// renderConfig returns m's zoo.cfg. With more than one peer it lists the
// ensemble; otherwise the server runs standalone.
func renderConfig(m *Member, peers []*Member) string {
	c := m.cfg
	forceSync := "no"
	if c.forceSync {
		forceSync = "yes"
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("tickTime=%d", c.tickTime.Milliseconds())
	// Generous limits: JVMs start slowly on a loaded machine.
	line("initLimit=%d", ticks(10*time.Second, c.tickTime, 10))
	line("syncLimit=%d", ticks(3*time.Second, c.tickTime, 5))
	line("dataDir=%s", m.dir)
	line("clientPort=%d", m.clientPort)
	line("clientPortAddress=127.0.0.1")
	line("minSessionTimeout=%d", c.minSessionTimeout.Milliseconds())
	line("maxSessionTimeout=%d", c.maxSessionTimeout.Milliseconds())
	line("maxClientCnxns=0")
	line("4lw.commands.whitelist=*")
	line("admin.enableServer=false")
	line("forceSync=%s", forceSync)
	line("autopurge.purgeInterval=0")
	if len(peers) > 1 {
		line("standaloneEnabled=false")
		line("reconfigEnabled=false")
		for _, p := range peers {
			line("server.%d=127.0.0.1:%d:%d;127.0.0.1:%d", p.id, p.peerPort, p.electionPort, p.clientPort)
		}
	}
	return b.String()
}
