package chaos

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// WriteTable prints results as a Markdown table: one line per scenario,
// one column per checker (violation counts).
func WriteTable(w io.Writer, rs []*Result) {
	head := []string{"row", "scenario", "seed", "ops", "faults", "Lost states", "refused writes", "dead grants"}
	head = append(head, Checkers...)
	head = append(head, "orphans", "longest stall", "notify p50", "notify max", "late", "overlaps", "overlap max")
	fmt.Fprintf(w, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(w, "|%s\n", strings.Repeat("---|", len(head)))
	for _, r := range rs {
		cells := []string{fmt.Sprint(r.Row), r.Name, fmt.Sprint(r.Seed), fmt.Sprint(r.Ops), fmt.Sprint(r.Faults), fmt.Sprint(r.Lost), fmt.Sprint(r.Refused), fmt.Sprint(r.DeadGrants)}
		for _, c := range Checkers {
			cells = append(cells, fmt.Sprint(r.Verdict.Counts[c]))
		}
		cells = append(cells, fmt.Sprint(r.Orphans), ms(r.Stall), ms(r.NotifyP50), ms(r.NotifyMax), fmt.Sprint(r.NotifyLate),
			fmt.Sprint(r.Overlaps), ms(r.OverlapMax))
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

// WriteFailures prints every violation sample and the history file.
func WriteFailures(w io.Writer, rs []*Result) {
	for _, r := range rs {
		if r.Verdict.Total() == 0 {
			continue
		}
		fmt.Fprintf(w, "row %d %q seed %d: %d violation(s); history: %s\n", r.Row, r.Name, r.Seed, r.Verdict.Total(), r.HistoryFile)
		for _, c := range Checkers {
			for _, s := range r.Verdict.Samples[c] {
				fmt.Fprintf(w, "  %s: %s\n", c, s)
			}
		}
	}
}

func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return d.Round(time.Millisecond).String()
}
