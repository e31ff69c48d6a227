package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// noraceLine is the Makefile's test-norace recipe: the tests make test
// runs without the race detector, and their packages.
var noraceLine = regexp.MustCompile(`(?m)^test-norace:.*\n\t\$\(GO\) test -count=1 -run '\^\(([^)]*)\)\$\$' (.+)$`)

// A test that skips when racebuild.Enabled is set skips in make test's
// race leg; only the Makefile's test-norace runs it. So it must be named
// there, with its package, or make test would never run it.
func TestRaceSkipsRunWithoutRace(t *testing.T) {
	makefile := readMakefile(t)
	m := noraceLine.FindSubmatch(makefile)
	if m == nil {
		t.Fatal("no test-norace recipe of the expected shape in the Makefile")
	}
	names, pkgs := strings.Split(string(m[1]), "|"), strings.Fields(string(m[2]))
	marked := 0
	for _, p := range packages(t) {
		for _, name := range append(slices.Clone(p.TestGoFiles), p.XTestGoFiles...) {
			path := filepath.Join(p.Dir, name)
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(src), "racebuild.Enabled") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil || !skipsUnderRace(fn.Body) {
					continue
				}
				marked++
				if !slices.Contains(names, fn.Name.Name) || !slices.Contains(pkgs, "./"+p.rel()+"/") {
					t.Errorf("%s/%s: %s skips under the race detector but the Makefile's test-norace does not run it (%s in ./%s/): make test would never run it", p.rel(), name, fn.Name.Name, fn.Name.Name, p.rel())
				}
			}
		}
	}
	if marked == 0 {
		t.Fatal("no test skips on racebuild.Enabled: the check reads nothing")
	}
}

// skipsUnderRace reports whether body has an if on racebuild.Enabled that
// skips the test.
func skipsUnderRace(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		is, ok := n.(*ast.IfStmt)
		if !ok || found {
			return !found
		}
		mentions := false
		ast.Inspect(is.Cond, func(c ast.Node) bool {
			if sel, ok := c.(*ast.SelectorExpr); ok && sel.Sel.Name == "Enabled" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "racebuild" {
					mentions = true
				}
			}
			return true
		})
		if !mentions {
			return true
		}
		ast.Inspect(is.Body, func(c ast.Node) bool {
			if call, ok := c.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Skip" || sel.Sel.Name == "Skipf" || sel.Sel.Name == "SkipNow") {
					found = true
				}
			}
			return true
		})
		return true
	})
	return found
}
