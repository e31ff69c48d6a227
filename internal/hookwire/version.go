package hookwire

import (
	"runtime"
	"runtime/debug"
)

// Build is what a binary says of itself (`mneme version`, `mneme-hook
// --version`, /api/health, the viewer's footer): its version, the commit it
// was built from and that commit's date (RFC 3339).
type Build struct {
	Version, Commit, Date string
}

// Stamped is the build mneme and mneme-hook were stamped with at link time
// (-ldflags "-X main.version=… -X main.commit=… -X main.date=…": make build
// from git, GoReleaser from the release), completed from what the Go
// toolchain recorded in the binary (read is debug.ReadBuildInfo): the
// module version `go install …@v1.2.3` recorded, the VCS revision and time
// of a build in a git checkout. Version is "dev" when nothing says.
func Stamped(version, commit, date string, read func() (*debug.BuildInfo, bool)) Build {
	b := Build{Version: version, Commit: commit, Date: date}
	if bi, ok := read(); ok && bi != nil {
		if b.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			b.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && b.Commit == "":
				b.Commit = s.Value
			case s.Key == "vcs.time" && b.Date == "":
				b.Date = s.Value
			}
		}
	}
	if b.Version == "" {
		b.Version = "dev"
	}
	return b
}

// Text is what a binary prints for its version (`mneme version`, `mneme
// --version`, `mneme-hook --version`): "<prog> version <version>" first,
// the line `mneme doctor` reads, then the commit and its date when known,
// then the Go version and platform:
//
//	mneme version 0.2.0
//	commit 1f2e… (2026-10-01T09:00:00Z)
//	go1.26.8 linux/amd64
func (b Build) Text(prog string) string {
	text := prog + " version " + b.Version + "\n"
	if b.Commit != "" {
		text += "commit " + b.Commit
		if b.Date != "" {
			text += " (" + b.Date + ")"
		}
		text += "\n"
	}
	return text + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
}

// ShortCommit is the commit's first 12 hex digits (all of it when shorter).
func (b Build) ShortCommit() string {
	if len(b.Commit) > 12 {
		return b.Commit[:12]
	}
	return b.Commit
}
