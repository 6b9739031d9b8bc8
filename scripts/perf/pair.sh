#!/bin/bash
# pair.sh ADDR OUT [SCENARIO]: perf of the two pair-mode children of the bench (zkrecipes and
# go-zookeeper's zk.Lock) contending at the same time on the ZooKeeper at ADDR, each on a root
# of its own: perf record -a -g for 22 s inside a 30 s window. Needs root (or
# perf_event_paranoid <= 0) and the bench binary at $BENCH (go build -o "$BENCH" ./bench).
# ADDR is a ZooKeeper (host:port), forceSync=yes as the bench runs its own.
# Writes OUT.data, OUT.txt (perf script), OUT.pids (ours, zk.Lock's) and each child's JSON.
# Then: python3 scripts/perf/bucket.py OUT.txt $(cat OUT.pids)
set -eu
A=$1 O=$2 S=${3:-b8} B=${BENCH:?set BENCH to a bench binary}
R=$RANDOM
cp "$B" "$O.zkrecipes" && cp "$B" "$O.zklock" # two names, so that perf tells them apart
ZK_SERVERS=$A "$O.zkrecipes" -pair-child zkrecipes -pair-scenario "$S" -pair-root "/pr$R" -pair-window 30s >"$O.r.json" 2>"$O.r.err" &
P1=$!
ZK_SERVERS=$A "$O.zklock" -pair-child go-zookeeper-zklock -pair-scenario "$S" -pair-root "/pl$R" -pair-window 30s >"$O.l.json" 2>"$O.l.err" &
P2=$!
sleep 4
perf record -a -g -F 999 -o "$O.data" -- sleep 22 >/dev/null 2>&1
wait $P1 $P2
echo "$P1 $P2" >"$O.pids"
perf script -i "$O.data" -F comm,pid,ip,sym 2>/dev/null >"$O.txt"
rm -f "$O.zkrecipes" "$O.zklock"
