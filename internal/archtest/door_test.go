package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testutil/racebuild"
)

// checked is one package of the module, parsed and type-checked.
type checked struct {
	fset  *token.FileSet
	files []*ast.File
	pkg   *types.Package
	info  *types.Info
}

// typeCheck parses and type-checks the (non-test) code of the module's
// packages rels against the export data the go command builds for their
// dependencies, so each call can be followed to the function it calls.
func typeCheck(t *testing.T, rels ...string) map[string]checked {
	t.Helper()
	goCmd := "go" // go test puts the go command that runs it first on PATH
	args := []string{"list", "-export", "-deps", "-json=ImportPath,Dir,GoFiles,Export"}
	for _, r := range rels {
		args = append(args, module+"/"+r)
	}
	cmd := exec.Command(goCmd, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.String())
	}
	type listed struct{ ImportPath, Dir, Export string }
	byPath := map[string]listed{}
	var files = map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			listed
			GoFiles []string
		}
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		byPath[p.ImportPath] = p.listed
		files[p.ImportPath] = p.GoFiles
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		p, ok := byPath[path]
		if !ok || p.Export == "" {
			return nil, errors.New("no export data for " + path)
		}
		return os.Open(p.Export)
	})
	res := map[string]checked{}
	for _, r := range rels {
		p := byPath[module+"/"+r]
		c := checked{fset: fset, info: &types.Info{
			Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{},
		}}
		for _, name := range files[p.ImportPath] {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			c.files = append(c.files, f)
		}
		conf := types.Config{Importer: imp}
		if c.pkg, err = conf.Check(p.ImportPath, fset, c.files, c.info); err != nil {
			t.Fatalf("type-check %s: %v", r, err)
		}
		res[r] = c
	}
	return res
}

// funcName is the name a rule calls a function declaration by: "Name" or
// "Recv.Name".
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	typ := d.Recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

// eachDecl calls fn with every declaration of c and the name of the
// function it is in ("" outside functions).
func (c checked) eachDecl(fn func(in string, n ast.Node)) {
	for _, f := range c.files {
		for _, d := range f.Decls {
			in := ""
			if fd, ok := d.(*ast.FuncDecl); ok {
				in = funcName(fd)
			}
			ast.Inspect(d, func(n ast.Node) bool {
				if n != nil {
					fn(in, n)
				}
				return true
			})
		}
	}
}

// callee is the function or method a call calls, when it is a declared
// one (not a func value).
func (c checked) callee(call *ast.CallExpr) *types.Func {
	var id *ast.Ident
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, _ := c.info.Uses[id].(*types.Func)
	return fn
}

// qualified names fn as "path.Name" or "path.Recv.Name", path relative to
// the module.
func qualified(fn *types.Func) string {
	if fn.Pkg() == nil {
		return fn.Name()
	}
	name := fn.Name()
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		rt := sig.Recv().Type()
		if p, ok := rt.(*types.Pointer); ok {
			rt = p.Elem()
		}
		if n, ok := rt.(*types.Named); ok {
			name = n.Obj().Name() + "." + name
		}
	}
	return strings.TrimPrefix(strings.TrimPrefix(fn.Pkg().Path(), module), "/") + "." + name
}

// cleaning are the functions that clean text: privacy's pipeline, and
// shape's door and its policy's wrappers of the pipeline.
var cleaning = map[string]bool{
	"internal/privacy.Redactor.Clean": true, "internal/privacy.Redactor.CleanID": true,
	"internal/privacy.Redactor.CleanJSON": true, "internal/privacy.Redactor.CleanJSONText": true,
	"internal/privacy.Redactor.CleanPayload": true, "internal/privacy.Redactor.Redact": true,
	"internal/privacy.StripTags": true, "internal/privacy.StripTagsJSON": true, "internal/privacy.Sanitize": true,
	"internal/shape.Policy.Clean": true, "internal/shape.Policy.CleanLong": true, "internal/shape.Policy.CleanID": true,
	"internal/shape.Policy.CleanEvent": true,
}

// isPayload reports whether t is shape.Payload or a pointer to it.
func isPayload(t types.Type) bool {
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Payload" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == module+"/internal/shape"
}

// A payload is cleaned once, at the door (docs/architecture.md, the
// capture path: one pass), and nothing below the door can bypass it:
//
//   - capture cleans nothing itself: its one call into cleaning is
//     shape.Policy.CleanEvent, in Service.Handle, and none of its
//     functions but Handle takes a shape.Payload (they take the
//     shape.Event CleanEvent returns);
//   - in shape, an Event is made only by CleanEvent (no other composite
//     literal of it, no assignment to its fields, none exported), no
//     function but CleanEvent takes a Payload, and text is cleaned only
//     by the door and by the few functions that clean what is not an
//     event field: what the event names outside its payload, the joined
//     text of a shaped row, an export's rows being restored;
//   - the other packages of the event's way (filestate, models) clean
//     nothing: what reaches them is clean already.
func TestOnePassForAPayload(t *testing.T) {
	if racebuild.Enabled {
		// Type-checking four packages on one goroutine: 12 s under -race
		// for nothing to watch. make test runs it without the race
		// detector (test-norace).
		t.Skip("no concurrency to check: make test runs it without the race detector")
	}
	pkgs := typeCheck(t, "internal/capture", "internal/shape", "internal/filestate", "models")

	capture := pkgs["internal/capture"]
	doors := 0
	capture.eachDecl(func(in string, n ast.Node) {
		switch n := n.(type) {
		case *ast.CallExpr:
			fn := capture.callee(n)
			if fn == nil || !cleaning[qualified(fn)] {
				return
			}
			if qualified(fn) == "internal/shape.Policy.CleanEvent" && in == "Service.Handle" {
				doors++
				return
			}
			t.Errorf("%s: capture's %s calls %s: capture cleans nothing itself; a value comes cleaned from the shape.Event, or goes through it",
				capture.fset.Position(n.Pos()), in, qualified(fn))
		case *ast.FuncType:
			if in == "Service.Handle" {
				return // the door: the decoded payload comes in here
			}
			for _, f := range n.Params.List {
				if isPayload(capture.info.Types[f.Type].Type) {
					t.Errorf("%s: capture's %s takes a shape.Payload: below Handle, take the cleaned *shape.Event", capture.fset.Position(f.Pos()), in)
				}
			}
		case *ast.StructType:
			for _, f := range n.Fields.List {
				if isPayload(capture.info.Types[f.Type].Type) {
					t.Errorf("%s: capture holds a shape.Payload in a struct: hold the cleaned *shape.Event", capture.fset.Position(f.Pos()))
				}
			}
		}
	})
	if doors != 1 {
		t.Errorf("capture's Service.Handle calls shape.Policy.CleanEvent %d times: the door is one call", doors)
	}

	shape := pkgs["internal/shape"]
	// mayClean are shape's functions that clean text, and why.
	mayClean := map[string]string{
		"Policy.CleanEvent":            "the door",
		"Policy.Clean":                 "the policy's wrapper of the pipeline",
		"Policy.CleanLong":             "the policy's wrapper of the pipeline",
		"Policy.CleanID":               "the policy's wrapper of the pipeline",
		"Event.Project":                "the git project and branch read outside the payload",
		"Event.LastAssistantMessage":   "the transcript read outside the payload",
		"Event.Observation":            "a row's text joined from cleaned values (a diff, compact JSON) may join a secret",
		"Policy.CleanRestored":         "the rows of an export being restored, not a hook event",
		"Policy.CleanRestoredMemories": "the memories of an export being restored, not a hook event",
	}
	event := shape.pkg.Scope().Lookup("Event")
	if event == nil {
		t.Fatal("shape.Event is gone")
	}
	st := event.Type().Underlying().(*types.Struct)
	for i := range st.NumFields() {
		if st.Field(i).Exported() {
			t.Errorf("shape.Event's field %s is exported: an Event's values are set by CleanEvent alone", st.Field(i).Name())
		}
	}
	shape.eachDecl(func(in string, n ast.Node) {
		switch n := n.(type) {
		case *ast.CallExpr:
			if fn := shape.callee(n); fn != nil && cleaning[qualified(fn)] && mayClean[in] == "" {
				t.Errorf("%s: shape's %s calls %s: an event's fields are cleaned once, by Policy.CleanEvent; shape the cleaned *Event",
					shape.fset.Position(n.Pos()), in, qualified(fn))
			}
		case *ast.CompositeLit:
			if tv, ok := shape.info.Types[n]; ok && types.Identical(tv.Type, event.Type()) && in != "Policy.CleanEvent" {
				t.Errorf("%s: shape's %s makes an Event: only Policy.CleanEvent makes one", shape.fset.Position(n.Pos()), in)
			}
		case *ast.AssignStmt:
			for _, lhs := range n.Lhs {
				sel, ok := ast.Unparen(lhs).(*ast.SelectorExpr)
				if !ok || in == "Policy.CleanEvent" {
					continue
				}
				if x, ok := shape.info.Types[sel.X]; ok && (types.Identical(x.Type, event.Type()) || types.Identical(x.Type, types.NewPointer(event.Type()))) {
					t.Errorf("%s: shape's %s sets an Event's %s: only Policy.CleanEvent sets them", shape.fset.Position(n.Pos()), in, sel.Sel.Name)
				}
			}
		case *ast.FuncType:
			if in == "Policy.CleanEvent" {
				return
			}
			for _, f := range n.Params.List {
				if isPayload(shape.info.Types[f.Type].Type) {
					t.Errorf("%s: shape's %s takes a Payload: shapers take the cleaned *Event", shape.fset.Position(f.Pos()), in)
				}
			}
		}
	})

	for _, rel := range []string{"internal/filestate", "models"} {
		c := pkgs[rel]
		c.eachDecl(func(in string, n ast.Node) {
			if call, ok := n.(*ast.CallExpr); ok {
				if fn := c.callee(call); fn != nil && cleaning[qualified(fn)] {
					t.Errorf("%s: %s's %s calls %s: what reaches it from an event was cleaned at the door",
						c.fset.Position(call.Pos()), rel, in, qualified(fn))
				}
			}
		})
	}
}
