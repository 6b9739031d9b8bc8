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


def mark(m):
    """Tells the driver a phase mark and waits for its go-ahead (it measures the server there)."""
    print(json.dumps({"mark": m}), flush=True)
    sys.stdin.readline()


def num_children(obs, path):
    try:
        st = obs.exists(path)
    except Exception:  # noqa: BLE001 - parent not created yet
        return -1
    return -1 if st is None else st.numChildren


def depth(sc):
    """One holder and `waiters` waiters over the sessions on one path; memory once the queue is
    full; `releases` timed single releases (the releaser does not queue again); then the rest of the
    queue drains on its own. Filling and draining are each bounded by budget-ms."""
    s, waiters = int(sc["sessions"]), int(sc["waiters"])
    budget, n = int(sc["budget-ms"]) / 1e3, waiters + 1
    dbudget = int(sc.get("drain-budget-ms", sc["budget-ms"])) / 1e3
    cs = [connect() for _ in range(min(s, n))]
    obs = connect()
    path = sc["root"] + "/lock"
    acq_at, rel_at = [0.0] * n, [0.0] * n
    acquired, errs = queue.Queue(), []
    orders = [threading.Event() for _ in range(n)]

    def drain():
        for o in orders:
            o.set()
    g = Guard()

    def worker(i, lk):
        try:
            lk.acquire()
            acq_at[i] = time.monotonic()
            g.check(1, 1)
            acquired.put(i)
            orders[i].wait()  # set by the driver's order, or by the drain
            rel_at[i] = time.monotonic()
            lk.release()
        except Exception as e:  # noqa: BLE001 - reported in the result
            errs.append(e)
            acquired.put(-1)

    def nxt(timeout):
        i = acquired.get(timeout=max(timeout, 0.001))
        if i < 0:
            raise RuntimeError("acquirer failed: %r" % errs[0])
        return i

    r = {"sessions": s, "waiters": waiters, "extra": {}}
    try:
        threading.Thread(target=worker, args=(0, cs[0].Lock(path)), daemon=True).start()
        nxt(60)
        mem0 = rss_bytes()
        t0 = time.monotonic()
        for j in range(1, n):
            threading.Thread(target=worker, args=(j, cs[j % len(cs)].Lock(path)), daemon=True).start()
        have = 0
        while have < n:
            have = num_children(obs, path)
            if errs:
                raise RuntimeError("while %d of %d queued: %r" % (have, n, errs[0]))
            if time.monotonic() - t0 > budget:
                raise RuntimeError("queue did not fill within %.0f s: %d of %d" % (budget, have, n))
            time.sleep(0.005)
        r["extra"]["fill_s"] = time.monotonic() - t0
        mark("filled")
        r["mem_bytes_per_waiter"] = (rss_bytes() - mem0) / waiters
        k = min(int(sc["releases"]), waiters)
        mark("start")
        holder, handoffs, cpu0 = 0, [], time.process_time()
        until = time.monotonic() + dbudget
        try:
            for _ in range(k):
                orders[holder].set()
                nx = nxt(until - time.monotonic())
                handoffs.append(acq_at[nx] - rel_at[holder])
                holder = nx
        finally:
            mark("end")
        r.update({"cycles": k, "handoff_p50_ms": pct(handoffs, 0.5), "p99_ms": pct(handoffs, 0.99),
                  "client_cpu_us_per_cycle": (time.process_time() - cpu0) * 1e6 / k})
        drain()
        have, last, deadline = k + 1, acq_at[holder], time.monotonic() + dbudget
        while have < n:
            try:
                last = acq_at[nxt(deadline - time.monotonic())]
            except queue.Empty:
                break
            have += 1
        r.update({"total_cycles": have, "violations": g.violations})
        r["extra"]["drained"] = have
        if have < n:  # not a failure: the table shows how far the drain got within the bound
            r["extra"]["drain_bound_s"] = dbudget
        else:
            r["drain_s"] = last - rel_at[0]
        return r
    finally:
        drain()
        # Closing 100 clients under thousands of blocked waiters can take minutes: close in the
        # background, for at most 10 s here (depth scenarios run last in the process).
        closer = threading.Thread(target=close_all, args=(cs + [obs],), daemon=True)
        closer.start()
        closer.join(10)


def depth_limit(sc):
    """One acquirer behind `waiters` nodes the driver created (they sort after ours): the listing
    carries them all. Bounded by budget-ms."""
    cs = [connect()]
    try:
        lk = cs[0].Lock(sc["root"] + "/lock")
        t0 = time.monotonic()
        ok = lk.acquire(timeout=int(sc["budget-ms"]) / 1e3)
        ms = (time.monotonic() - t0) * 1e3
        if not ok:
            raise RuntimeError("no acquisition within %s ms behind %s nodes" % (sc["budget-ms"], sc["waiters"]))
        lk.release()
        return {"sessions": 1, "waiters": int(sc["waiters"]), "cycles": 1, "total_cycles": 1, "extra": {"acquire_ms": ms}}
    finally:
        close_all(cs)


KINDS = {"uncontended": uncontended, "contended": loops, "many": loops,
         "semaphore": loops, "herd": herd, "depth": depth, "depth-limit": depth_limit}


def main():
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        if not line.strip() or line.strip() == "go":
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
