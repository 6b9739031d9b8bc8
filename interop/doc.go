// Package interop runs Apache Curator 5.x and kazoo (Python) next to zkrecipes so tests can check
// that Java, Python and Go contenders share lock paths correctly.
//
// StartCurator launches CuratorContender (java/CuratorContender.java, embedded in this package), a
// small Java program that drives Curator's InterProcessMutex, InterProcessReadWriteLock,
// InterProcessSemaphoreV2 and InterProcessMultiLock from a line protocol on stdin/stdout. Each
// CuratorProcess is one JVM with one CuratorFramework, hence one ZooKeeper session.
//
// CuratorContender and CuratorLeader (StartCuratorLeader) share java/LineServer.java: the client's
// connection and the stdin/stdout command loop; each is compiled together with it.
//
// The Java source is compiled with plain javac against the Debian jars in /usr/share/java (or the
// directory named by $ZKRECIPES_JAVA_LIBS) on first use, and the classes are cached under the user
// cache directory, keyed by a hash of the source and classpath. When Curator is not installed the
// error wraps ErrCuratorMissing and names the Debian package to install.
//
// StartKazoo launches kazoo_contender.py (kazoo/, embedded in this package) on /usr/bin/python3
// with Debian's python3-kazoo: kazoo's Lock, ReadLock and WriteLock behind the same line protocol,
// one KazooClient (one session) per process. When kazoo is not installed the error wraps
// ErrKazooMissing.
//
// CompileJava and CuratorClasspath are exported for the benchmark peers, which build their own Java
// program the same way.
package interop
