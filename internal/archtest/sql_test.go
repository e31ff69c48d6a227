package archtest

import (
	"go/ast"
	"go/constant"
	"regexp"
	"testing"
)

// sqlKeyword is SQL in a Go string: a keyword of a statement or of a
// clause, in capitals as mneme writes SQL, or a call of substr.
var sqlKeyword = regexp.MustCompile(`\b(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE|JOIN|UNION|VALUES|LIMIT|ORDER BY|GROUP BY|AS|MATERIALIZED|COALESCE)\b|\bsubstr\(`)

// fmtFormats are fmt's functions that format into a string, a writer or
// a byte slice (not Errorf: an error message may name SQL).
var fmtFormats = map[string]bool{
	"fmt.Sprintf": true, "fmt.Sprint": true, "fmt.Sprintln": true,
	"fmt.Fprintf": true, "fmt.Fprint": true, "fmt.Fprintln": true,
	"fmt.Appendf": true, "fmt.Append": true, "fmt.Appendln": true,
}

// The store writes no SQL with fmt (docs/architecture.md, "SQL style"):
// a statement whose shape depends on its input is put together by small
// named functions from constants and the names of mneme's own tables and
// columns (models/sqlbuild.go, search_pg.go's pgProbe), each value an
// argument behind a ?, where a format verb would take anything. So no
// call of fmt's formatting functions in models, or in a package under
// it, is given a constant string (a literal, a named constant, or a
// constant piece of an argument) that holds an SQL keyword.
func TestNoFormattedSQLInModels(t *testing.T) {
	var rels []string
	for _, p := range packages(t) {
		if under(p.rel(), "models") {
			rels = append(rels, p.rel())
		}
	}
	calls := 0
	for rel, c := range typeCheck(t, rels...) {
		c.eachDecl(func(in string, n ast.Node) {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return
			}
			fn := c.callee(call)
			if fn == nil || fn.Pkg() == nil || !fmtFormats[fn.Pkg().Path()+"."+fn.Name()] {
				return
			}
			calls++
			if in == "" {
				in = "package-level declaration"
			}
			for _, arg := range call.Args {
				ast.Inspect(arg, func(n ast.Node) bool {
					e, ok := n.(ast.Expr)
					if !ok {
						return true
					}
					v := c.info.Types[e].Value
					if v != nil && v.Kind() == constant.String && sqlKeyword.MatchString(constant.StringVal(v)) {
						t.Errorf("%s: %s's %s formats SQL (%.50q): build it from named pieces, values as ? arguments (models/sqlbuild.go)",
							c.fset.Position(e.Pos()), rel, in, constant.StringVal(v))
						return false
					}
					return true
				})
			}
		})
	}
	if calls == 0 {
		t.Error("found no call of fmt's formatting functions under models: the rule reads nothing")
	}
}
