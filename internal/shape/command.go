package shape

import "github.com/mneme-dev/mneme/internal/failsig"

// CommandFamily names what a shell command does, loosely enough that a rerun
// with other flags or arguments counts as the same: the program and its
// subcommand, as in "go build" for both `go build ./...` and `go build -o
// bin/app .`, or "npm run lint" (failsig.Family, which failure signatures
// read a command's shape with too).
func CommandFamily(cmd string) string { return failsig.Family(cmd) }
