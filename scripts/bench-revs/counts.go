package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/zkrecipes/zkrecipes/zktest"
)

// notALockRequest: session set-up, keep-alive and tear-down are not the lock's requests (the
// driver's lockRequests leaves out the same).
var notALockRequest = map[int32]bool{zktest.OpCloseSession: true, zktest.OpSetWatches: true,
	zktest.OpSetWatches2: true, zktest.OpPing: true}

// counted lists the side's runs that have a clean count for key ("peer|scenario").
func counted(runs []runRecord, side int, key string) []count {
	var out []count
	for _, r := range runs {
		if c, ok := r.Counts[key]; ok && r.side == side && c.Err == "" && c.Per > 0 {
			out = append(out, c)
		}
	}
	return out
}

// perOp sums the lock's requests of every counted run by opcode and divides by every
// acquisition (or release) they cover. Nil when nothing was counted.
func perOp(runs []runRecord, side int, key string) map[int32]float64 {
	cs := counted(runs, side, key)
	if len(cs) == 0 {
		return nil
	}
	var per int64
	sums := map[int32]int64{}
	for _, c := range cs {
		per += c.Per
		for k, v := range c.Requests {
			op, err := strconv.ParseInt(k, 10, 32)
			if err != nil || notALockRequest[int32(op)] {
				continue
			}
			sums[int32(op)] += v
		}
	}
	out := map[int32]float64{}
	for op, v := range sums {
		out[op] = float64(v) / float64(per)
	}
	return out
}

// perNotif is the notifications per acquisition (or release) over every counted run.
func perNotif(runs []runRecord, side int, key string) float64 {
	var n, per int64
	for _, c := range counted(runs, side, key) {
		n, per = n+c.Notifications, per+c.Per
	}
	if per == 0 {
		return 0
	}
	return float64(n) / float64(per)
}

// perWhat is what the counts are divided by ("acquisition" unless the driver said otherwise).
func perWhat(runs []runRecord, side int, key string) string {
	for _, c := range counted(runs, side, key) {
		if c.PerWhat != "" {
			return c.PerWhat
		}
	}
	return "acquisition"
}

// byOpcode renders per-op counts as "create 1.00, getData 0.50", sorted by name, zeros left out.
func byOpcode(m map[int32]float64) string {
	var parts []string
	for op, v := range m {
		if v == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %.2f", zktest.OpName(op), v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
