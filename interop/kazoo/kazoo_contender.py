"""kazoo_contender: kazoo's lock recipes driven by a line protocol, for zkrecipes' interop tests.

Usage: python3 kazoo_contender.py <connectString> <sessionTimeoutMs> <identifier> [--fix-649]

After connecting it prints "ready <sessionIdHex>" ("err connect ..." and exit 1 on failure).
Then it reads one command per line and answers exactly one line, "ok [...]" or "err <reason>",
until stdin ends or "quit". Commands run one at a time on the main thread:

  acquire PATH MS          kazoo Lock(PATH, identifier).acquire(timeout=MS/1000) -> ok <node path>
  try-acquire PATH         the same with blocking=False -> ok <node path> | err busy
  release PATH
  read-acquire PATH MS     kazoo ReadLock; read-release PATH
  write-acquire PATH MS    kazoo WriteLock; write-release PATH
  contenders PATH          kazoo Lock(PATH).contenders(): the identifiers in queue order, as JSON
  version                  kazoo's version
  ping, quit

A timeout answers "err timeout". Every lock is created with the identifier given on the command
line as its node data, and with no extra_lock_patterns: zkrecipes' kazoo drivers name their nodes
the way kazoo does.

--fix-649 replaces Lock._get_predecessor by kazoo 2.9's (python-zk/kazoo#649, fixed in 2.9.0):
kazoo 2.8's ReadLock also waits for write nodes queued after it, which deadlocks with them.
"""
import json
import logging
import sys

import kazoo.version
from kazoo.client import KazooClient
from kazoo.exceptions import LockTimeout
from kazoo.recipe import lock as kazoo_lock


def predecessor_2_9(self, node):
    """kazoo 2.9.0's Lock._get_predecessor: only contenders with a smaller sequence count."""
    node_sequence = node[len(self.prefix):]
    children = self.client.get_children(self.path)
    found_self = False
    contender_matches = []
    for child in children:
        match = self._contenders_re.search(child)
        if match is not None:
            if match.group(1) < node_sequence:
                contender_matches.append(match)
        if child == node:
            found_self = match
    if found_self is False:
        raise kazoo_lock.ForceRetryError()
    if not contender_matches:
        return None
    return sorted(contender_matches, key=lambda m: m.groups())[-1].string


class Contender:
    def __init__(self, client, identifier):
        self.client = client
        self.identifier = identifier
        self.locks = {}  # (kind, path) -> held kazoo lock

    def make(self, kind, path):
        cls = {"lock": self.client.Lock, "read": self.client.ReadLock, "write": self.client.WriteLock}[kind]
        return cls(path, self.identifier)

    def acquire(self, kind, path, timeout=None, blocking=True):
        if (kind, path) in self.locks:
            return "err already held"
        lk = self.make(kind, path)
        try:
            got = lk.acquire(blocking=blocking, timeout=timeout)
        except LockTimeout:
            return "err timeout"
        if not got:
            return "err timeout" if blocking else "err busy"
        self.locks[(kind, path)] = lk
        return "ok " + path + "/" + lk.node

    def release(self, kind, path):
        lk = self.locks.pop((kind, path), None)
        if lk is None:
            return "err not held"
        lk.release()
        return "ok"

    def handle(self, f):
        cmd = f[0]
        for kind in ("read", "write"):
            if cmd == kind + "-acquire":
                return self.acquire(kind, f[1], int(f[2]) / 1000.0)
            if cmd == kind + "-release":
                return self.release(kind, f[1])
        if cmd == "acquire":
            return self.acquire("lock", f[1], int(f[2]) / 1000.0)
        if cmd == "try-acquire":
            return self.acquire("lock", f[1], blocking=False)
        if cmd == "release":
            return self.release("lock", f[1])
        if cmd == "contenders":
            return "ok " + json.dumps(self.client.Lock(f[1]).contenders())
        if cmd == "version":
            return "ok " + kazoo.version.__version__
        return "err unknown command " + cmd


def main():
    if len(sys.argv) < 4:
        print("usage: kazoo_contender.py <connectString> <sessionTimeoutMs> <identifier> [--fix-649]",
              file=sys.stderr)
        sys.exit(2)
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    if "--fix-649" in sys.argv[4:]:
        kazoo_lock.Lock._get_predecessor = predecessor_2_9
    client = KazooClient(hosts=sys.argv[1], timeout=int(sys.argv[2]) / 1000.0)
    try:
        client.start(timeout=30)
    except Exception as e:  # a timeout or a refused connection
        print("err connect " + " ".join(str(e).split()), flush=True)
        sys.exit(1)
    print("ready %x" % client.client_id[0], flush=True)
    c = Contender(client, sys.argv[3])
    for line in sys.stdin:
        f = line.split()
        if not f:
            continue
        try:
            reply = "ok" if f[0] in ("ping", "quit") else c.handle(f)
        except Exception as e:
            reply = "err %s: %s" % (type(e).__name__, " ".join(str(e).split()))
        print(reply, flush=True)
        if f[0] == "quit":
            break
    client.stop()
    client.close()


if __name__ == "__main__":
    main()
