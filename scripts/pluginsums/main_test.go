package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sum is a made-up SHA-256 in hex.
func sum(c string) string { return strings.Repeat(c, 64) }

func setup(t *testing.T, version, dist string) (distPath, plugin string) {
	t.Helper()
	dir := t.TempDir()
	plugin = filepath.Join(dir, ".claude-plugin")
	os.MkdirAll(plugin, 0o755)
	os.WriteFile(filepath.Join(plugin, "plugin.json"), []byte(`{"name":"mneme","version":"`+version+`"}`), 0o644)
	distPath = filepath.Join(dir, "checksums.txt")
	os.WriteFile(distPath, []byte(dist), 0o644)
	return distPath, plugin
}

// The plugin records the archives of its version, sorted by name, and
// nothing else of GoReleaser's checksums.
func TestWritesArchivesOfThePluginsVersion(t *testing.T) {
	dist, plugin := setup(t, "1.2.3", sum("b")+"  mneme_1.2.3_linux_amd64.tar.gz\n"+
		sum("C")+"  mneme_1.2.3_darwin_arm64.tar.gz\n"+
		sum("d")+"  mneme_1.2.3_windows_amd64.zip\n"+
		sum("e")+"  mneme_1.2.3_linux_amd64.deb\n\n")
	var out, errb bytes.Buffer
	if code := run([]string{"-dist", dist, "-plugin", plugin}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got, err := os.ReadFile(filepath.Join(plugin, "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := header + sum("c") + "  mneme_1.2.3_darwin_arm64.tar.gz\n" +
		sum("b") + "  mneme_1.2.3_linux_amd64.tar.gz\n" +
		sum("d") + "  mneme_1.2.3_windows_amd64.zip\n"
	if string(got) != want {
		t.Errorf("checksums.txt:\n%s\nwant:\n%s", got, want)
	}
	if !strings.Contains(out.String(), "wrote 3 archive checksums") {
		t.Errorf("stdout %q", out.String())
	}
}

// A release of another version than the plugin's, a release without
// archives and a file that is not GoReleaser's are refused, and the
// plugin's checksums are left as they were.
func TestRefusesWhatDoesNotMatch(t *testing.T) {
	for _, c := range []struct{ name, version, dist, err string }{
		{"other version", "1.2.3", sum("a") + "  mneme_1.2.4_linux_amd64.tar.gz\n", "another version than plugin.json's 1.2.3"},
		{"no archive", "1.2.3", sum("a") + "  mneme_1.2.3_linux_amd64.deb\n", "no archive of version 1.2.3"},
		{"not checksums", "1.2.3", "hello world\n", "not a checksums line"},
		{"no version", "", sum("a") + "  mneme__linux_amd64.tar.gz\n", "no version"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dist, plugin := setup(t, c.version, c.dist)
			var out, errb bytes.Buffer
			if code := run([]string{"-dist", dist, "-plugin", plugin}, &out, &errb); code != 1 || !strings.Contains(errb.String(), c.err) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errb.String(), c.err)
			}
			if _, err := os.Stat(filepath.Join(plugin, "checksums.txt")); err == nil {
				t.Errorf("checksums.txt written")
			}
		})
	}
}

// The plugin's checksums.txt in the repository is this program's: its
// header, and only lines run.sh reads.
func TestRepositoryFileIsOurs(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", ".claude-plugin", "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(got), header) {
		t.Errorf(".claude-plugin/checksums.txt does not start with pluginsums' header:\n%s", got)
	}
}
