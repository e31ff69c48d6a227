// Command pluginsums records in the Claude Code plugin the SHA-256 of each
// release archive, so that the plugin's scripts/run.sh can check what it
// downloads against a checksum shipped with the plugin, never one fetched
// from the download location.
//
// Usage, at release time, after GoReleaser has written dist/:
//
//	go run ./scripts/pluginsums [-dist dist/checksums.txt] [-plugin .claude-plugin]
//
// It reads GoReleaser's checksums file, keeps the lines of the archives
// run.sh downloads (mneme_<version>_<os>_<arch>.tar.gz, .zip on Windows)
// of the version in <plugin>/plugin.json, and writes them to
// <plugin>/checksums.txt. Archives of another version, or none of this
// one, are an error: the plugin's version and the release must agree.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// archiveName matches a release archive's name: version, os, arch.
var archiveName = regexp.MustCompile(`^mneme_(.+)_([a-z0-9]+)_([a-z0-9]+)\.(tar\.gz|zip)$`)

// header heads the written file: what it is and where it comes from.
const header = "# SHA-256 of the release archives of this plugin's version, written at release time by\n" +
	"# `go run ./scripts/pluginsums` from GoReleaser's dist/checksums.txt. scripts/run.sh checks\n" +
	"# the archive it downloads against these, and trusts no checksum from the download location.\n"

func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pluginsums", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dist := fs.String("dist", filepath.Join("dist", "checksums.txt"), "GoReleaser's checksums file")
	plugin := fs.String("plugin", ".claude-plugin", "the plugin's manifest directory (plugin.json)")
	if err := fs.Parse(args); err != nil || fs.NArg() != 0 {
		return 2
	}
	n, err := write(*dist, *plugin)
	if err != nil {
		fmt.Fprintln(stderr, "pluginsums:", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %d archive checksums to %s\n", n, filepath.Join(*plugin, "checksums.txt"))
	return 0
}

// write writes <plugin>/checksums.txt from dist and returns how many
// archives it records.
func write(dist, plugin string) (int, error) {
	raw, err := os.ReadFile(filepath.Join(plugin, "plugin.json"))
	if err != nil {
		return 0, err
	}
	var manifest struct{ Version string }
	if err := json.Unmarshal(raw, &manifest); err != nil || manifest.Version == "" {
		return 0, fmt.Errorf("%s: no version (%v)", filepath.Join(plugin, "plugin.json"), err)
	}
	sums, err := os.ReadFile(dist)
	if err != nil {
		return 0, err
	}
	var lines, others []string
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if len(fields) != 2 || len(fields[0]) != 64 || strings.Trim(strings.ToLower(fields[0]), "0123456789abcdef") != "" {
			return 0, fmt.Errorf("%s: not a checksums line: %q", dist, sc.Text())
		}
		name := strings.TrimPrefix(fields[1], "*")
		m := archiveName.FindStringSubmatch(name)
		if m == nil {
			continue // a package, an SBOM: not what run.sh downloads
		}
		if m[1] != manifest.Version {
			others = append(others, name)
			continue
		}
		lines = append(lines, strings.ToLower(fields[0])+"  "+name)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	if len(others) > 0 {
		return 0, fmt.Errorf("%s has archives of another version than plugin.json's %s (%s): bump the plugin's version to the release's first", dist, manifest.Version, strings.Join(others, ", "))
	}
	if len(lines) == 0 {
		return 0, fmt.Errorf("%s has no archive of version %s", dist, manifest.Version)
	}
	sort.Slice(lines, func(i, j int) bool { return lines[i][66:] < lines[j][66:] }) // by name
	out := header + strings.Join(lines, "\n") + "\n"
	path := filepath.Join(plugin, "checksums.txt")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(out), 0o644); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return 0, errors.Join(err, os.Remove(tmp))
	}
	return len(lines), nil
}
