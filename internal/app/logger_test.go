package app_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/internal/app"
	"github.com/mneme-dev/mneme/internal/shape"
	"github.com/mneme-dev/mneme/internal/testutil"
)

// The capture service logs what it could not do for an event through the
// worker's logger, which redacts: a secret in the event (here in its cwd,
// hence in the project the failure names) is not in the log. The failure
// is real: the file gate's lookup meets a request that has gone away.
func TestCaptureLogsThroughWorkerLogger(t *testing.T) {
	buf := &testutil.SyncBuffer{}
	w, err := app.New(context.Background(), app.Options{DataDir: t.TempDir(), Secret: "test-secret-for-the-log-test",
		Log: slog.New(slog.NewTextHandler(buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Shutdown(time.Second)
	const secret = "AKIAZ7QWERTYUIOP1234"
	p, err := shape.Decode(hookwire.PreToolUse, []byte(`{"session_id":"s-gate","hook_event_name":"PreToolUse","cwd":"/tmp/`+secret+`",
		"tool_name":"Read","tool_input":{"file_path":"/tmp/`+secret+`/main.go"}}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := w.Capture.Handle(ctx, hookwire.PreToolUse, p); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "file gate") {
		t.Fatalf("the file gate's failure is not in the worker's log: %q", out)
	}
	if strings.Contains(out, "QWERTYUIOP1234") {
		t.Errorf("the secret is in the log: %s", out)
	}
	if !strings.Contains(out, "[REDACTED:aws_access_key]") {
		t.Errorf("the log does not name the (redacted) project: %s", out)
	}
}

// TestNoGlobalLogger: nothing in mneme logs through slog's or the log
// package's global logger, which bypasses the worker's redaction; only
// `mneme serve` sets slog's default, to the worker's redacting logger, for
// what libraries log there. Test files, and the harnesses outside the
// product (e2e, soak, bench, eval), are not read.
func TestNoGlobalLogger(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	skip := map[string]bool{"e2e": true, "soak": true, "bench": true, "eval": true, "testdata": true, "node_modules": true}
	fset := token.NewFileSet()
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skip[d.Name()] || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		names := map[string]string{} // local name → "log/slog" or "log"
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != "log/slog" && p != "log" {
				continue
			}
			name := filepath.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			names[name] = p
		}
		if len(names) == 0 {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok || names[id.Name] == "" {
				return true
			}
			if bad := globalUse(names[id.Name], sel.Sel.Name); bad && !(rel == filepath.Join("cmd", "mneme", "serve.go") && sel.Sel.Name == "SetDefault") {
				t.Errorf("%s: %s.%s uses the global logger; log through the *slog.Logger passed down", fset.Position(sel.Pos()), id.Name, sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files read under %s", checked, root)
	}
}

// globalUse reports whether pkg.name (pkg "log/slog" or "log") logs
// through, reads or replaces the process-wide logger.
func globalUse(pkg, name string) bool {
	if pkg == "log" {
		switch name {
		case "New", "Logger", "Flags", "Prefix", "Ldate", "Ltime", "Lmicroseconds", "Llongfile", "Lshortfile", "LUTC", "Lmsgprefix", "LstdFlags":
			return false
		}
		return true // Print*, Fatal*, Panic*, Output, Default, SetOutput, Writer, …
	}
	switch name {
	case "Default", "SetDefault", "Debug", "Info", "Warn", "Error", "Log", "LogAttrs",
		"DebugContext", "InfoContext", "WarnContext", "ErrorContext":
		return true
	}
	return false
}
