package main

import (
	"strings"
	"testing"
)

// `mneme version` and `mneme --version` print the same: the version first,
// and the commit and its date when the build knows them.
func TestVersionCommand(t *testing.T) {
	t.Parallel()
	var lines []string
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errs strings.Builder
		if code := run(args, strings.NewReader(""), &out, &errs); code != 0 || errs.Len() != 0 {
			t.Fatalf("mneme %s: exit %d, stderr %q", args[0], code, errs.String())
		}
		lines = append(lines, out.String())
	}
	want := thisBuild.Text("mneme")
	if lines[0] != want || lines[1] != want {
		t.Errorf("mneme version = %q, mneme --version = %q, want %q", lines[0], lines[1], want)
	}
	// mneme doctor reads the first line of a binary's --version.
	if first, _, _ := strings.Cut(want, "\n"); first != "mneme version "+version || version != thisBuild.Version || version == "" {
		t.Errorf("the first line is %q, version %q", first, version)
	}
}
