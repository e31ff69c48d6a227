package shape

import (
	"regexp"
	"strings"
)

// subcommand matches a word that reads as a subcommand ("build", "test",
// "run"), not as a path, URL, number or file name.
var subcommand = regexp.MustCompile(`^[a-z][a-z0-9_:-]*$`)

// runners are subcommands that run something named by the next word
// ("npm run build", "pnpm exec tsc").
var runners = map[string]bool{"run": true, "exec": true, "x": true}

// CommandFamily names what a shell command does, loosely enough that a rerun
// with other flags or arguments counts as the same: the program and its
// subcommand, as in "go build" for both `go build ./...` and `go build -o
// bin/app .`, or "npm run lint". Leading variable assignments and flags are
// skipped; only the first command of the first line counts. A command
// without a subcommand ("cat notes.md", "./build.sh", "curl -sS http://x")
// has no family: "".
func CommandFamily(cmd string) string {
	var words []string
	for _, w := range strings.Fields(FirstLine(cmd)) {
		switch {
		case w == "&&" || w == "||" || w == "|" || w == ";":
			return family(words)
		case len(words) == 0 && strings.Contains(w, "=") && !strings.HasPrefix(w, "-"):
			continue // FOO=bar go build
		case strings.HasPrefix(w, "-"):
			continue
		}
		words = append(words, w)
		if len(words) == 3 || len(words) == 2 && !runners[w] {
			break
		}
	}
	return family(words)
}

// family is "program sub" (or "program run target") when the words after
// the program read as subcommands, else "".
func family(words []string) string {
	if len(words) < 2 {
		return ""
	}
	for _, w := range words[1:] {
		if !subcommand.MatchString(w) {
			return ""
		}
	}
	if runners[words[1]] && len(words) < 3 {
		return ""
	}
	return strings.Join(words, " ")
}
