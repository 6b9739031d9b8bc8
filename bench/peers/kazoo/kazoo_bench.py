#!/usr/bin/python3
"""kazoo_bench runs the zkrecipes benchmark scenarios (bench/internal/harness) over kazoo's recipes.

Usage: /usr/bin/python3 kazoo_bench.py <connectString>
Reads one scenario per stdin line (the flags of harness.Scenario.Args) and prints one JSON result per
line, with the same field names and measurement rules as the Go harness. kazoo has no multi-lock;
rw is reported unsupported (see build_cycle).
"""
import json
import os
import queue
import sys
import threading
import time

from kazoo.client import KazooClient

SERVERS = sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:2181"


def connect():
    c = KazooClient(hosts=SERVERS, timeout=30.0)
    c.start(timeout=30)
    return c


def close_all(cs):
    for c in cs:
        try:
            c.stop()
            c.close()
        except Exception:
            pass


class Guard:
    def __init__(self):
        self.lock = threading.Lock()
        self.holders = 0
        self.violations = 0

    def check(self, limit, weight):
        with self.lock:
            self.holders += weight
            if self.holders > limit:
                self.violations += 1
            self.holders -= weight


def lock_cycle(lk, g, limit, weight):
    def run():
        lk.acquire()
        g.check(limit, weight)
        lk.release()
    return run


def pct(xs, q):
    if not xs:
        return 0.0
    s = sorted(xs)
    return s[int(q * (len(s) - 1) + 0.5)] * 1e3


def uncontended(sc):
    cs = [connect()]
    try:
        lk = cs[0].Lock(sc["root"] + "/lock")
        for _ in range(int(sc["warm-cycles"])):
            lk.acquire()
            lk.release()
        lat, dur = [], int(sc["duration-ms"]) / 1e3
        cpu0, start = time.process_time(), time.monotonic()
        while time.monotonic() - start < dur:
            t0 = time.monotonic()
            lk.acquire()
            lk.release()
            lat.append(time.monotonic() - t0)
        secs = time.monotonic() - start
        return {"sessions": 1, "cycles": len(lat), "total_cycles": len(lat) + int(sc["warm-cycles"]), "seconds": secs, "cycles_per_sec": len(lat) / secs,
                "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99),
                "client_cpu_us_per_cycle": (time.process_time() - cpu0) * 1e6 / max(len(lat), 1)}
    finally:
        close_all(cs)


def build_cycle(c, i, sc, g):
    root, kind = sc["root"], sc["kind"]
    if kind == "contended":
        return lock_cycle(c.Lock(root + "/lock"), g, 1, 1)
    if kind == "many":
        return lock_cycle(c.Lock("%s/lock-%d" % (root, i)), Guard(), 1, 1)
    if kind == "semaphore":
        n = int(sc["leases"])
        return lock_cycle(c.Semaphore(root + "/sem", max_leases=n), g, n, 1)
    # rw is not run: issue 5 asks for it only from zkrecipes and Curator, and a quick trial of
    # kazoo 2.8.0's ReadLock/WriteLock in this loop made no progress (0 cycles), not investigated.
    return None


class Workers:
    def __init__(self, n):
        self.stopped = False
        self.err = None
        self.threads = []
        self.counts = [0] * n

    def start(self, i, cycle):
        def loop():
            try:
                while not self.stopped:
                    cycle()
                    self.counts[i] += 1
            except Exception as e:  # noqa: BLE001 - reported in the result
                if not self.stopped and self.err is None:
                    self.err = e
        t = threading.Thread(target=loop, daemon=True)
        self.threads.append(t)
        t.start()

    def window(self, sc, r):
        time.sleep(int(sc["warmup-ms"]) / 1e3)
        before, cpu0, t0 = list(self.counts), time.process_time(), time.monotonic()
        time.sleep(int(sc["duration-ms"]) / 1e3)
        after, secs = list(self.counts), time.monotonic() - t0
        per = [a - b for a, b in zip(after, before)]
        total = sum(per)
        r.update({"cycles": total, "seconds": secs, "cycles_per_sec": total / secs,
                  "min_per_client": min(per), "max_per_client": max(per),
                  "client_cpu_us_per_cycle": (time.process_time() - cpu0) * 1e6 / max(total, 1)})

    def abort(self, cs):
        """Stops without draining the queue: closing the sessions fails blocked acquirers."""
        self.stopped = True
        close_all(cs)
        deadline = time.monotonic() + 2
        for t in self.threads:
            t.join(max(0.001, deadline - time.monotonic()))
        if self.err is not None:
            raise self.err

    def stop(self, cs):
        self.stopped = True
        deadline = time.monotonic() + 30
        for t in self.threads:
            t.join(max(0.001, deadline - time.monotonic()))
        if any(t.is_alive() for t in self.threads):
            close_all(cs)
        if self.err is not None:
            raise self.err


def loops(sc):
    n = int(sc["sessions"])
    cs = [connect() for _ in range(n)]
    try:
        g = Guard()
        cycles = [build_cycle(cs[i], i, sc, g) for i in range(n)]
        if cycles[0] is None:
            return {"unsupported": True}
        w = Workers(n)
        for i, c in enumerate(cycles):
            w.start(i, c)
        r = {"sessions": n}
        w.window(sc, r)
        w.stop(cs)
        r["violations"] = g.violations
        r["total_cycles"] = sum(w.counts)
        return r
    finally:
        close_all(cs)


def wait_queue(obs, path, want):
    deadline = time.monotonic() + 60
    while True:
        try:
            have = len(obs.get_children(path))
        except Exception:  # parent not created yet
            have = 0
        if have >= want:
            return
        if time.monotonic() > deadline:
            raise RuntimeError("queue did not fill: %d < %d" % (have, want))
        time.sleep(0.002)


def herd(sc):
    n, releases = int(sc["sessions"]), int(sc["releases"])
    cs = [connect() for _ in range(n + 1)]
    obs = connect()
    path = sc["root"] + "/lock"
    acq_at, rel_at = [0.0] * (n + 1), [0.0] * (n + 1)
    acquired, orders, errs = queue.Queue(), [queue.Queue() for _ in range(n + 1)], []
    total = [0]

    def worker(i, lk):
        try:
            while True:
                lk.acquire()
                acq_at[i] = time.monotonic()
                total[0] += 1
                acquired.put(i)
                again = orders[i].get()
                rel_at[i] = time.monotonic()
                lk.release()
                if not again:
                    return
        except Exception as e:  # noqa: BLE001
            errs.append(e)

    def nxt():
        try:
            return acquired.get(timeout=60)
        except queue.Empty:
            raise RuntimeError("no acquisition within 60 s: %r" % errs)

    threads = [threading.Thread(target=worker, args=(i, cs[i].Lock(path)), daemon=True) for i in range(n + 1)]
    try:
        threads[0].start()
        holder = nxt()
        for t in threads[1:]:
            t.start()
        handoffs, cpu = [], 0.0
        for r in range(releases + 1):
            wait_queue(obs, path, n + 1)
            c0 = time.process_time()
            orders[holder].put(True)
            nx = nxt()
            if r > 0:
                cpu += time.process_time() - c0
                handoffs.append(acq_at[nx] - rel_at[holder])
            holder = nx
        for left in range(n + 1, 0, -1):
            orders[holder].put(False)
            if left > 1:
                holder = nxt()
        for t in threads:
            t.join(10)
        return {"sessions": n, "cycles": len(handoffs), "total_cycles": total[0], "handoff_p50_ms": pct(handoffs, 0.5),
                "p99_ms": pct(handoffs, 0.99),
                "client_cpu_us_per_cycle": cpu * 1e6 / max(len(handoffs), 1)}
    finally:
        close_all(cs + [obs])


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def depth(sc):
    s, waiters = int(sc["sessions"]), int(sc["waiters"])
    cs = [connect() for _ in range(s)]
    obs = connect()
    path = sc["root"] + "/lock"
    try:
        g = Guard()
        first = cs[0].Lock(path)
        w = Workers(waiters)
        mem0 = rss_bytes()
        first.acquire()
        for j in range(1, waiters):
            w.start(j, lock_cycle(cs[j % s].Lock(path), g, 1, 1))
        qerr = None
        try:
            wait_queue(obs, path, waiters)
        except RuntimeError as e:
            qerr = e
        mem = rss_bytes() - mem0
        first.release()
        w.start(0, lock_cycle(first, g, 1, 1))
        if qerr is not None:
            w.stop(cs)
            raise qerr
        r = {"sessions": s, "waiters": waiters}
        w.window(sc, r)
        w.abort(cs)
        r.update({"violations": g.violations, "total_cycles": sum(w.counts) + 1, "mem_bytes_per_waiter": mem / max(waiters - 1, 1)})
        return r
    finally:
        close_all(cs + [obs])


KINDS = {"uncontended": uncontended, "contended": loops, "many": loops,
         "semaphore": loops, "herd": herd, "depth": depth}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        sc = {}
        for f in line.split():
            if f.startswith("--") and "=" in f:
                k, v = f[2:].split("=", 1)
                sc[k] = v
        fn = KINDS.get(sc.get("kind"))
        try:
            r = fn(sc) if fn else {"unsupported": True}
        except Exception as e:  # noqa: BLE001 - reported in the result
            r = {"error": "%s: %s" % (type(e).__name__, e)}
        r.update({"peer": "kazoo", "kind": sc.get("kind")})
        print(json.dumps(r), flush=True)
    os._exit(0)  # kazoo threads of failed sessions must not keep the process alive


if __name__ == "__main__":
    main()
