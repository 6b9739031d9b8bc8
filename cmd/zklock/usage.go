package main

import (
	"fmt"
	"strings"
)

// globalFlagsHelp documents the flags every command accepts.
const globalFlagsHelp = `Global flags (before or after the command):
  --servers host:port,...   ZooKeeper servers (default: $ZK_SERVERS)
  --namespace NS            prefix every path with /NS, as Curator's namespace
  --auth-file FILE          authenticate with the digest scheme as the user:password
                            on FILE's first line (also $ZKLOCK_AUTH_FILE, or
                            $ZKLOCK_AUTH=user:password)
  --auth user:password      the same from argv: any user of the host can read it there
  --acl A                   the ACL of the nodes zklock creates: creator (only the
                            credentials' identity; the default with credentials),
                            creator-read (and READ for anyone, so anonymous holders
                            works) or open (anyone; the default without). See
                            docs/security.md
  --cacert FILE             TLS: trust the CAs in FILE (PEM) for the servers' certificates,
                            checked against the host names of --servers ($ZK_CACERT)
  --cert FILE, --key FILE   TLS: present this client certificate and key (PEM)
                            ($ZK_CERT, $ZK_KEY); any of the three turns TLS on
  --session-timeout D       requested session timeout (default 10s); exec's and
                            elect's --kill-grace default to a quarter of it
  --connect-timeout D       give up when no session exists after D (default 15s)
  --verbose                 print the servers tried, the session id, connection states,
                            lock events and the library's log (default: only errors)
  --error-policy P          when a held lock counts as lost: standard (on Suspended,
                            the default, as Curator's) or session (on Lost only)
A duration D needs a unit (500ms, 5s, 1m) and is positive; a count N is a whole
number of at least 1. Anything else is a usage error (exit 64).
`

// exitCodesHelp documents zklock's exit codes.
const exitCodesHelp = `Exit codes:
  0     success; exec, elect: the command's own exit code (128+N if it died of signal N)
  64    usage error: bad flags, arguments, paths (relative, say) or command
  69    could not connect to ZooKeeper within --connect-timeout, or the connection failed
  70    any other failure of zklock (a ZooKeeper error)
  73    exec, lock --try: the lock is busy
  75    exec, lock --timeout: the lock was not acquired in time
  76    exec: the lock was lost while the command ran; elect: the leadership was;
        the command was stopped; lock: the lock was lost while held
  77    exec, lock --revocable: the lock was revoked (zklock revoke); the command was
        stopped
  126   exec: the command could not be started
  127   exec: the command was not found
  130   interrupted (SIGINT, SIGTERM or SIGHUP) before the command started, or before
        lock acquired the lock
`

func mainUsage() string {
	var b strings.Builder
	b.WriteString(`zklock runs commands under ZooKeeper locks that Java processes using Apache
Curator 5 share (same znode layout), and shows who holds them.

Usage:
  zklock [global flags] COMMAND [flags] [arguments]

Commands:
`)
	for _, c := range commands() {
		fmt.Fprintf(&b, "  %-10s  %s\n", c.name, c.short)
	}
	b.WriteString("  help        show a command's usage and an example: zklock help exec\n\n")
	b.WriteString(globalFlagsHelp + "\n" + exitCodesHelp + `
Example:
  export ZK_SERVERS=zk1:2181,zk2:2181,zk3:2181
  zklock exec --timeout 30s /locks/backup -- ./backup.sh --full
  zklock elect /elections/scheduler -- ./scheduler
  zklock holders /locks/backup
`)
	return b.String()
}

const execUsage = `Usage: zklock exec [--read | --write | --semaphore N] [--kazoo] [--timeout D] [--try]
                   [--kill-grace D] [--name NAME] [--revocable] [--pass-stdin] PATH... -- CMD [ARGS...]

Acquire a lock at PATH, run CMD while it is held, release it when CMD exits.
With several PATHs, take them all as one (mutexes, or --read/--write locks):
one ZooKeeper transaction queues the whole set, so that exec's naming the same
paths in any order cannot deadlock; ZKLOCK_NODE then lists the nodes, comma-
separated, and ZKLOCK_TOKEN is the set's one token. With --try, the set is
taken only if every lock is free at once; else zklock exits 73 naming the
first busy PATH, and none of the set's nodes is left. A set takes neither
--semaphore nor --revocable (nor --kazoo). Do not mix it with Curator's
InterProcessMultiLock on those paths (docs/multilock.md).
By default the lock is an InterProcessMutex; --read and --write take one side
of an InterProcessReadWriteLock; --semaphore N takes one lease of an
InterProcessSemaphoreV2 that admits N holders. Java processes using Curator
on the same PATH contend with us. With --kazoo, PATH is a kazoo (Python) lock
instead: the mutex contends with kazoo's Lock and WriteLock, --read with its
ReadLock, --write with its WriteLock (docs/interop.md); never use --kazoo and
Curator's layout on one PATH. A PATH that holds another recipe's nodes (a
mutex's beside --write, kazoo's without --kazoo, a semaphore's without
--semaphore, or a semaphore whose holders took another --semaphore N) is
refused with exit 64, naming the flags that fit it.

CMD gets in its environment:
  ZKLOCK_PATH    the lock path (PATH)
  ZKLOCK_NODE    our lock node, for example PATH/_c_<uuid>-lock-0000000007
  ZKLOCK_TOKEN   the fencing token (the node's czxid): pass it to the resource
                 you protect and have it refuse tokens lower than the highest seen

CMD runs in its own process group. SIGINT, SIGTERM and SIGHUP sent to zklock
are forwarded to it; if CMD has not exited --kill-grace later, its group gets
SIGKILL (a second signal sends it at once). When the lock may be lost (session Suspended or Lost, per
--error-policy), CMD's process group gets SIGTERM, then SIGKILL after
--kill-grace, and zklock exits 76. When CMD exits, what is left of its
process group is stopped the same way and the lock is released; zklock exits
with CMD's exit code. CMD's stdin is /dev/null unless --pass-stdin. As CMD
is not the terminal's foreground job, a CMD that reads the terminal is
stopped (SIGTTIN), holding the lock: zklock says so on stderr. Ctrl-Z
(SIGTSTP) of zklock stops CMD's process group, then zklock; when continued,
zklock continues CMD, or kills it (exit 76) if the lock was lost meanwhile.
SIGSTOP of zklock cannot be caught and stops zklock alone: use SIGTSTP.

The lock is released only once CMD and its process group have exited: after
a connection reset (the session survives) the next holder waits for that.
After a partition, ZooKeeper expires the session, and the next holder may
start, about a third of the session timeout after zklock told CMD: the
default --kill-grace, a quarter of the session timeout, ends CMD before
then.

If zklock dies, even of SIGKILL, CMD's process group dies within a second:
the kernel kills CMD, and a guardian process (zklock itself, in a session of
its own) kills the rest of the group. A process that leaves the group on
purpose (setsid, a daemon that double-forks into a new session) is out of
reach: do not run one under zklock.

Flags:
  --read            take the read lock (shared with other readers)
  --write           take the write lock (exclusive)
  --kazoo           PATH is a kazoo lock: our node is PATH/_c_<uuid>-__lock__<seq>
                    (--read: __rlock__), a contender to kazoo (one PATH, no --semaphore)
  --semaphore N     take one lease of a semaphore admitting N holders
  --timeout D       give up after D (exit 75); default: wait for ever
  --try             give up at once if the lock is busy (exit 73); with several
                    PATHs, if any of them is (none is taken); not with --timeout
  --kill-grace D    time between SIGTERM and SIGKILL (default: a quarter of the
                    session timeout, 2.5s at 10s; above a third of it, a partition
                    may let the next holder start first: zklock warns)
  --name NAME       a name stored in the lock node with host and pid, shown by holders
  --revocable       honour 'zklock revoke' (and Curator's Revoker): stop CMD as on a
                    lost lock, exit 77 (not with --semaphore)
  --pass-stdin      give CMD zklock's stdin (default: /dev/null)

Examples:
  zklock exec --timeout 1m /locks/backup -- ./backup.sh
  zklock exec --semaphore 3 /limits/crawler -- ./crawl.sh
  zklock exec --try /locks/cron-report -- sh -c 'report --fence "$ZKLOCK_TOKEN"'
`

const lockUsage = `Usage: zklock lock [--read | --write | --semaphore N] [--kazoo] [--timeout D]
                   [--try] [--name NAME] [--revocable] PATH

Acquire the lock at PATH (as exec does, the same kinds: a mutex by default),
print what was acquired on stdout, one KEY=VALUE line each:
  ZKLOCK_PATH=PATH
  ZKLOCK_NODE=PATH/_c_<uuid>-lock-0000000007   our lock node
  ZKLOCK_TOKEN=4294967302                      the fencing token (the node's czxid)
then hold the lock until zklock gets SIGINT, SIGTERM or SIGHUP: release it
and exit 0. Like 'etcdctl lock NAME' without a command: a shell script can
hold the lock in the background and read the token from the output.

If the lock is lost meanwhile (session Suspended or Lost, per --error-policy),
zklock says so on stderr and exits 76 at once: whoever waits for its exit
learns that the lock is gone. With --revocable, 'zklock revoke' makes it
release and exit 77.

Flags:
  --read            take the read lock (shared with other readers)
  --write           take the write lock (exclusive)
  --semaphore N     take one lease of a semaphore admitting N holders
  --kazoo           PATH is a kazoo lock, as for exec (no --semaphore)
  --timeout D       give up after D (exit 75); default: wait for ever
  --try             give up at once if the lock is busy (exit 73)
  --name NAME       a name stored in the lock node with host and pid, shown by holders
  --revocable       release and exit 77 when asked ('zklock revoke'; not with --semaphore)

Example:
  zklock lock --timeout 1m /locks/backup > /run/backup.lock &
  # ... read ZKLOCK_TOKEN from /run/backup.lock, work, then: kill %1
`

const electUsage = `Usage: zklock elect [--id ID] [--kill-grace D] [--pass-stdin] PATH -- CMD [ARGS...]
       zklock elect --listen PATH

Join the leader election at PATH and run CMD while this process is the
leader; resign when CMD exits. The election is a LeaderSelector, Curator 5's
layout (PATH/_c_<uuid>-lock-<seq>, data: the id), so Java candidates using
Curator's LeaderSelector on the same PATH take part; 'zklock holders PATH'
lists the leader, then the candidates in order, with their ids.

CMD gets in its environment:
  ZKLOCK_PATH    the election path (PATH)
  ZKLOCK_NODE    our candidate node, for example PATH/_c_<uuid>-lock-0000000003
  ZKLOCK_TOKEN   the term's fencing token (the node's czxid): it grows with
                 every term; have the resource you lead refuse lower ones
  ZKLOCK_ID      the candidate id (--id)

CMD runs in its own process group, and signals are forwarded to it, as with
exec. When the leadership may be lost (session Suspended or Lost, per
--error-policy), CMD's process group gets SIGTERM, then SIGKILL after
--kill-grace, and zklock exits 76. Run zklock elect again (under a service
manager, say) to become a candidate once more. When CMD exits, what is left
of its process group is stopped, zklock resigns (its node is deleted, the
next candidate leads) and exits with CMD's exit code. SIGINT or SIGTERM
while still a candidate leaves the election (exit 130).

zklock resigns only once CMD and its process group have exited, after a
lost leadership too: after a connection reset the next leader waits for
that. After a partition, ZooKeeper expires the session, and the next leader
may start, about a third of the session timeout after zklock told CMD: the
default --kill-grace, a quarter of the session timeout, ends CMD before
then.

If zklock dies, even of SIGKILL, CMD's process group dies within a second,
as with exec.

With --listen, zklock takes no part: it prints the current leader, then
every change, one line each, until SIGINT, SIGTERM or SIGHUP (exit 0):
  leader=ID node=PATH/_c_<uuid>-lock-0000000003 token=4294967302
  no leader
token is the term's fencing token (the leader's ZKLOCK_TOKEN). It waits on a
ZooKeeper watch of PATH (of its creation while PATH does not exist), without
polling; a leader whose term is shorter than one re-read may be missed.
While the connection is down it waits for it, and prints the leader again
only if it changed.

Flags:
  --id ID           the candidate id stored in its node, shown by holders and by
                    Curator's getParticipants (default HOST:PID)
  --kill-grace D    time between SIGTERM and SIGKILL (default: a quarter of the
                    session timeout, 2.5s at 10s), as for exec
  --listen          print the leader and its changes instead of taking part
  --pass-stdin      give CMD zklock's stdin (default: /dev/null), as for exec

Examples:
  zklock elect --id "$(hostname)" /elections/scheduler -- ./scheduler --fence "$ZKLOCK_TOKEN"
  zklock elect --listen /elections/scheduler
`

const holdersUsage = `Usage: zklock holders PATH... [--json]

List the lock at PATH: the holders first, then the queue. With several PATHs,
each in turn (--json: an array), then the sets (one GUID, one transaction:
zklock exec PATH1 PATH2 ...) that have a node in more than one of them. PATH may be an
InterProcessMutex, an InterProcessReadWriteLock (read and write nodes) or an
InterProcessSemaphoreV2 (its leases and its internal lock), made by zkrecipes
or by Curator, or a kazoo lock (kind kazoo: kazoo's and --kazoo nodes). For
each node: its path, its data, its session id (the ephemeral owner), its age,
and who made it: go (zkrecipes' identity: host, pid, name), java (Curator's
default data, an IP address), python (a node kazoo named; its data is kazoo's
identifier), zklock (a zklock elect candidate; its data is its --id) or unknown.

KIND is the node's recipe: the kind zkrecipes records in its identity (mutex,
read lock, write lock, semaphore, semaphore internal lock, leader latch, leader
selector, custom:NAME for a lock of your own driver), else what the node's
name tells (Curator's, kazoo's, and zkrecipes' nodes without a recorded kind),
else unknown. Curator's LeaderSelector nodes (whose data is the id) look like
a mutex's and show as mutex: the rule is the same. zklock elect's nodes show
as leader selector, origin zklock: their data is the --id, as Curator's, so
zklock marks them in the GUID of their name (it begins 7a6b6c6b), which no
client reads as data. ROLE is holds or waits where zklock knows the kind's rule
(mutex, selector, latch, read-write lock, semaphore; on a kazoo path kazoo
lock and kazoo read lock); for any other kind (custom:NAME, unknown) it is
"unknown": zklock does not guess who holds. REVOCABLE (JSON: revocable) is
yes when the holder honours 'zklock revoke' (zklock exec or lock --revocable),
no for another zklock node, "-" (absent) when the node does not say (Curator's,
kazoo's, zkrecipes' own). ROLE is foreign for a node that is
not ephemeral: no contender made it and no session's end removes it, so it
would block the lock (or take a semaphore slot) for ever; zkrecipes refuses to
queue behind it (recipes.ErrForeignNode). docs/security.md says how to remove it.

Names and data are any client's: the table escapes every control, bidi and
format character and every byte that is not UTF-8 (\n, \x1b, \u202e, \xff,
and \\ for a backslash), one line per node. --json is exact: "data" is the
data as text, and when it is not valid UTF-8 "data_base64" holds its bytes.

Flags:
  --json    print one JSON object instead of a table

Examples:
  zklock holders /locks/backup
  zklock holders --json /limits/crawler
`

const revokeUsage = `Usage: zklock revoke NODE

Ask the holder of the lock node NODE (a path that 'zklock holders' prints) to
release it, by writing "__REVOKE__" into it as Curator's Revoker does.
Revocation is cooperative: only a holder that made its lock revocable
reacts ('zklock exec --revocable', Curator's makeRevocable). A node that does
not exist is an error (exit 70). A holder whose zkrecipes identity says it is
not revocable is refused (exit 70) and nothing is written; for other holders
(Curator's, older ones) zklock says it cannot tell whether they will react.
NODE must be a contender node of a lock: its name [_c_<uuid>-]<lock name><10-digit
sequence> (lock-, __READ__, __WRIT__, lease-, latch-; __lock__ and __rlock__ of
exec --kazoo), its parent the lock's directory, the node ephemeral. Nodes kazoo
made are refused: kazoo never reads a revocation. Anything else, the lock's directory included,
is refused (exit 64) and nothing is written.

Example:
  zklock revoke /locks/backup/_c_0f1e9d0c-8c5e-4b8e-9d39-6a4c2b1f7e21-lock-0000000007
`

const versionUsage = `Usage: zklock version   (or: zklock --version)

Print zklock's version from its build information: the module version when
installed with 'go install .../cmd/zklock@VERSION', or, when built from a
checkout, "(devel)" or a pseudo-version with the commit's revision and time
("modified" when the checkout had local changes), then the Go version.

Example:
  zklock --version
`

const demoUsage = `Usage: zklock demo [--path P] [--workers N] [--rounds N] [--work D] [--quiet]

Contending workers, each with its own ZooKeeper session, take turns on one
InterProcessMutex and write to a fenced resource (a znode holding the highest
fencing token seen, written in a transaction guarded by the lock node). It
shows the waiter queue, a lock lost while its holder is told (one worker's
session is expired; needs the local server), and the stale write of the lost
holder refused by the resource. Several demos on one server exclude each other
too: the resource detects any overlap, across processes.

Without --servers or $ZK_SERVERS it starts a local ZooKeeper (Debian's
zookeeper package; 'make demo' installs it).

Flags:
  --path P       lock path (default /zkrecipes-demo/lock; the resource is P-resource)
  --workers N    contending workers (default 4)
  --rounds N     acquisitions per worker (default 10)
  --work D       longest critical section, random up to D (default 20ms)
  --quiet        print only the summary

Examples:
  zklock demo
  zklock demo --servers 127.0.0.1:2181 --workers 8 --rounds 50
`
