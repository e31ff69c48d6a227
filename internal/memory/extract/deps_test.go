package extract

import (
	"go/build"
	"strings"
	"testing"
)

// The extractor is pure: standard library only, no store, no models, so
// capture, import and the summarizers can all call it. (The standard
// library imports nothing else, so checking the direct imports is enough.)
func TestDependenciesStayStandard(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(pkg.Imports) < 3 {
		t.Fatalf("imports %q: the package was not read", pkg.Imports)
	}
	for _, imp := range pkg.Imports {
		if strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
			t.Errorf("extract imports %s; it must stay standard library only", imp)
		}
	}
}
