// CuratorLeader drives Apache Curator 5.x's LeaderLatch and LeaderSelector from a line protocol on
// stdin/stdout, so a Go test can put Java and Go candidates in one election.
//
// Usage: java -cp <curator jars> CuratorLeader <connectString> [sessionTimeoutMs]
//
// The connection and the line protocol are LineServer's: after connecting it prints "ready
// <sessionIdHex>", then answers each command line with one line, "ok [...]" or "err <reason>".
// Candidates are named by the test; ids must not contain spaces ("-" stands for the empty id).
//
//   latch-start <name> <path> <id>             new LeaderLatch(client, path, id, NOTIFY_LEADER).start()
//   latch-await <name> <timeoutMs>             await(timeout)            -> ok true|false
//   latch-has <name>                           hasLeadership()           -> ok true|false
//   latch-leader <name>                        getLeader().getId()       -> ok <id>
//   latch-path <name>                          getOurPath()              -> ok <path>
//   latch-close <name>                         close()
//   selector-start <name> <path> <id> <auto>   a LeaderSelector whose takeLeadership holds until
//                                              selector-yield (a LeaderSelectorListenerAdapter:
//                                              SUSPENDED and LOST cancel it); auto: autoRequeue
//   selector-await <name> <timeoutMs>          wait until takeLeadership runs -> ok true|false
//   selector-has <name>                        takeLeadership is running -> ok true|false
//   selector-terms <name>                      how many times takeLeadership started -> ok <n>
//   selector-yield <name>                      make the running takeLeadership return
//   selector-close <name>                      close()
//   session                                    -> ok <sessionIdHex> <passwordHex>
//   ping                                       -> ok
//   quit                                       -> ok, then the process exits
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;

public final class CuratorLeader extends LineServer {
    private final Map<String, LeaderLatch> latches = new HashMap<>();
    private final Map<String, Candidate> selectors = new HashMap<>();

    // Candidate is a selector's listener: takeLeadership holds until yielded or cancelled.
    private static final class Candidate extends LeaderSelectorListenerAdapter {
        final Semaphore yield = new Semaphore(0);
        final Object mon = new Object();
        boolean leading;
        int terms;
        LeaderSelector selector;

        @Override
        public void takeLeadership(CuratorFramework c) throws Exception {
            synchronized (mon) {
                leading = true;
                terms++;
                mon.notifyAll();
            }
            try {
                yield.acquire();
            } finally {
                synchronized (mon) {
                    leading = false;
                    mon.notifyAll();
                }
            }
        }

        boolean await(long timeoutMs) throws InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMs;
            synchronized (mon) {
                while (!leading) {
                    long left = deadline - System.currentTimeMillis();
                    if (left <= 0) {
                        return false;
                    }
                    mon.wait(left);
                }
                return true;
            }
        }
    }

    private CuratorLeader(CuratorFramework client) {
        super(client);
    }

    public static void main(String[] args) throws Exception {
        run("CuratorLeader", args, CuratorLeader::new);
    }

    @Override
    protected String handle(String[] f) throws Exception {
        switch (f[0]) {
            case "latch-start": need(f, 4); return latchStart(f[1], f[2], id(f[3]));
            case "latch-await": need(f, 3); return "ok " + latch(f[1]).await(Long.parseLong(f[2]), TimeUnit.MILLISECONDS);
            case "latch-has": need(f, 2); return "ok " + latch(f[1]).hasLeadership();
            case "latch-leader": need(f, 2); return "ok " + latch(f[1]).getLeader().getId();
            case "latch-path": need(f, 2); return "ok " + latch(f[1]).getOurPath();
            case "latch-close": need(f, 2); latches.remove(f[1]).close(); return "ok";
            case "selector-start": need(f, 5); return selectorStart(f[1], f[2], id(f[3]), Boolean.parseBoolean(f[4]));
            case "selector-await": need(f, 3); return "ok " + candidate(f[1]).await(Long.parseLong(f[2]));
            case "selector-has": need(f, 2); return "ok " + has(candidate(f[1]));
            case "selector-terms": need(f, 2); return "ok " + terms(candidate(f[1]));
            case "selector-yield": need(f, 2); candidate(f[1]).yield.release(); return "ok";
            case "selector-close": need(f, 2); selectors.remove(f[1]).selector.close(); return "ok";
            case "session": {
                byte[] pw = client.getZookeeperClient().getZooKeeper().getSessionPasswd();
                StringBuilder hex = new StringBuilder();
                for (byte b : pw) {
                    hex.append(String.format("%02x", b));
                }
                return "ok " + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()) + " " + hex;
            }
            default: return "err unknown command " + f[0];
        }
    }

    private String latchStart(String name, String path, String id) throws Exception {
        if (latches.containsKey(name)) {
            return "err latch " + name + " exists";
        }
        LeaderLatch l = new LeaderLatch(client, path, id, LeaderLatch.CloseMode.NOTIFY_LEADER);
        l.start();
        latches.put(name, l);
        return "ok";
    }

    private String selectorStart(String name, String path, String id, boolean auto) {
        if (selectors.containsKey(name)) {
            return "err selector " + name + " exists";
        }
        Candidate c = new Candidate();
        c.selector = new LeaderSelector(client, path, c);
        if (!id.isEmpty()) {
            c.selector.setId(id);
        }
        if (auto) {
            c.selector.autoRequeue();
        }
        c.selector.start();
        selectors.put(name, c);
        return "ok";
    }

    private static boolean has(Candidate c) {
        synchronized (c.mon) {
            return c.leading;
        }
    }

    private static int terms(Candidate c) {
        synchronized (c.mon) {
            return c.terms;
        }
    }

    private LeaderLatch latch(String name) {
        LeaderLatch l = latches.get(name);
        if (l == null) {
            throw new IllegalArgumentException("no latch " + name);
        }
        return l;
    }

    private Candidate candidate(String name) {
        Candidate c = selectors.get(name);
        if (c == null) {
            throw new IllegalArgumentException("no selector " + name);
        }
        return c;
    }

    private static String id(String s) {
        return s.equals("-") ? "" : s;
    }
}
