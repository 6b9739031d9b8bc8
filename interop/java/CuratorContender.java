// CuratorContender drives Apache Curator 5.x recipes from a line protocol on stdin/stdout, so a Go
// test can make a real Curator client contend with zkrecipes on the same lock paths.
//
// Usage: java -cp <curator jars> CuratorContender <connectString> [sessionTimeoutMs]
//
// The connection and the line protocol are LineServer's: after connecting it prints "ready
// <sessionIdHex>", then answers each command line with one line, "ok [...]" or "err <reason>".
// Commands run one at a time on the main thread (Curator locks are owned by the acquiring thread,
// so every release runs on the same thread as its acquire):
//
//   acquire <path> <timeoutMs>                 InterProcessMutex       -> ok <lockNodePath> | err timeout
//   release [<path>]                           release the mutex on path (default: most recent mutex)
//   rw-read-acquire <path> <timeoutMs>         InterProcessReadWriteLock.readLock  -> ok <node>
//   rw-read-release <path>
//   rw-write-acquire <path> <timeoutMs>        InterProcessReadWriteLock.writeLock -> ok <node>
//   rw-write-release <path>
//   semaphore-acquire <path> <max> <n> <timeoutMs>   InterProcessSemaphoreV2 -> ok <node>,<node>...
//   semaphore-release <path>                   return every lease this process holds on path
//   multilock-acquire <timeoutMs> <path>...    InterProcessMultiLock over mutexes -> ok
//   multilock-release
//   participants <path>                        InterProcessMutex.getParticipantNodes -> ok <node> <node>...
//   session                                    -> ok <sessionIdHex>
//   ping                                       -> ok
//   quit                                       -> ok, then the process exits
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;

public final class CuratorContender extends LineServer {
    private final Map<String, InterProcessMutex> mutexes = new HashMap<>();
    private final Map<String, InterProcessReadWriteLock> rwLocks = new HashMap<>();
    private final Map<String, InterProcessSemaphoreV2> semaphores = new HashMap<>();
    private final Map<String, Collection<Lease>> leases = new HashMap<>();
    private final List<String> heldMutexes = new ArrayList<>();
    private InterProcessMultiLock multiLock;
    private static final Method LOCK_PATH = lockPathMethod();

    private CuratorContender(CuratorFramework client) {
        super(client);
    }

    public static void main(String[] args) throws Exception {
        run("CuratorContender", args, CuratorContender::new);
    }

    @Override
    protected String handle(String[] f) throws Exception {
        switch (f[0]) {
            case "acquire": need(f, 3); return acquireMutex(f[1], Long.parseLong(f[2]));
            case "release": return releaseMutex(f.length > 1 ? f[1] : null);
            case "rw-read-acquire": need(f, 3); return acquireLock(rw(f[1]).readLock(), Long.parseLong(f[2]));
            case "rw-read-release": need(f, 2); rw(f[1]).readLock().release(); return "ok";
            case "rw-write-acquire": need(f, 3); return acquireLock(rw(f[1]).writeLock(), Long.parseLong(f[2]));
            case "rw-write-release": need(f, 2); rw(f[1]).writeLock().release(); return "ok";
            case "semaphore-acquire": need(f, 5); return acquireSemaphore(f);
            case "semaphore-release": need(f, 2); return releaseSemaphore(f[1]);
            case "multilock-acquire": need(f, 3); return acquireMulti(f);
            case "multilock-release": return releaseMulti();
            case "participants": need(f, 2); return "ok " + String.join(" ", mutex(f[1]).getParticipantNodes());
            case "session": return "ok " + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId());
            default: return "err unknown command " + f[0];
        }
    }

    private String acquireMutex(String path, long timeoutMs) throws Exception {
        InterProcessMutex m = mutex(path);
        String r = acquireLock(m, timeoutMs);
        if (r.startsWith("ok")) {
            heldMutexes.add(path);
        }
        return r;
    }

    private String releaseMutex(String path) throws Exception {
        if (path == null) {
            if (heldMutexes.isEmpty()) {
                return "err not held";
            }
            path = heldMutexes.get(heldMutexes.size() - 1);
        }
        InterProcessMutex m = mutexes.get(path);
        if (m == null || !heldMutexes.contains(path)) {
            return "err not held";
        }
        m.release();
        heldMutexes.remove(heldMutexes.lastIndexOf(path));
        return "ok";
    }

    private String acquireLock(InterProcessMutex m, long timeoutMs) throws Exception {
        if (!m.acquire(timeoutMs, TimeUnit.MILLISECONDS)) {
            return "err timeout";
        }
        return "ok " + lockPath(m);
    }

    private String acquireSemaphore(String[] f) throws Exception {
        String path = f[1];
        int max = Integer.parseInt(f[2]);
        int n = Integer.parseInt(f[3]);
        InterProcessSemaphoreV2 s = semaphores.computeIfAbsent(path + " " + max,
                k -> new InterProcessSemaphoreV2(client, path, max));
        Collection<Lease> got = s.acquire(n, Long.parseLong(f[4]), TimeUnit.MILLISECONDS);
        if (got == null) {
            return "err timeout";
        }
        leases.computeIfAbsent(path, k -> new ArrayList<>()).addAll(got);
        List<String> names = new ArrayList<>();
        for (Lease l : got) {
            names.add(l.getNodeName());
        }
        return "ok " + String.join(",", names);
    }

    private String releaseSemaphore(String path) throws Exception {
        Collection<Lease> held = leases.remove(path);
        if (held == null || held.isEmpty()) {
            return "err not held";
        }
        for (Lease l : held) {
            l.close();
        }
        return "ok";
    }

    private String acquireMulti(String[] f) throws Exception {
        if (multiLock != null) {
            return "err multilock already held";
        }
        List<String> paths = Arrays.asList(Arrays.copyOfRange(f, 2, f.length));
        InterProcessMultiLock ml = new InterProcessMultiLock(client, paths);
        if (!ml.acquire(Long.parseLong(f[1]), TimeUnit.MILLISECONDS)) {
            return "err timeout";
        }
        multiLock = ml;
        return "ok";
    }

    private String releaseMulti() throws Exception {
        if (multiLock == null) {
            return "err not held";
        }
        InterProcessMultiLock ml = multiLock;
        multiLock = null;
        ml.release();
        return "ok";
    }

    private InterProcessMutex mutex(String path) {
        return mutexes.computeIfAbsent(path, p -> new InterProcessMutex(client, p));
    }

    private InterProcessReadWriteLock rw(String path) {
        return rwLocks.computeIfAbsent(path, p -> new InterProcessReadWriteLock(client, p));
    }

    private static Method lockPathMethod() {
        try {
            Method m = InterProcessMutex.class.getDeclaredMethod("getLockPath");
            m.setAccessible(true);
            return m;
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    // lockPath returns the znode the current thread holds on m, or "?" when Curator hides it.
    private static String lockPath(InterProcessMutex m) {
        if (LOCK_PATH == null) {
            return "?";
        }
        try {
            Object p = LOCK_PATH.invoke(m);
            return p == null ? "?" : p.toString();
        } catch (ReflectiveOperationException e) {
            return "?";
        }
    }
}
