package hookwire

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestStamped(t *testing.T) {
	recorded := func(version string, settings ...string) func() (*debug.BuildInfo, bool) {
		return func() (*debug.BuildInfo, bool) {
			bi := &debug.BuildInfo{Main: debug.Module{Version: version}}
			for i := 0; i+1 < len(settings); i += 2 {
				bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
			}
			return bi, true
		}
	}
	none := func() (*debug.BuildInfo, bool) { return nil, false }
	for _, c := range []struct {
		name                  string
		version, commit, date string
		read                  func() (*debug.BuildInfo, bool)
		want                  Build
	}{
		{"stamped wins", "0.2.0", "abc", "2026-10-01T09:00:00Z", recorded("v9.9.9", "vcs.revision", "def", "vcs.time", "2020-01-01T00:00:00Z"),
			Build{"0.2.0", "abc", "2026-10-01T09:00:00Z"}},
		{"go install @version", "", "", "", recorded("v0.2.0"), Build{"v0.2.0", "", ""}},
		{"git checkout", "", "", "", recorded("(devel)", "vcs.revision", "def", "vcs.time", "2020-01-01T00:00:00Z", "vcs.modified", "true"),
			Build{"dev", "def", "2020-01-01T00:00:00Z"}},
		{"nothing recorded", "", "", "", none, Build{"dev", "", ""}},
	} {
		if got := Stamped(c.version, c.commit, c.date, c.read); got != c.want {
			t.Errorf("%s: Stamped = %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestBuildText(t *testing.T) {
	b := Build{"0.2.0", "0123456789abcdef0123", "2026-10-01T09:00:00Z"}
	if got := b.Text("mneme"); !strings.HasPrefix(got, "mneme version 0.2.0\ncommit 0123456789abcdef0123 (2026-10-01T09:00:00Z)\ngo") || strings.Count(got, "\n") != 3 {
		t.Errorf("Text = %q", got)
	}
	if got := (Build{Version: "dev"}).Text("mneme-hook"); !strings.HasPrefix(got, "mneme-hook version dev\ngo") || strings.Count(got, "\n") != 2 {
		t.Errorf("Text without commit = %q", got)
	}
	if got := b.ShortCommit(); got != "0123456789ab" {
		t.Errorf("ShortCommit = %q", got)
	}
}
