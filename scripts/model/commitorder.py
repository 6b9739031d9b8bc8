#!/usr/bin/env python3
"""A discrete-event model of the benchmark's contended multi-lock scenario (docs/performance.md).

16 clients loop: take a random set of 2 to 4 of 8 paths, hold it, release it. Every path has a FIFO
queue and a set is queued in all its paths at once (one transaction: the commit order), so a set is
granted when it is first in every queue of its set. HOLD is how long a holder occupies its paths (the
critical section and the release's transaction), HANDOFF the time from a release to the next grant
(notification, listing, grant), ENQ the queueing transaction. It shows what the queue discipline
alone allows; it knows nothing of CPU.

    python3 scripts/model/commitorder.py            # the table of docs/performance.md
    python3 scripts/model/commitorder.py 2.65 1.0   # one HOLD and HANDOFF, in ms
"""
import heapq
import random
import sys


def run(hold, handoff, enq=1.0, clients=16, paths=8, window_ms=20000.0, seed=1):
    rnd = random.Random(seed)
    events, seq = [], 0
    queues = [[] for _ in range(paths)]
    sets = {}  # set id -> (client, paths, granted)
    done = 0

    def queue_new(client, t):
        nonlocal seq
        seq += 1
        ps = tuple(rnd.sample(range(paths), rnd.randint(2, 4)))
        heapq.heappush(events, (t + enq, "commit", seq, client, ps))

    def grant(t):
        for sid, (client, ps, granted) in list(sets.items()):
            if not granted and all(queues[p] and queues[p][0] == sid for p in ps):
                sets[sid] = (client, ps, True)
                heapq.heappush(events, (t + handoff + hold, "release", sid, client, ps))

    for c in range(clients):
        queue_new(c, 0.0)
    while events:
        t, kind, sid, client, ps = heapq.heappop(events)
        if t > window_ms:
            break
        if kind == "commit":
            sets[sid] = (client, ps, False)
            for p in ps:
                queues[p].append(sid)
        else:
            for p in ps:
                queues[p].remove(sid)
            del sets[sid]
            done += 1
            queue_new(client, t)
        grant(t)
    return done / window_ms * 1000


if __name__ == "__main__":
    if len(sys.argv) == 3:
        print(f"{run(float(sys.argv[1]), float(sys.argv[2])):.0f} acq/s")
    else:
        for h, ho in [(2.65, 1.0), (2.65, 0.5), (2.15, 1.0), (2.15, 0.5)]:
            print(f"hold {h} ms, handoff {ho} ms: {run(h, ho):.0f} acq/s")
