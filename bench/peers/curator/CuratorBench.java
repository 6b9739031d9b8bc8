// CuratorBench runs the zkrecipes benchmark scenarios (bench/internal/harness) over Apache Curator
// 5.x recipes. Usage: java -cp <curator jars> CuratorBench <connectString>
// It reads one scenario per stdin line (the flags of harness.Scenario.Args) and prints one JSON
// result per line, with the same field names and the same measurement rules as the Go harness.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorBench {
    static String servers;
    static BufferedReader in;

    interface Locker { void acquire() throws Exception; void release() throws Exception; }
    interface Cycle { void run() throws Exception; }

    static final class LockLocker implements Locker {
        final InterProcessLock l;
        LockLocker(InterProcessLock l) { this.l = l; }
        public void acquire() throws Exception { l.acquire(); }
        public void release() throws Exception { l.release(); }
    }

    static final class SemLocker implements Locker {
        final InterProcessSemaphoreV2 s;
        Lease lease;
        SemLocker(InterProcessSemaphoreV2 s) { this.s = s; }
        public void acquire() throws Exception { lease = s.acquire(); }
        public void release() throws Exception { lease.close(); lease = null; }
    }

    static final class Guard {
        final AtomicLong holders = new AtomicLong();
        final AtomicLong violations = new AtomicLong();
    }

    static Cycle lockCycle(Locker l, Guard g, long limit, long weight) {
        return () -> {
            l.acquire();
            if (g.holders.addAndGet(weight) > limit) g.violations.incrementAndGet();
            g.holders.addAndGet(-weight);
            l.release();
        };
    }

    public static void main(String[] args) throws Exception {
        servers = args[0];
        in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank() || line.trim().equals("go")) continue;
            Map<String, String> sc = parse(line);
            Map<String, Object> r;
            try {
                r = run(sc);
            } catch (Throwable e) {
                r = new HashMap<>();
                String msg = String.valueOf(e);
                for (Throwable c = e.getCause(); c != null && c != e; c = c.getCause()) msg += ": " + c;
                r.put("error", msg);
            }
            r.put("peer", "Curator");
            r.put("kind", sc.get("kind"));
            System.out.println(json(r));
            System.out.flush();
        }
        System.exit(0);
    }

    static Map<String, String> parse(String line) {
        Map<String, String> m = new HashMap<>();
        for (String f : line.trim().split("\\s+")) {
            int eq = f.indexOf('=');
            if (f.startsWith("--") && eq > 0) m.put(f.substring(2, eq), f.substring(eq + 1));
        }
        return m;
    }

    static int num(Map<String, String> sc, String k) { return Integer.parseInt(sc.getOrDefault(k, "0")); }

    static Map<String, Object> run(Map<String, String> sc) throws Exception {
        switch (sc.get("kind")) {
            case "uncontended": case "uncontended-write": return uncontended(sc);
            case "affinity": return CuratorSticky.affinity(sc);
            case "alternate": return CuratorSticky.alternate(sc);
            case "read-mostly": return CuratorSticky.readMostly(sc);
            case "contended": case "many": case "rw": case "semaphore": case "multilock": return loops(sc);
            case "herd": return herd(sc);
            case "depth": return depth(sc);
            case "depth-limit": return depthLimit(sc);
            case "multi-uncontended": if (sc.get("mode").equals("seq")) return multiUncontended(sc); else return unsupported();
            case "multi-contended": if (sc.get("mode").equals("seq")) return multiContended(sc); else return unsupported();
            default:
                Map<String, Object> r = new HashMap<>();
                r.put("unsupported", true);
                return r;
        }
    }

    static Map<String, Object> unsupported() {
        Map<String, Object> r = new HashMap<>();
        r.put("unsupported", true);
        return r;
    }

    // multiUncontended: one InterProcessMultiLock over paths p0..p<k-1> (sorted), acquire+release
    // cycles; marks "first" after the first cycle and "end" after the window (the counting pass).
    static Map<String, Object> multiUncontended(Map<String, String> sc) throws Exception {
        List<CuratorFramework> cs = connectAll(1);
        try {
            List<String> paths = new ArrayList<>();
            for (int i = 0; i < num(sc, "paths"); i++) paths.add(sc.get("root") + "/p" + i);
            InterProcessMultiLock m = new InterProcessMultiLock(cs.get(0), paths);
            int warm = Math.max(num(sc, "warm-cycles"), 1);
            for (int i = 0; i < warm; i++) { m.acquire(); m.release(); if (i == 0) mark("first"); }
            List<Long> lat = new ArrayList<>();
            long dur = num(sc, "duration-ms") * 1_000_000L, cpu0 = cpuNs(), start = System.nanoTime();
            while (System.nanoTime() - start < dur) {
                long t0 = System.nanoTime();
                m.acquire();
                m.release();
                lat.add(System.nanoTime() - t0);
            }
            double secs = (System.nanoTime() - start) / 1e9;
            mark("end");
            Map<String, Object> r = new HashMap<>();
            r.put("sessions", 1); r.put("cycles", lat.size()); r.put("seconds", secs);
            r.put("total_cycles", lat.size() + warm);
            r.put("cycles_per_sec", lat.size() / secs); r.put("p50_ms", pct(lat, 0.5)); r.put("p99_ms", pct(lat, 0.99));
            r.put("client_cpu_us_per_cycle", (cpuNs() - cpu0) / 1e3 / Math.max(lat.size(), 1));
            return r;
        } finally { closeAll(cs); }
    }

    // multiContended: each session loops: a random set of set-min..set-max of the paths, sorted
    // (Curator's InterProcessMultiLock takes its list in order: sorting is what keeps it from
    // deadlocking), acquired with acquire(deadline-ms) (false: a deadline hit), held hold-us, released.
    static Map<String, Object> multiContended(Map<String, String> sc) throws Exception {
        int n = num(sc, "sessions"), pool = num(sc, "paths"), lo = num(sc, "set-min"), hi = num(sc, "set-max");
        long holdNs = num(sc, "hold-us") * 1000L, deadline = num(sc, "deadline-ms");
        List<CuratorFramework> cs = connectAll(n);
        try {
            AtomicLongArray holders = new AtomicLongArray(pool);
            AtomicLong violations = new AtomicLong(), hitsAll = new AtomicLong(), hitsWin = new AtomicLong();
            AtomicBoolean measuring = new AtomicBoolean();
            List<List<Long>> waits = new ArrayList<>();
            Workers w = new Workers();
            w.counts = new AtomicLongArray(n);
            for (int i = 0; i < n; i++) {
                List<InterProcessLock> mutexes = new ArrayList<>();
                for (int p = 0; p < pool; p++) mutexes.add(new InterProcessMutex(cs.get(i), sc.get("root") + "/p" + p));
                List<Long> mine = new ArrayList<>();
                waits.add(mine);
                w.start(i, () -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    int k = lo + rnd.nextInt(hi - lo + 1);
                    List<Integer> idx = new ArrayList<>();
                    for (int p = 0; p < pool; p++) idx.add(p);
                    java.util.Collections.shuffle(idx, rnd);
                    idx = new ArrayList<>(idx.subList(0, k));
                    idx.sort(java.util.Comparator.comparing(p -> sc.get("root") + "/p" + p)); // path order
                    List<InterProcessLock> set = new ArrayList<>();
                    for (int p : idx) set.add(mutexes.get(p));
                    InterProcessMultiLock m = new InterProcessMultiLock(set);
                    long t0 = System.nanoTime();
                    boolean ok = m.acquire(deadline, TimeUnit.MILLISECONDS);
                    long wait = System.nanoTime() - t0;
                    boolean in = measuring.get();
                    if (!ok) {
                        hitsAll.incrementAndGet();
                        if (in) hitsWin.incrementAndGet();
                        throw new CountNot();
                    }
                    for (int p : idx) if (holders.incrementAndGet(p) > 1) violations.incrementAndGet();
                    java.util.concurrent.locks.LockSupport.parkNanos(holdNs);
                    for (int p : idx) holders.decrementAndGet(p);
                    if (in) { synchronized (mine) { mine.add(wait); } }
                    m.release();
                });
            }
            Map<String, Object> r = new HashMap<>();
            Thread.sleep(num(sc, "warmup-ms"));
            measuring.set(true);
            w.measure(sc, r);
            measuring.set(false);
            w.stop(cs);
            List<Long> all = new ArrayList<>();
            for (List<Long> l : waits) synchronized (l) { all.addAll(l); }
            r.put("p50_ms", pct(all, 0.5)); r.put("p99_ms", pct(all, 0.99));
            Map<String, Object> extra = new HashMap<>();
            extra.put("deadline_hits", hitsWin.get()); extra.put("deadline_hits_all", hitsAll.get());
            r.put("extra", extra);
            r.put("sessions", n); r.put("violations", violations.get()); r.put("total_cycles", w.total());
            return r;
        } finally { closeAll(cs); }
    }

    // CountNot: a cycle that ended without an acquisition (a deadline hit); the worker goes on.
    static final class CountNot extends RuntimeException {
        CountNot() { super(null, null, false, false); }
    }

    static CuratorFramework connect() throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.builder().connectString(servers)
                .sessionTimeoutMs(30000).connectionTimeoutMs(15000)
                .retryPolicy(new ExponentialBackoffRetry(100, 3)).build();
        c.start();
        if (!c.blockUntilConnected(30, TimeUnit.SECONDS)) throw new IllegalStateException("connect timeout");
        return c;
    }

    // connectAll and closeAll work in parallel: one by one, 64 Curator sessions take seconds.
    static List<CuratorFramework> connectAll(int n) throws Exception {
        List<java.util.concurrent.Future<CuratorFramework>> fs = new ArrayList<>();
        java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newFixedThreadPool(Math.min(n, 16));
        try {
            for (int i = 0; i < n; i++) fs.add(ex.submit(CuratorBench::connect));
            List<CuratorFramework> out = new ArrayList<>();
            Exception first = null;
            for (java.util.concurrent.Future<CuratorFramework> f : fs) {
                try { out.add(f.get()); } catch (Exception e) { if (first == null) first = e; }
            }
            if (first != null) { closeAll(out); throw first; }
            return out;
        } finally { ex.shutdown(); }
    }

    static void closeAll(List<CuratorFramework> cs) {
        if (cs.isEmpty()) return;
        java.util.concurrent.ExecutorService ex = java.util.concurrent.Executors.newFixedThreadPool(Math.min(cs.size(), 64));
        for (CuratorFramework c : cs) ex.submit(c::close);
        ex.shutdown();
        try { ex.awaitTermination(60, TimeUnit.SECONDS); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
    }

    static long cpuNs() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    static double pct(List<Long> ns, double q) {
        if (ns.isEmpty()) return 0;
        List<Long> s = new ArrayList<>(ns);
        s.sort(null);
        return s.get((int) (q * (s.size() - 1) + 0.5)) / 1e6;
    }

    // uncontended: a (InterProcessMutex) or uncontended-write (the write lock of an
    // InterProcessReadWriteLock); marks "first" after the first cycle and "end" after the window,
    // where the driver's counting pass reads its counts (s1).
    static Map<String, Object> uncontended(Map<String, String> sc) throws Exception {
        List<CuratorFramework> cs = connectAll(1);
        try {
            InterProcessLock m = sc.get("kind").equals("uncontended-write")
                    ? new InterProcessReadWriteLock(cs.get(0), sc.get("root") + "/rw").writeLock()
                    : new InterProcessMutex(cs.get(0), sc.get("root") + "/lock");
            int warm = Math.max(num(sc, "warm-cycles"), 1);
            for (int i = 0; i < warm; i++) { m.acquire(); m.release(); if (i == 0) mark("first"); }
            List<Long> lat = new ArrayList<>(), acq = new ArrayList<>();
            long dur = num(sc, "duration-ms") * 1_000_000L, cpu0 = cpuNs(), start = System.nanoTime();
            while (System.nanoTime() - start < dur) {
                long t0 = System.nanoTime();
                m.acquire();
                acq.add(System.nanoTime() - t0);
                m.release();
                lat.add(System.nanoTime() - t0);
            }
            double secs = (System.nanoTime() - start) / 1e9;
            mark("end");
            Map<String, Object> r = new HashMap<>();
            Map<String, Object> extra = new HashMap<>();
            extra.put("acquire_p50_ms", pct(acq, 0.5));
            r.put("extra", extra);
            r.put("sessions", 1); r.put("cycles", lat.size()); r.put("seconds", secs);
            r.put("total_cycles", lat.size() + warm);
            r.put("cycles_per_sec", lat.size() / secs); r.put("p50_ms", pct(lat, 0.5)); r.put("p99_ms", pct(lat, 0.99));
            r.put("client_cpu_us_per_cycle", (cpuNs() - cpu0) / 1e3 / Math.max(lat.size(), 1));
            return r;
        } finally { closeAll(cs); }
    }

    static Cycle buildCycle(CuratorFramework c, int i, Map<String, String> sc, Guard g) {
        String root = sc.get("root");
        switch (sc.get("kind")) {
            case "contended": return lockCycle(new LockLocker(new InterProcessMutex(c, root + "/lock")), g, 1, 1);
            case "many": return lockCycle(new LockLocker(new InterProcessMutex(c, root + "/lock-" + i)), new Guard(), 1, 1);
            case "semaphore": {
                int leases = num(sc, "leases");
                return lockCycle(new SemLocker(new InterProcessSemaphoreV2(c, root + "/sem", leases)), g, leases, 1);
            }
            case "multilock":
                return lockCycle(new LockLocker(new InterProcessMultiLock(c,
                        Arrays.asList(root + "/m0", root + "/m1", root + "/m2"))), g, 1, 1);
            default: { // rw
                InterProcessReadWriteLock rw = new InterProcessReadWriteLock(c, root + "/rw");
                long w = 1L << 32;
                Cycle read = lockCycle(new LockLocker(rw.readLock()), g, w - 1, 1);
                Cycle write = lockCycle(new LockLocker(rw.writeLock()), g, w, w);
                int readPct = num(sc, "read-pct");
                return () -> { if (ThreadLocalRandom.current().nextInt(100) < readPct) read.run(); else write.run(); };
            }
        }
    }

    // Workers loop their cycle until stopped, counting per worker; the first error is kept.
    static final class Workers {
        final AtomicBoolean stopped = new AtomicBoolean();
        final AtomicReference<Throwable> err = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        AtomicLongArray counts;

        void start(int i, Cycle c) {
            Thread t = new Thread(() -> {
                try {
                    while (!stopped.get()) {
                        try { c.run(); } catch (CountNot e) { continue; }
                        counts.incrementAndGet(i);
                    }
                } catch (Throwable e) {
                    if (!stopped.get()) err.compareAndSet(null, e);
                }
            });
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }

        long total() {
            long n = 0;
            for (int i = 0; i < counts.length(); i++) n += counts.get(i);
            return n;
        }

        long[] snap() {
            long[] s = new long[counts.length()];
            for (int i = 0; i < s.length; i++) s[i] = counts.get(i);
            return s;
        }

        void stop(List<CuratorFramework> cs) throws Exception {
            stopped.set(true);
            long deadline = System.nanoTime() + 30_000_000_000L;
            for (Thread t : threads) t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (threads.stream().anyMatch(Thread::isAlive)) closeAll(cs);
            if (err.get() != null) throw new Exception(err.get());
        }

        // abort stops without draining the queue: the sessions close at once, failing blocked
        // acquirers (draining thousands of waiters one by one would take minutes). Threads still
        // blocked after 2 s are daemons and end with the process.
        void abort(List<CuratorFramework> cs) throws Exception {
            stopped.set(true);
            closeAll(cs);
            long deadline = System.nanoTime() + 2_000_000_000L;
            for (Thread t : threads) t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (err.get() != null) throw new Exception(err.get());
        }

        // window: warm-up, then the timed window; fills r with counts, rate, fairness and CPU.
        void window(Map<String, String> sc, Map<String, Object> r) throws Exception {
            Thread.sleep(num(sc, "warmup-ms"));
            measure(sc, r);
        }

        // measure is window without the warm-up (the caller waited it out).
        void measure(Map<String, String> sc, Map<String, Object> r) throws Exception {
            long[] before = snap();
            long cpu0 = cpuNs(), t0 = System.nanoTime();
            Thread.sleep(num(sc, "duration-ms"));
            long[] after = snap();
            double secs = (System.nanoTime() - t0) / 1e9;
            long cpu = cpuNs() - cpu0, total = 0, lo = Long.MAX_VALUE, hi = 0;
            for (int i = 0; i < after.length; i++) {
                long d = after[i] - before[i];
                total += d; lo = Math.min(lo, d); hi = Math.max(hi, d);
            }
            r.put("cycles", total); r.put("seconds", secs); r.put("cycles_per_sec", total / secs);
            r.put("min_per_client", lo); r.put("max_per_client", hi);
            r.put("client_cpu_us_per_cycle", cpu / 1e3 / Math.max(total, 1));
        }
    }

    static Map<String, Object> loops(Map<String, String> sc) throws Exception {
        int n = num(sc, "sessions");
        List<CuratorFramework> cs = connectAll(n);
        try {
            Guard g = new Guard();
            Workers w = new Workers();
            w.counts = new AtomicLongArray(n);
            for (int i = 0; i < n; i++) w.start(i, buildCycle(cs.get(i), i, sc, g));
            Map<String, Object> r = new HashMap<>();
            w.window(sc, r);
            w.stop(cs);
            r.put("sessions", n); r.put("violations", g.violations.get()); r.put("total_cycles", w.total());
            return r;
        } finally { closeAll(cs); }
    }

    static void waitQueue(CuratorFramework obs, String path, int want) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            int have = 0;
            try { have = obs.getChildren().forPath(path).size(); } catch (Exception e) { /* parent not yet created */ }
            if (have >= want) return;
            if (System.nanoTime() > deadline) throw new Exception("queue did not fill: " + have + " < " + want);
            Thread.sleep(2);
        }
    }

    static Map<String, Object> herd(Map<String, String> sc) throws Exception {
        int n = num(sc, "sessions"), releases = num(sc, "releases");
        List<CuratorFramework> cs = connectAll(n + 1);
        CuratorFramework obs = connect();
        String path = sc.get("root") + "/lock";
        long[] acqAt = new long[n + 1], relAt = new long[n + 1];
        BlockingQueue<Integer> acquired = new ArrayBlockingQueue<>(n + 1);
        List<BlockingQueue<Boolean>> release = new ArrayList<>(); // true = release and queue again
        List<Thread> threads = new ArrayList<>();
        AtomicReference<Throwable> err = new AtomicReference<>();
        AtomicLong total = new AtomicLong();
        for (int i = 0; i <= n; i++) {
            int id = i;
            BlockingQueue<Boolean> q = new ArrayBlockingQueue<>(2);
            release.add(q);
            InterProcessMutex m = new InterProcessMutex(cs.get(i), path);
            Thread t = new Thread(() -> {
                try {
                    while (true) {
                        m.acquire();
                        acqAt[id] = System.nanoTime();
                        total.incrementAndGet();
                        acquired.put(id);
                        boolean again = q.take();
                        relAt[id] = System.nanoTime();
                        m.release();
                        if (!again) return;
                    }
                } catch (Throwable e) { err.compareAndSet(null, e); }
            });
            t.setDaemon(true);
            threads.add(t);
        }
        try {
            threads.get(0).start();
            int holder = next(acquired, err);
            for (int i = 1; i <= n; i++) threads.get(i).start();
            List<Long> handoffs = new ArrayList<>();
            long cpu = 0;
            for (int r = 0; r <= releases; r++) {
                waitQueue(obs, path, n + 1);
                long c0 = cpuNs();
                release.get(holder).put(true);
                int nx = next(acquired, err);
                if (r > 0) { cpu += cpuNs() - c0; handoffs.add(acqAt[nx] - relAt[holder]); }
                holder = nx;
            }
            // Drain: each holder in turn releases without queueing again.
            for (int left = n + 1; left > 0; left--) {
                release.get(holder).put(false);
                if (left > 1) holder = next(acquired, err);
            }
            Map<String, Object> r = new HashMap<>();
            for (Thread t : threads) t.join(10_000);
            r.put("sessions", n); r.put("cycles", handoffs.size()); r.put("total_cycles", total.get());
            r.put("handoff_p50_ms", pct(handoffs, 0.5)); r.put("p99_ms", pct(handoffs, 0.99));
            r.put("client_cpu_us_per_cycle", cpu / 1e3 / Math.max(handoffs.size(), 1));
            return r;
        } finally { obs.close(); closeAll(cs); }
    }

    static int next(BlockingQueue<Integer> acquired, AtomicReference<Throwable> err) throws Exception {
        Integer i = acquired.poll(60, TimeUnit.SECONDS);
        if (i == null) throw new Exception("no acquisition within 60 s", err.get());
        return i;
    }

    static long usedHeap() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) { System.gc(); Thread.sleep(20); }
        return rt.totalMemory() - rt.freeMemory();
    }

    // mark tells the driver a phase mark and waits for its go-ahead (it measures the server there).
    static void mark(String m) throws Exception {
        System.out.println("{\"mark\":\"" + m + "\"}");
        System.out.flush();
        in.readLine();
    }

    static int numChildren(CuratorFramework obs, String path) {
        try {
            org.apache.zookeeper.data.Stat st = obs.checkExists().forPath(path);
            return st == null ? -1 : st.getNumChildren();
        } catch (Exception e) { return -1; }
    }

    // depth: one holder and `waiters` waiters over the sessions on one path; memory once the
    // queue is full; `releases` timed single releases (the releaser does not queue again); then the
    // rest of the queue drains on its own. Filling and draining are each bounded by budget-ms.
    static Map<String, Object> depth(Map<String, String> sc) throws Exception {
        int s = num(sc, "sessions"), waiters = num(sc, "waiters"), n = waiters + 1;
        long budget = num(sc, "budget-ms") * 1_000_000L, dbudget = num(sc, "drain-budget-ms") * 1_000_000L;
        List<CuratorFramework> cs = connectAll(Math.min(s, n));
        CuratorFramework obs = connect();
        String path = sc.get("root") + "/lock";
        long[] acqAt = new long[n], relAt = new long[n];
        BlockingQueue<Integer> acquired = new ArrayBlockingQueue<>(n + 1);
        java.util.concurrent.CountDownLatch[] orders = new java.util.concurrent.CountDownLatch[n];
        AtomicReference<Throwable> err = new AtomicReference<>();
        Guard g = new Guard();
        Runnable drain = () -> { for (java.util.concurrent.CountDownLatch o : orders) o.countDown(); };
        Map<String, Object> r = new HashMap<>();
        Map<String, Object> extra = new HashMap<>();
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                int id = i;
                orders[i] = new java.util.concurrent.CountDownLatch(1);
                InterProcessMutex m = new InterProcessMutex(cs.get(i % cs.size()), path);
                Thread t = new Thread(() -> {
                    try {
                        m.acquire();
                        acqAt[id] = System.nanoTime();
                        if (g.holders.incrementAndGet() > 1) g.violations.incrementAndGet();
                        acquired.put(id);
                        orders[id].await();
                        relAt[id] = System.nanoTime();
                        g.holders.decrementAndGet();
                        m.release();
                    } catch (Throwable e) { err.compareAndSet(null, e); acquired.offer(-1); }
                }, "waiter-" + i);
                t.setDaemon(true);
                threads.add(t); // the holder starts now, the waiters after the memory baseline
                if (i == 0) { t.start(); next(acquired, err); }
            }
            long mem0 = usedHeap(), t0 = System.nanoTime();
            for (int i = 1; i < n; i++) threads.get(i).start();
            int have = 0;
            while (have < n) {
                have = numChildren(obs, path);
                if (err.get() != null) throw new Exception("while " + have + " of " + n + " queued", err.get());
                if (System.nanoTime() - t0 > budget) throw new Exception("queue did not fill within " + budget / 1_000_000 + " ms: " + have + " of " + n);
                Thread.sleep(5);
            }
            extra.put("fill_s", (System.nanoTime() - t0) / 1e9);
            mark("filled");
            r.put("mem_bytes_per_waiter", (usedHeap() - mem0) / (double) waiters);
            int k = Math.min(num(sc, "releases"), waiters), holder = 0;
            List<Long> handoffs = new ArrayList<>();
            mark("start");
            long cpu0 = cpuNs();
            try {
                long until = System.nanoTime() + dbudget;
                for (int i = 0; i < k; i++) {
                    orders[holder].countDown();
                    Integer nx = acquired.poll(Math.max(1, until - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (nx == null || nx < 0) throw new Exception("timed release " + (i + 1) + " of " + k + ": no acquisition within the budget", err.get());
                    handoffs.add(acqAt[nx] - relAt[holder]);
                    holder = nx;
                }
            } finally { mark("end"); }
            r.put("cycles", k); r.put("handoff_p50_ms", pct(handoffs, 0.5)); r.put("p99_ms", pct(handoffs, 0.99));
            r.put("client_cpu_us_per_cycle", (cpuNs() - cpu0) / 1e3 / k);
            drain.run();
            long last = acqAt[holder], deadline = System.nanoTime() + dbudget;
            int done = k + 1;
            while (done < n) {
                Integer i = acquired.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (i == null || i < 0) break;
                last = acqAt[i];
                done++;
            }
            r.put("total_cycles", done); r.put("violations", g.violations.get());
            extra.put("drained", done);
            if (done < n) extra.put("drain_bound_s", dbudget / 1e9); // not a failure: the table shows how far it got
            else r.put("drain_s", (last - relAt[0]) / 1e9);
            r.put("sessions", s); r.put("waiters", waiters); r.put("extra", extra);
            return r;
        } finally {
            drain.run();
            // Closing 100 clients under thousands of blocked waiters can take minutes: close in
            // the background, for at most 10 s here (depth scenarios run last in the process).
            Thread closer = new Thread(() -> { obs.close(); closeAll(cs); });
            closer.setDaemon(true);
            closer.start();
            closer.join(10_000);
        }
    }

    // depthLimit: one acquirer behind `waiters` nodes the driver created (they sort after ours):
    // the listing carries them all. Bounded by budget-ms.
    static Map<String, Object> depthLimit(Map<String, String> sc) throws Exception {
        List<CuratorFramework> cs = connectAll(1);
        try {
            InterProcessMutex m = new InterProcessMutex(cs.get(0), sc.get("root") + "/lock");
            long t0 = System.nanoTime();
            boolean ok = m.acquire(num(sc, "budget-ms"), TimeUnit.MILLISECONDS);
            double ms = (System.nanoTime() - t0) / 1e6;
            if (!ok) throw new Exception("no acquisition within " + sc.get("budget-ms") + " ms behind " + sc.get("waiters") + " nodes");
            m.release();
            Map<String, Object> r = new HashMap<>();
            Map<String, Object> extra = new HashMap<>();
            extra.put("acquire_ms", ms);
            r.put("sessions", 1); r.put("waiters", num(sc, "waiters")); r.put("cycles", 1); r.put("total_cycles", 1);
            r.put("extra", extra);
            return r;
        } finally { closeAll(cs); }
    }

    static String json(Map<String, Object> m) {
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<String, Object> e : m.entrySet()) {
            if (b.length() > 1) b.append(',');
            b.append('"').append(e.getKey()).append("\":");
            Object v = e.getValue();
            if (v instanceof Map) {
                @SuppressWarnings("unchecked") Map<String, Object> sub = (Map<String, Object>) v;
                b.append(json(sub));
            } else if (v instanceof Number || v instanceof Boolean) {
                double d = v instanceof Number ? ((Number) v).doubleValue() : 0;
                b.append(Double.isFinite(d) || v instanceof Boolean ? v.toString() : "0");
            } else {
                b.append('"').append(String.valueOf(v).replace("\\", "\\\\").replace("\"", "\\\"")
                        .replace("\n", " ").replace("\r", " ").replace("\t", " ")).append('"');
            }
        }
        return b.append('}').toString();
    }
}
