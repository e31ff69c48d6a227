package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// pgPackagesLine is the Makefile's list of the packages whose tests make
// test runs a second time on PostgreSQL.
var pgPackagesLine = regexp.MustCompile(`(?m)^PG_PACKAGES\s*:=\s*(.+)$`)

// A test marked pgtest.PostgresOnly skips on make test's SQLite leg
// because the PostgreSQL leg runs it; the PostgreSQL leg runs only the
// Makefile's PG_PACKAGES. So a package whose tests call PostgresOnly must
// be in that list, or make test would never run them.
func TestPostgresOnlyInPostgresLeg(t *testing.T) {
	makefile := readMakefile(t)
	m := pgPackagesLine.FindSubmatch(makefile)
	if m == nil {
		t.Fatal("no PG_PACKAGES in the Makefile")
	}
	leg := strings.Fields(string(m[1]))
	marked := 0
	for _, p := range packages(t) {
		if p.rel() == "internal/pgtest" || p.rel() == "internal/archtest" { // the mark's definition, and this check
			continue
		}
		for _, name := range append(slices.Clone(p.TestGoFiles), p.XTestGoFiles...) {
			src, err := os.ReadFile(filepath.Join(p.Dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), "pgtest.PostgresOnly(") {
				continue
			}
			marked++
			if !slices.Contains(leg, "./"+p.rel()) {
				t.Errorf("%s/%s marks tests PostgresOnly, but %s is not in the Makefile's PG_PACKAGES (%s): make test would run them in neither leg", p.rel(), name, p.rel(), strings.Join(leg, " "))
			}
		}
	}
	if marked == 0 {
		t.Fatal("no test file calls pgtest.PostgresOnly: the check reads nothing")
	}
}

// readMakefile is the repository's Makefile, which names what each leg of
// make test runs.
func readMakefile(t *testing.T) []byte {
	t.Helper()
	var root string
	for _, p := range packages(t) {
		if rel := p.rel(); rel == "internal/archtest" {
			root = strings.TrimSuffix(p.Dir, string(filepath.Separator)+filepath.FromSlash(rel))
		}
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	return makefile
}
