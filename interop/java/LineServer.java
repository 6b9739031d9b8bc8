// LineServer is what CuratorContender and CuratorLeader share: one CuratorFramework connected from
// the command line, then the line protocol on stdin/stdout. It is compiled together with each of
// them (interop.compileJava).
//
// Usage of a program built on it: java -cp <curator jars> <Program> <connectString> [sessionTimeoutMs]
//
// After connecting it prints "ready <sessionIdHex>" ("err connect timeout" and exit 1 after 30 s).
// Then it reads one command per line and answers exactly one line, "ok [...]" or "err <reason>",
// flushed, until stdin ends or "quit". Commands run one at a time on the main thread (Curator
// locks are owned by the acquiring thread). "ping" and "quit" answer "ok" here; every other
// command goes to the program's handle.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

abstract class LineServer {
    protected final CuratorFramework client;

    protected LineServer(CuratorFramework client) {
        this.client = client;
    }

    // handle answers one command, f[0] its name, with "ok [...]" or "err <reason>"; an exception
    // becomes "err <its class and message>".
    protected abstract String handle(String[] f) throws Exception;

    // run connects a client from args, makes the program's server on it and serves stdin; name is
    // the program's, for the usage line.
    static void run(String name, String[] args, Function<CuratorFramework, LineServer> make) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: " + name + " <connectString> [sessionTimeoutMs]");
            System.exit(2);
        }
        int sessionMs = args.length > 1 ? Integer.parseInt(args[1]) : 30000;
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(args[0])
                .sessionTimeoutMs(sessionMs)
                .connectionTimeoutMs(Math.min(15000, sessionMs))
                .retryPolicy(new ExponentialBackoffRetry(100, 3))
                .build();
        client.start();
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            out.println("err connect timeout");
            out.flush();
            System.exit(1);
        }
        out.println("ready " + Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId()));
        out.flush();
        make.apply(client).serve(out);
        client.close();
    }

    private void serve(PrintStream out) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 0 || f[0].isEmpty()) {
                continue;
            }
            String reply;
            try {
                reply = f[0].equals("ping") || f[0].equals("quit") ? "ok" : handle(f);
            } catch (Exception e) {
                reply = "err " + oneLine(e);
            }
            out.println(reply);
            out.flush();
            if (f[0].equals("quit")) {
                return;
            }
        }
    }

    // need fails the command unless it has n fields (its name and n-1 arguments).
    protected static void need(String[] f, int n) {
        if (f.length < n) {
            throw new IllegalArgumentException(f[0] + " needs " + (n - 1) + " arguments");
        }
    }

    protected static String oneLine(Throwable e) {
        String msg = e.getClass().getSimpleName() + ": " + e.getMessage();
        return msg.replace('\n', ' ').replace('\r', ' ');
    }
}
