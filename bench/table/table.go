package main

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Row is one figure of the table: a metric of a benchmark, the same-run
// baseline it is compared with, and its target.
type Row struct {
	// Figure names the figure; {rows} becomes the rows=N of the matched
	// benchmark's name (1M, 100k).
	Figure string
	// Bench is the benchmark's name without the -GOMAXPROCS suffix;
	// path.Match patterns per /-separated level (BenchmarkSearch/*/rows=*).
	Bench string
	// Metric is the unit the benchmark reported with b.ReportMetric.
	Metric string
	// Unit is what the value is shown with.
	Unit string
	// Worst: when several benchmarks match, show the worst of them (the
	// highest, or the lowest when Higher) and name it.
	Worst bool
	// Higher is better (throughput); lower is better otherwise.
	Higher bool
	// Base lists the baseline's candidates: the first one reported is used.
	Base []Baseline
	// Target, when set, is what the figure must meet.
	Target *Target
}

// Baseline is a metric measured in the same run to compare a figure with.
type Baseline struct {
	Metric string
	Label  string // what the baseline is, shown beside its value
	// Bench is the benchmark reporting it; empty means the figure's own.
	Bench string
}

// Target is a bound a figure must meet: Op is "≤" or "≥".
type Target struct {
	Op    string
	Value float64
}

func (t *Target) met(v float64) bool {
	if t.Op == "≥" {
		return v >= t.Value
	}
	return v <= t.Value
}

// Line is one computed row of the table, as printed.
type Line struct {
	Figure, Result, Baseline, Ratio, Target, Met string
}

// Compute fills the rows from the results. A row whose benchmark did not
// report its metric says why (not run, skipped, FAILED).
func Compute(spec []Row, res *Results) []Line {
	out := make([]Line, 0, len(spec))
	for _, row := range spec {
		out = append(out, computeRow(row, res))
	}
	return out
}

func computeRow(row Row, res *Results) Line {
	l := Line{Figure: row.Figure, Baseline: "—", Ratio: "—", Target: "—", Met: "—"}
	if row.Target != nil {
		l.Target = strings.TrimSpace(row.Target.Op + " " + bound(row.Target.Value) + " " + row.Unit)
	}
	// The benchmarks that reported the metric; the worst of them or the
	// first.
	name, v, n := "", 0.0, 0
	for _, cand := range res.Matching(row.Bench) {
		cv, cn := res.Value(cand, row.Metric)
		if cn == 0 {
			continue
		}
		if name == "" || (row.Worst && ((row.Higher && cv < v) || (!row.Higher && cv > v))) {
			name, v, n = cand, cv, cn
		}
		if !row.Worst {
			break
		}
	}
	l.Figure = strings.ReplaceAll(row.Figure, "{rows}", rowsOf(name))
	if name == "" {
		l.Result = res.missing(row.Bench)
		return l
	}
	if row.Worst {
		l.Figure += " (worst: " + shortName(name) + ")"
	}
	l.Result = strings.TrimSpace(num(v) + " " + row.Unit)
	if n > 1 {
		l.Result += fmt.Sprintf(" (median of %d)", n)
	}
	for _, b := range row.Base {
		bname := name
		if b.Bench != "" {
			if m := res.Matching(b.Bench); len(m) > 0 {
				bname = m[0]
			} else {
				continue
			}
		}
		bv, bn := res.Value(bname, b.Metric)
		if bn == 0 {
			continue
		}
		l.Baseline = strings.Join(strings.Fields(num(bv)+" "+row.Unit+" "+b.Label), " ")
		if bv != 0 {
			l.Ratio = num(v/bv) + "×"
		}
		break
	}
	if row.Target != nil {
		l.Met = "NO"
		if row.Target.met(v) {
			l.Met = "yes"
		}
	}
	return l
}

var rowsRE = regexp.MustCompile(`rows=(\d+)`)

// defaultRows is what {rows} says when no benchmark ran: the synthetic
// database's default size (models/benchdb).
const defaultRows = "1M"

// rowsOf is the rows=N of a benchmark name in short form (1M, 100k), or
// defaultRows when there is none.
func rowsOf(name string) string {
	m := rowsRE.FindStringSubmatch(name)
	if m == nil {
		return defaultRows
	}
	n, _ := strconv.Atoi(m[1])
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// shortName is a sub-benchmark's own part of its name: the level after
// the top one, without rows= and the GOMAXPROCS suffix.
func shortName(name string) string {
	parts := strings.Split(procSuffix.ReplaceAllString(name, ""), "/")
	if len(parts) > 1 {
		parts = parts[1:]
	}
	var keep []string
	for _, p := range parts {
		if !strings.HasPrefix(p, "rows=") {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, "/")
}

// num formats a value with about three significant digits, and thousands
// separators from 1,000 up.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		s := strconv.FormatInt(int64(math.Round(a)), 10)
		var b strings.Builder
		if v < 0 {
			b.WriteByte('-')
		}
		for i, c := range s {
			if i > 0 && (len(s)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(c)
		}
		return b.String()
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// bound formats a target: whole numbers without decimals.
func bound(v float64) string {
	if v == math.Trunc(v) {
		if math.Abs(v) >= 1000 {
			return num(v)
		}
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// Render writes the lines as a markdown table, columns padded so it also
// reads as plain text.
func Render(w io.Writer, lines []Line) error {
	rows := [][]string{{"figure", "result", "same-run baseline", "ratio", "target", "met?"}}
	for _, l := range lines {
		rows = append(rows, []string{l.Figure, l.Result, l.Baseline, l.Ratio, l.Target, l.Met})
	}
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for i, c := range cells {
			b.WriteString(" " + c + strings.Repeat(" ", width[i]-utf8.RuneCountInString(c)) + " |")
		}
		b.WriteString("\n")
	}
	line(rows[0])
	sep := make([]string, len(width))
	for i, n := range width {
		sep[i] = strings.Repeat("-", n)
	}
	line(sep)
	for _, r := range rows[1:] {
		line(r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
