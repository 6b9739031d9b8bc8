"""bucket.py OUT.txt PID...: perf script samples (-F comm,pid,ip,sym) of each PID, counted by
goroutine (go-zookeeper's receive and send loops, sysmon, GC workers, the idle scheduler, and the
rest: the caller and the library's workers) and by the category of the leaf function; then the
leaf functions of our own code, most samples first."""
import collections
import sys


def read(path):
    samples, cur = [], None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line.strip():
            if cur:
                samples.append(cur)
            cur = None
            continue
        if cur is None:
            pid = next((p for p in line.split() if p.isdigit()), None)
            cur = {"pid": pid, "frames": []}
        else:
            parts = line.strip().split(None, 1)
            cur["frames"].append((parts[1] if len(parts) > 1 else "?").split("+")[0])
    if cur:
        samples.append(cur)
    return samples


def goroutine(frames):
    s = " ".join(frames)
    for key, name in (("zk.(*Conn).recvLoop", "recvLoop"), ("zk.(*Conn).sendLoop", "sendLoop"),
                      ("runtime.sysmon", "sysmon"), ("gcBgMarkWorker", "gc")):
        if key in s:
            return name
    own = any("zkrecipes" in f or f.startswith("main.") for f in frames)
    if frames and not own and "schedule" in s and frames[-1].startswith(("runtime.mcall", "runtime.mstart")):
        return "scheduler"
    return "caller+workers"


LEAF = [
    ("ours", lambda l: l.startswith("github.com/zkrecipes")),
    ("go-zookeeper", lambda l: l.startswith("github.com/go-zookeeper")),
    ("kernel", lambda l: "." not in l or l.startswith("[")),
    ("alloc", lambda l: any(k in l for k in ("mallocgc", "nextFreeFast", "memclr", "newobject", "makeslice",
                                              "growslice", "mcache", "mspan", "mheap", "mcentral", "makechan"))),
    ("gc", lambda l: any(k in l for k in ("scanobject", "greyobject", "gcDrain", "markroot", "WriteBarrier", "wbBuf", "sweep"))),
    ("channels", lambda l: any(k in l for k in ("selectgo", "chansend", "chanrecv", "closechan", "sellock", "selunlock"))),
    ("maps", lambda l: any(k in l for k in ("aeshash", "mapaccess", "mapassign", "mapdelete", "maps.", "memhash", "strhash"))),
    ("context", lambda l: l.startswith("context.")),
    ("runtime", lambda l: l.startswith("runtime.") or l.startswith("internal/runtime")),
]


def leaf(frames):
    l = frames[0] if frames else "?"
    for name, match in LEAF:
        if match(l):
            return name
    return "other"


def main():
    samples = read(sys.argv[1])
    for pid in sys.argv[2:]:
        ss = [s for s in samples if s["pid"] == pid]
        print(pid, len(ss), "samples")
        print("  by goroutine:", collections.Counter(goroutine(s["frames"]) for s in ss).most_common())
        print("  by leaf:", collections.Counter(leaf(s["frames"]) for s in ss).most_common())
        ours = collections.Counter(s["frames"][0] for s in ss if s["frames"] and s["frames"][0].startswith("github.com/zkrecipes"))
        for name, n in ours.most_common(25):
            print("   %5d %s" % (n, name))


if __name__ == "__main__":
    main()
