//go:build unix

package eval

import (
	"fmt"
	"strings"
)

// Result is one scenario's outcome.
type Result struct {
	Scenario string
	// Start scores the SessionStart context alone.
	Start Score
	// MCP scores the SessionStart context plus every tool_result the
	// scripted search and get_observations calls brought back.
	MCP Score
	// Calls is the number of MCP tool calls made.
	Calls int
	// Base scores the baseline: the latest observations' titles in the
	// same number of bytes as the SessionStart context.
	Base Score
}

// Table renders the results and their total as one markdown table.
func Table(results []Result) string {
	var b strings.Builder
	b.WriteString("| scenario | facts | SessionStart recall | bytes | tokens | recall/1k tok | + MCP search recall | MCP calls | MCP tokens | baseline recall | baseline recall/1k tok | wrong claims start/MCP/base |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|:-:|\n")
	var tot Result
	tot.Scenario = "**total**"
	for _, r := range results {
		row(&b, r)
		tot.Start = add(tot.Start, r.Start)
		tot.MCP = add(tot.MCP, r.MCP)
		tot.Base = add(tot.Base, r.Base)
		tot.Calls += r.Calls
	}
	row(&b, tot)
	return b.String()
}

func row(b *strings.Builder, r Result) {
	fmt.Fprintf(b, "| %s | %d | %s | %d | %d | %.1f | %s | %d | %d | %s | %.1f | %d/%d/%d |\n",
		r.Scenario, r.Start.Facts,
		frac(r.Start), r.Start.Bytes, r.Start.Tokens(), r.Start.Per1k(),
		frac(r.MCP), r.Calls, r.MCP.Tokens()-r.Start.Tokens(),
		frac(r.Base), r.Base.Per1k(),
		r.Start.Wrong, r.MCP.Wrong, r.Base.Wrong)
}

// ContextSize says how large the SessionStart contexts were: the
// <mneme-context> block each scenario's next session got, in total and on
// average over the scenarios, in bytes and tokens (≈ bytes / 4).
func ContextSize(results []Result) string {
	total := 0
	for _, r := range results {
		total += r.Start.Bytes
	}
	n := max(len(results), 1)
	return fmt.Sprintf("SessionStart context: %d bytes (≈%d tokens) over %d scenarios, mean %d bytes (≈%d tokens)\n",
		total, (total+3)/4, len(results), total/n, (total/n+3)/4)
}

// frac is "found/facts (pct)", net of wrong claims.
func frac(s Score) string {
	return fmt.Sprintf("%d/%d (%.0f%%)", max(s.Found-s.Wrong, 0), s.Facts, 100*s.Recall())
}

func add(a, b Score) Score {
	return Score{Found: a.Found + b.Found, Wrong: a.Wrong + b.Wrong, Facts: a.Facts + b.Facts, Bytes: a.Bytes + b.Bytes}
}

// Misses lists each scenario's facts missed at SessionStart, with whether
// MCP search and the baseline found them.
func Misses(results []Result) string {
	var b strings.Builder
	for _, r := range results {
		if len(r.Start.Missed) == 0 {
			continue
		}
		fmt.Fprintf(&b, "- %s:\n", r.Scenario)
		for _, m := range r.Start.Missed {
			fmt.Fprintf(&b, "  - %s (MCP: %s, baseline: %s)\n", m, yesNo(!contains(r.MCP.Missed, m)), yesNo(!contains(r.Base.Missed, m)))
		}
	}
	return b.String()
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func yesNo(ok bool) string {
	if ok {
		return "found"
	}
	return "missed"
}
