// CuratorSticky runs the sticky-lease scenarios of issue 28 (bench/internal/harness sticky.go and
// readmostly.go) over Curator's InterProcessMutex and InterProcessReadWriteLock, for CuratorBench:
// same fields, same measurement rules as the Go harness. s1 and s5-w are CuratorBench.uncontended.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;

final class CuratorSticky {
    private CuratorSticky() {}

    // pick is harness.affinityPick: own-pct % of the time one of session i's own share of the
    // paths, else one of the others, uniformly.
    static int pick(ThreadLocalRandom rnd, int i, int sessions, int paths, int ownPct) {
        int share = paths / sessions;
        if (rnd.nextInt(100) < ownPct) return i * share + rnd.nextInt(share);
        int k = rnd.nextInt(paths - share);
        return k >= i * share ? k + share : k;
    }

    // affinity (s2): one worker per session over all the paths, one mutex per path per session,
    // a holder check per path.
    static Map<String, Object> affinity(Map<String, String> sc) throws Exception {
        int n = CuratorBench.num(sc, "sessions"), paths = CuratorBench.num(sc, "paths"), own = CuratorBench.num(sc, "own-pct");
        List<CuratorFramework> cs = CuratorBench.connectAll(n);
        try {
            CuratorBench.Guard[] guards = new CuratorBench.Guard[paths];
            for (int k = 0; k < paths; k++) guards[k] = new CuratorBench.Guard();
            CuratorBench.Workers w = new CuratorBench.Workers();
            w.counts = new AtomicLongArray(n);
            for (int i = 0; i < n; i++) {
                CuratorBench.Cycle[] cyc = new CuratorBench.Cycle[paths];
                for (int k = 0; k < paths; k++) {
                    InterProcessMutex m = new InterProcessMutex(cs.get(i), sc.get("root") + "/lock-" + k);
                    cyc[k] = CuratorBench.lockCycle(new CuratorBench.LockLocker(m), guards[k], 1, 1);
                }
                int id = i;
                w.start(i, () -> cyc[pick(ThreadLocalRandom.current(), id, n, paths, own)].run());
            }
            Map<String, Object> r = new HashMap<>();
            w.window(sc, r);
            w.stop(cs);
            long viol = 0;
            for (CuratorBench.Guard g : guards) viol += g.violations.get();
            r.put("sessions", n); r.put("violations", viol); r.put("total_cycles", w.total());
            return r;
        } finally { CuratorBench.closeAll(cs); }
    }

    // cycle is one acquisition of alternate: the timed acquire, the check, the release.
    static long cycle(InterProcessLock l, CuratorBench.Guard g) throws Exception {
        long t0 = System.nanoTime();
        l.acquire();
        long d = System.nanoTime() - t0;
        if (g.holders.incrementAndGet() > 1) g.violations.incrementAndGet();
        g.holders.decrementAndGet();
        l.release();
        return d;
    }

    // turn is one session's turn of alternate: the idle time, then `burst` cycles; it returns the
    // first acquire's time.
    static long turn(InterProcessLock l, CuratorBench.Guard g, long holdNs, int burst) throws Exception {
        if (holdNs > 0) Thread.sleep(holdNs / 1_000_000, (int) (holdNs % 1_000_000));
        long first = cycle(l, g);
        for (int k = 1; k < burst; k++) cycle(l, g);
        return first;
    }

    // alternate (s3, s4): two sessions take turns on one path, strictly, one thread driving both;
    // the first acquire of each turn is timed, every acquisition counted.
    static Map<String, Object> alternate(Map<String, String> sc) throws Exception {
        List<CuratorFramework> cs = CuratorBench.connectAll(2);
        try {
            String path = sc.get("root") + "/lock";
            InterProcessLock[] ls = {new InterProcessMutex(cs.get(0), path), new InterProcessMutex(cs.get(1), path)};
            CuratorBench.Guard g = new CuratorBench.Guard();
            long holdNs = CuratorBench.num(sc, "hold-us") * 1000L, total = 0;
            int burst = Math.max(CuratorBench.num(sc, "burst"), 1);
            long warm = CuratorBench.num(sc, "warmup-ms") * 1_000_000L, dur = CuratorBench.num(sc, "duration-ms") * 1_000_000L;
            long start = System.nanoTime();
            for (int i = 0; System.nanoTime() - start < warm || i < 2; i++, total += burst) turn(ls[i % 2], g, holdNs, burst);
            List<Long> lat = new ArrayList<>();
            long cpu0 = CuratorBench.cpuNs();
            start = System.nanoTime();
            for (int i = 0; System.nanoTime() - start < dur; i++, total += burst) lat.add(turn(ls[i % 2], g, holdNs, burst));
            double secs = (System.nanoTime() - start) / 1e9;
            long n = (long) lat.size() * burst;
            Map<String, Object> r = new HashMap<>();
            r.put("sessions", 2); r.put("cycles", n); r.put("total_cycles", total); r.put("seconds", secs);
            r.put("cycles_per_sec", n / secs); r.put("p50_ms", CuratorBench.pct(lat, 0.5));
            r.put("p99_ms", CuratorBench.pct(lat, 0.99)); r.put("violations", g.violations.get());
            r.put("client_cpu_us_per_cycle", (CuratorBench.cpuNs() - cpu0) / 1e3 / Math.max(n, 1));
            return r;
        } finally { CuratorBench.closeAll(cs); }
    }

    // readMostly (s5): `sessions` readers loop on the read lock; one more session takes the write
    // lock after each pause of interval-ms; its acquires in the window are timed.
    static Map<String, Object> readMostly(Map<String, String> sc) throws Exception {
        int n = CuratorBench.num(sc, "sessions");
        long interval = CuratorBench.num(sc, "interval-ms"), ww = 1L << 32;
        List<CuratorFramework> cs = CuratorBench.connectAll(n + 1);
        String path = sc.get("root") + "/rw";
        try {
            CuratorBench.Guard g = new CuratorBench.Guard();
            CuratorBench.Workers w = new CuratorBench.Workers();
            w.counts = new AtomicLongArray(n);
            for (int i = 0; i < n; i++) {
                InterProcessReadWriteLock rw = new InterProcessReadWriteLock(cs.get(i), path);
                w.start(i, CuratorBench.lockCycle(new CuratorBench.LockLocker(rw.readLock()), g, ww - 1, 1));
            }
            InterProcessLock wl = new InterProcessReadWriteLock(cs.get(n), path).writeLock();
            AtomicBoolean measuring = new AtomicBoolean(), stop = new AtomicBoolean();
            AtomicLong writes = new AtomicLong();
            AtomicReference<Throwable> err = new AtomicReference<>();
            List<Long> lat = new ArrayList<>();
            Thread writer = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        Thread.sleep(interval);
                        if (stop.get()) return;
                        boolean in = measuring.get();
                        long t0 = System.nanoTime();
                        wl.acquire();
                        long d = System.nanoTime() - t0;
                        if (g.holders.addAndGet(ww) > ww) g.violations.incrementAndGet();
                        g.holders.addAndGet(-ww);
                        if (in) synchronized (lat) { lat.add(d); }
                        writes.incrementAndGet();
                        wl.release();
                    }
                } catch (Throwable e) { err.compareAndSet(null, e); }
            });
            writer.setDaemon(true);
            writer.start();
            Map<String, Object> r = new HashMap<>();
            Thread.sleep(CuratorBench.num(sc, "warmup-ms"));
            measuring.set(true);
            w.measure(sc, r);
            measuring.set(false);
            stop.set(true);
            writer.join(30_000);
            w.stop(cs);
            if (err.get() != null) throw new Exception("writer", err.get());
            synchronized (lat) {
                r.put("p50_ms", CuratorBench.pct(lat, 0.5)); r.put("p99_ms", CuratorBench.pct(lat, 0.99));
                Map<String, Object> extra = new HashMap<>();
                extra.put("writes", lat.size());
                extra.put("writes_all", writes.get());
                r.put("extra", extra);
            }
            r.put("sessions", n); r.put("violations", g.violations.get()); r.put("total_cycles", w.total() + writes.get());
            return r;
        } finally { CuratorBench.closeAll(cs); }
    }
}
