package main

import (
	"bufio"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Results holds what one or more `go test -bench` runs printed: for each
// benchmark (full name, GOMAXPROCS suffix kept) its metrics, one value per
// run (several with -count), and the benchmarks that failed or skipped.
type Results struct {
	Names   []string                        // in order of first appearance
	Metrics map[string]map[string][]float64 // name → unit → values
	Failed  map[string]bool
	Skipped map[string]bool
	CPU     string // the first "cpu:" line go test printed
}

func newResults() *Results {
	return &Results{Metrics: map[string]map[string][]float64{}, Failed: map[string]bool{}, Skipped: map[string]bool{}}
}

var (
	// benchLine is a complete result: name, iterations, value/unit pairs.
	benchLine = regexp.MustCompile(`^(Benchmark\S+)\s+(\d+)\s+(\S.*)$`)
	// nameOnly is a benchmark's name printed before its result, when
	// something else (a log line) came between the two.
	nameOnly = regexp.MustCompile(`^(Benchmark\S+)\s*(\t.*)?$`)
	// resultOnly is the rest of such a split line: iterations and pairs.
	resultOnly = regexp.MustCompile(`^\s*(\d+)\s+(\S.*)$`)
	// status is a --- FAIL or --- SKIP line of a benchmark.
	status = regexp.MustCompile(`^\s*--- (FAIL|SKIP): (Benchmark\S+)`)
)

// Parse reads `go test -bench` output. Every line is copied to pass (when
// not nil) as soon as it is read, so the raw output stays visible.
func Parse(r io.Reader, pass io.Writer) (*Results, error) {
	res := newResults()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	pending := ""
	for sc.Scan() {
		line := sc.Text()
		if pass != nil {
			if _, err := io.WriteString(pass, line+"\n"); err != nil {
				return nil, err
			}
		}
		if cpu, ok := strings.CutPrefix(line, "cpu: "); ok && res.CPU == "" {
			res.CPU = strings.TrimSpace(cpu)
			continue
		}
		if m := status.FindStringSubmatch(line); m != nil {
			if m[1] == "FAIL" {
				res.Failed[m[2]] = true
			} else {
				res.Skipped[m[2]] = true
			}
			continue
		}
		if m := benchLine.FindStringSubmatch(line); m != nil && res.add(m[1], m[3]) {
			pending = ""
			continue
		}
		if m := nameOnly.FindStringSubmatch(line); m != nil {
			pending = m[1]
			continue
		}
		if pending != "" {
			if m := resultOnly.FindStringSubmatch(line); m != nil && res.add(pending, m[2]) {
				pending = ""
			}
		}
	}
	return res, sc.Err()
}

// add records the value/unit pairs of one result line; false when pairs is
// not a well-formed list of them.
func (r *Results) add(name, pairs string) bool {
	f := strings.Fields(pairs)
	if len(f) == 0 || len(f)%2 != 0 {
		return false
	}
	vals := make(map[string]float64, len(f)/2)
	for i := 0; i < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return false
		}
		vals[f[i+1]] = v
	}
	m := r.Metrics[name]
	if m == nil {
		m = map[string][]float64{}
		r.Metrics[name] = m
		r.Names = append(r.Names, name)
	}
	for unit, v := range vals {
		m[unit] = append(m[unit], v)
	}
	return true
}

// Value is the median of a benchmark's metric over the runs that reported
// it, and how many did.
func (r *Results) Value(name, unit string) (float64, int) {
	vs := r.Metrics[name][unit]
	if len(vs) == 0 {
		return 0, 0
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2], n
	}
	return (s[n/2-1] + s[n/2]) / 2, n
}

// procSuffix is the -GOMAXPROCS suffix go test adds to benchmark names.
var procSuffix = regexp.MustCompile(`-\d+$`)

// matchName reports whether a benchmark's printed name matches pattern
// (path.Match syntax per /-separated level), with or without the
// GOMAXPROCS suffix.
func matchName(pattern, name string) bool {
	if globMatch(pattern, name) {
		return true
	}
	return globMatch(pattern, procSuffix.ReplaceAllString(name, ""))
}

// globMatch is path.Match without its error: a bad pattern matches nothing.
func globMatch(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

// Matching lists the benchmarks whose name matches pattern, in order.
func (r *Results) Matching(pattern string) []string {
	var out []string
	for _, n := range r.Names {
		if matchName(pattern, n) {
			out = append(out, n)
		}
	}
	return out
}

// status of a pattern with no results: failed, skipped or not run.
func (r *Results) missing(pattern string) string {
	for n := range r.Failed {
		if matchName(pattern, n) || strings.HasPrefix(pattern, procSuffix.ReplaceAllString(n, "")+"/") {
			return "FAILED"
		}
	}
	for n := range r.Skipped {
		if matchName(pattern, n) || strings.HasPrefix(pattern, procSuffix.ReplaceAllString(n, "")+"/") {
			return "skipped"
		}
	}
	return "not run"
}
