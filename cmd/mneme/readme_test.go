package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// codeMap is docs/architecture.md's "Code map" section: its rows, the first column
// (where) apart.
func codeMap(t *testing.T) (where map[string]bool, section string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(), "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "\n## Code map\n")
	if !ok {
		t.Fatal("docs/architecture.md has no ## Code map section")
	}
	section, _, _ = strings.Cut(rest, "\n## ")
	where = map[string]bool{}
	code := regexp.MustCompile("`([^`]+)`")
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			where[m[1]] = true
		}
	}
	return where, section
}

// Every package of the module is in the code map (docs/architecture.md): named in its
// first column, or inside a directory named there, or named (`web/sse`) in
// its parent's row.
func TestCodeMapCoversEveryPackage(t *testing.T) {
	t.Parallel()
	where, section := codeMap(t)
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}", "./...")
	cmd.Dir = repoRoot()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const module = "github.com/mneme-dev/mneme/"
	n := 0
	for _, pkg := range strings.Fields(string(out)) {
		rel, ok := strings.CutPrefix(pkg, module)
		if !ok {
			continue // the module's root holds no package
		}
		n++
		covered := where[rel] || strings.Contains(section, "`"+rel+"`")
		for dir := filepath.Dir(rel); !covered && dir != "."; dir = filepath.Dir(dir) {
			covered = where[dir]
		}
		if !covered {
			t.Errorf("package %s is not in docs/architecture.md's code map", rel)
		}
	}
	if n < 20 {
		t.Fatalf("go list found only %d packages: %s", n, out)
	}
}

// Every subcommand of mneme is named in the code map's cmd/mneme row.
func TestCodeMapNamesEverySubcommand(t *testing.T) {
	t.Parallel()
	_, section := codeMap(t)
	var row string
	for _, line := range strings.Split(section, "\n") {
		if strings.HasPrefix(line, "| `cmd/mneme` |") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("the code map has no cmd/mneme row")
	}
	root := newRoot(&globals{signals: interrupted}, new(int))
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if !strings.Contains(row, "`"+c.Name()+"`") {
			t.Errorf("mneme %s is not in the code map's cmd/mneme row: %s", c.Name(), row)
		}
	}
}
