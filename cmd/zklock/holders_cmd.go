package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"
)

// runHolders is `zklock holders PATH [--json]`.
func runHolders(ctx context.Context, g *globals, args []string, std stdio) error {
	fs := g.flagSet("holders")
	asJSON := fs.Bool("json", false, "")
	pos, err := parseInterleaved(fs, args)
	if err != nil {
		return helpOrUsage(err, "holders", std)
	}
	if len(pos) == 0 {
		return usageErr("holders", "want a lock PATH")
	}
	if err := checkPaths(pos...); err != nil {
		return usageErr("holders", "%v", err)
	}
	fw, err := g.connect(ctx, "holders", std)
	if err != nil {
		return err
	}
	defer fw.Close()
	reports := make([]holdersReport, 0, len(pos))
	for _, p := range pos {
		r, err := collectHolders(ctx, fw, p, time.Now())
		if err != nil {
			return fmt.Errorf("holders of %s: %w", p, err)
		}
		reports = append(reports, r)
	}
	if *asJSON {
		enc := json.NewEncoder(std.out)
		enc.SetIndent("", "  ")
		if len(reports) == 1 {
			return enc.Encode(reports[0])
		}
		return enc.Encode(reports)
	}
	for _, r := range reports {
		printHolders(std.out, r)
	}
	printSets(std.out, reports)
	return nil
}

// printHolders writes the report as a table, holders first.
func printHolders(w io.Writer, r holdersReport) {
	fmt.Fprintf(w, "%s: %s, %d holding, %d waiting", safeText(r.Path), safeText(r.Kind), len(r.Holders), len(r.Queue))
	if len(r.Unknown) > 0 {
		fmt.Fprintf(w, ", %d of unknown role (zklock does not know their recipe's rule)", len(r.Unknown))
	}
	if n := countForeign(r); n > 0 {
		fmt.Fprintf(w, ", %d foreign (not ephemeral: no contender, it blocks for ever; see docs/security.md to remove it)", n)
	}
	fmt.Fprintln(w)
	if len(r.Holders)+len(r.Queue)+len(r.Unknown) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ROLE\tKIND\tNODE\tSESSION\tAGE\tORIGIN\tREVOCABLE\tDATA")
	for _, part := range []struct {
		role  string
		nodes []nodeInfo
	}{{"holds", r.Holders}, {"waits", r.Queue}, {"unknown", r.Unknown}} {
		for _, n := range part.nodes {
			role := part.role
			if n.Foreign {
				role = "foreign"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", role, safeText(n.Kind), safeText(n.Node), n.Session,
				formatAge(n.AgeSeconds), n.Origin, yesNo(n.Revocable), printable(n.Data, 80))
		}
	}
	tw.Flush()
}

// yesNo shows a known boolean as yes or no, an unknown one as "-".
func yesNo(b *bool) string {
	switch {
	case b == nil:
		return "-"
	case *b:
		return "yes"
	}
	return "no"
}

// countForeign counts r's nodes that are not ephemeral.
func countForeign(r holdersReport) int {
	n := 0
	for _, part := range [][]nodeInfo{r.Holders, r.Queue, r.Unknown} {
		for _, x := range part {
			if x.Foreign {
				n++
			}
		}
	}
	return n
}

func formatAge(s float64) string {
	d := time.Duration(s * float64(time.Second))
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// printable shows data as text when it is printable, quoted otherwise (strconv.Quote escapes
// every control, format and separator character and every byte that is not UTF-8: see
// safeText), cut at limit runes.
func printable(s string, limit int) string {
	if s == "" {
		return `""`
	}
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		s = strconv.Quote(s)
	}
	if utf8.RuneCountInString(s) > limit {
		s = string([]rune(s)[:limit]) + "..."
	}
	return s
}
