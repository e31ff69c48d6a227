package main

import (
	"io"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// version, commit and date are stamped at link time: make build passes
// -ldflags "-X main.version=… -X main.commit=… -X main.date=…" from git
// (describe, the commit, its date), GoReleaser the release's version,
// commit and commit date (.goreleaser.yaml). init completes them, so
// version is this binary's version from then on ("dev" when nothing says).
var version, commit, date string

// thisBuild is this binary's version, commit and date: the stamped ones, else
// what the Go toolchain recorded (hookwire.Stamped).
var thisBuild hookwire.Build

func init() {
	thisBuild = hookwire.Stamped(version, commit, date, debug.ReadBuildInfo)
	version, commit, date = thisBuild.Version, thisBuild.Commit, thisBuild.Date
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print mneme's version, the commit it was built from and that commit's date",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			io.WriteString(cmd.OutOrStdout(), thisBuild.Text("mneme"))
			return nil
		},
	}
}

// commitNote is " (commit 0123456789ab)" for a worker's commit in `mneme
// status`, "" when it has none.
func commitNote(c string) string {
	if c == "" {
		return ""
	}
	return " (commit " + hookwire.Build{Commit: c}.ShortCommit() + ")"
}
