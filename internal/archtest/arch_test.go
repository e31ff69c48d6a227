// Package archtest holds the architecture rules of mneme's import graph as
// tests, in the spirit of cmd/mneme-hook's TestDependenciesStaySmall: the
// rules docs/architecture.md states (the code map and its import rules)
// are kept by this test, not by review. It reads the graph with `go list -json ./...` and the source
// with go/parser, so it needs nothing beyond the Go toolchain.
package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const module = "github.com/mneme-dev/mneme"

// pkg is the part of `go list -json` the rules read.
type pkg struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// rel is p's path inside the module ("" for the module root).
func (p pkg) rel() string { return strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/") }

var (
	listOnce sync.Once
	listed   []pkg
	listErr  error
)

// packages lists every package of the module, once per test binary.
func packages(t *testing.T) []pkg {
	t.Helper()
	listOnce.Do(func() {
		goCmd := "go" // go test puts the go command that runs it first on PATH
		cmd := exec.Command(goCmd, "list", "-json", module+"/...")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			listErr = errors.New(err.Error() + "\n" + stderr.String())
			return
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var p pkg
			if err := dec.Decode(&p); err == io.EOF {
				break
			} else if err != nil {
				listErr = err
				return
			}
			listed = append(listed, p)
		}
	})
	if listErr != nil {
		t.Fatalf("go list: %v", listErr)
	}
	if len(listed) < 20 {
		t.Fatalf("go list listed only %d packages", len(listed))
	}
	return listed
}

// under reports whether the module-relative path rel is dir or inside it.
func under(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

// storage is what speaks to a database: GORM, database/sql, the drivers.
var storage = []string{"gorm.io/", "database/sql", "github.com/glebarez/", "modernc.org/", "github.com/jackc/"}

func isStorage(imp string) bool {
	for _, s := range storage {
		if imp == s || strings.HasPrefix(imp, s) || strings.HasPrefix(imp, strings.TrimSuffix(s, "/")+"/") {
			return true
		}
	}
	return false
}

// GORM, database/sql and the SQLite and PostgreSQL drivers are imported
// only by models and the packages under it: nothing else in mneme speaks
// to the database, in its code or in its tests (which reach raw SQL
// through models/modelstest).
func TestStorageOnlyInModels(t *testing.T) {
	// The two exceptions, and why: internal/pgtest administers a
	// throwaway PostgreSQL server for tests (CREATE DATABASE on a cluster,
	// not mneme's schema); soak's tests read the database of a worker
	// running as another process, through the driver, as any other
	// process could.
	testsMay := map[string]bool{"internal/pgtest": true, "soak": true}
	for _, p := range packages(t) {
		if under(p.rel(), "models") {
			continue
		}
		for _, imp := range p.Imports {
			if isStorage(imp) && p.rel() != "internal/pgtest" {
				t.Errorf("%s imports %s: only models speaks to the database", p.rel(), imp)
			}
		}
		for _, imp := range append(slices.Clone(p.TestImports), p.XTestImports...) {
			if isStorage(imp) && !testsMay[p.rel()] {
				t.Errorf("the tests of %s import %s: use a Store method or models/modelstest", p.rel(), imp)
			}
		}
	}
}

// sqlText is the start of an SQL statement in a string literal.
var sqlText = regexp.MustCompile(`(?is)^\s*(SELECT\s.*\sFROM\s|INSERT\s+(OR\s+\w+\s+)?INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(UNIQUE\s+)?(TABLE|INDEX|VIRTUAL|TRIGGER)\s|ALTER\s+TABLE\s|DROP\s+(TABLE|INDEX|TRIGGER)\s|PRAGMA\s)`)

// No code outside models holds an SQL statement: a query anywhere else
// is a query the store's backends (SQLite and PostgreSQL) are not tested
// with. Test files are left out: their raw SQL goes through
// models/modelstest, which fails the test on an error.
func TestSQLOnlyInModels(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range packages(t) {
		// internal/pgtest administers a throwaway cluster; eval/search's
		// corpus is text Claude read and wrote in a made-up project (its
		// SQL is never run, it is what a search must find).
		if under(p.rel(), "models") || p.rel() == "internal/pgtest" || p.rel() == "eval/search" {
			continue
		}
		inspectFiles(t, fset, p, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && sqlText.MatchString(s) {
				t.Errorf("%s: SQL outside models: %.60q", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
}

// importers lists the packages whose own (non-test) code imports target.
func importers(t *testing.T, target string) []string {
	var out []string
	for _, p := range packages(t) {
		if slices.Contains(p.Imports, module+"/"+target) {
			out = append(out, p.rel())
		}
	}
	return out
}

// onlyImportedBy fails for each package that imports target in its own
// code and is not allowed to.
func onlyImportedBy(t *testing.T, target, why string, allowed ...string) {
	t.Helper()
	for _, p := range importers(t, target) {
		if !slices.Contains(allowed, p) {
			t.Errorf("%s imports %s: %s", p, target, why)
		}
	}
}

// internal/app is the composition root: only the command that runs the
// worker builds it (and internal/testutil, which builds it for tests), so
// nothing below it can reach back up.
func TestCompositionRootOnTop(t *testing.T) {
	onlyImportedBy(t, "internal/app", "only cmd/mneme builds the app", "cmd/mneme", "internal/testutil")
}

// The SQLite → PostgreSQL migrator lives beside the store
// (models/pgmigrate); the `mneme migrate` command is its one user.
func TestMigratorBesideTheStore(t *testing.T) {
	onlyImportedBy(t, "models/pgmigrate", "the migrator is `mneme migrate`'s", "cmd/mneme")
}

// One package owns the full export's format (internal/fullexport): the
// commands that export and import it and the handlers that serve and
// restore it call it; nothing else writes or reads the format.
func TestFullExportOwnsItsFormat(t *testing.T) {
	onlyImportedBy(t, "internal/fullexport", "the full export is written, read and restored through cmd/mneme and handlers", "cmd/mneme", "handlers")
}

// hooks is the hook client. No worker package imports it: what both
// sides share is internal/hookwire. hooks and hookwire themselves import
// only the standard library, internal/privacy and (hooks) hookwire.
func TestHookClientStaysApart(t *testing.T) {
	onlyImportedBy(t, "hooks", "the worker shares internal/hookwire with the hook client, not hooks itself", "cmd/mneme", "cmd/mneme-hook", "hooks/hookhttp")
	onlyImportedBy(t, "hooks/hookhttp", "it is the hook client's sender for a team's worker, and links net/http: mneme-hook must not", "cmd/mneme")
	allowed := map[string][]string{
		"hooks":             {"internal/privacy", "internal/hookwire"},
		"hooks/hookhttp":    {"hooks", "internal/hookwire"},
		"internal/hookwire": {"internal/privacy"},
		"internal/privacy":  nil,
	}
	for _, p := range packages(t) {
		may, ok := allowed[p.rel()]
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			first, _, _ := strings.Cut(imp, "/")
			if strings.HasPrefix(imp, module+"/") {
				if !slices.Contains(may, strings.TrimPrefix(imp, module+"/")) {
					t.Errorf("%s imports %s", p.rel(), imp)
				}
			} else if strings.Contains(first, ".") {
				t.Errorf("%s imports the third-party %s: the hook process stays on the standard library", p.rel(), imp)
			}
		}
	}
}

// The engines beside the store and the services are pure: the search
// query language (models/internal/searchq), the ranking
// (models/internal/rank), the vector index (models/internal/vecidx) and
// the settings rules (models/internal/settingsrules, with
// internal/privacy's rule type) import only the standard library, so models
// keeps every row and its SQL, and the engines are tested without a
// database; so do the readers of stored text the migrations reuse
// (internal/outcome, internal/failsig), the memory extractor and the
// seed the store's own tests copy (internal/testutil/seed). The value
// lists what each may import of the module besides.
func TestEnginesStandardLibraryOnly(t *testing.T) {
	pure := map[string][]string{
		"models/internal/searchq":       nil,
		"models/internal/rank":          nil,
		"models/internal/vecidx":        nil,
		"models/internal/settingsrules": {"internal/privacy"},
		"internal/outcome":              nil,
		"internal/failsig":              {"internal/outcome"},
		"internal/memory/extract":       nil,
		"internal/testutil/seed":        nil,
	}
	seen := 0
	for _, p := range packages(t) {
		may, ok := pure[p.rel()]
		if !ok {
			continue
		}
		seen++
		for _, imp := range p.Imports {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				if !slices.Contains(may, rel) {
					t.Errorf("%s imports %s: it stays on the standard library", p.rel(), imp)
				}
			} else if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
				t.Errorf("%s imports the third-party %s: it stays on the standard library", p.rel(), imp)
			}
		}
	}
	if seen != len(pure) {
		t.Errorf("found %d of the %d standard-library-only packages: one moved or was renamed", seen, len(pure))
	}
}

// The test helpers are for tests: models/modelstest (raw SQL), the
// benchmark databases and internal/testutil are imported by test files
// only (and modelstest by testutil).
func TestTestHelpersOnlyInTests(t *testing.T) {
	onlyImportedBy(t, "models/modelstest", "raw SQL is for tests", "internal/testutil")
	onlyImportedBy(t, "models/benchdb", "benchmark databases are for benchmarks")
	onlyImportedBy(t, "internal/testutil", "test helpers are for tests")
	onlyImportedBy(t, "internal/testutil/seed", "a migrated test database is for tests", "internal/testutil")
	onlyImportedBy(t, "internal/pgtest", "a throwaway PostgreSQL is for tests", "internal/testutil", "models/benchdb")
}

// Settings have one owner, internal/settings: outside models (which
// stores them) only it calls SaveSettings, and only the composition root
// and the handlers use it.
func TestSettingsSavedInOnePlace(t *testing.T) {
	onlyImportedBy(t, "internal/settings", "the settings service is built by the app (and the search benchmark's corpus builder) and called by handlers", "internal/app", "handlers", "eval/search")
	fset := token.NewFileSet()
	for _, p := range packages(t) {
		if under(p.rel(), "models") || p.rel() == "internal/settings" {
			continue
		}
		inspectFiles(t, fset, p, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && (sel.Sel.Name == "SaveSettings" || sel.Sel.Name == "UpdateSettings") {
				t.Errorf("%s: %s outside internal/settings: settings are saved in one place", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// Handlers decode, call one service, respond: they open no transaction
// (no Writer in their code) and hand stored text to a service that cleans
// it, so what reaches the store went through the privacy pipeline there.
func TestHandlersOpenNoTransactions(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range packages(t) {
		if p.rel() != "handlers" {
			continue
		}
		inspectFiles(t, fset, p, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Writer" && isStoreExpr(sel.X) {
				t.Errorf("%s: a handler reaches the store's writer: open the transaction in a service", fset.Position(sel.Pos()))
			}
			return true
		})
	}
}

// The engines and services below the handlers never import them (nor
// web): the HTTP layer sits on top, and only the composition root and the
// test helpers reach it.
func TestEnginesDoNotImportHandlers(t *testing.T) {
	for _, target := range []string{"handlers", "web"} {
		onlyImportedBy(t, target, "the HTTP layer sits on top of the services", "internal/app", "cmd/mneme", "internal/testutil", "web")
	}
}

// isStoreExpr reports whether x names the store: h.Store, s.Store, store.
func isStoreExpr(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.SelectorExpr:
		return x.Sel.Name == "Store"
	case *ast.Ident:
		return x.Name == "store" || x.Name == "Store"
	}
	return false
}

// inspectFiles parses each of p's own (non-test) Go files and walks it
// with f, as ast.Inspect does.
func inspectFiles(t *testing.T, fset *token.FileSet, p pkg, f func(ast.Node) bool) {
	t.Helper()
	for _, name := range p.GoFiles {
		file, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, f)
	}
}
