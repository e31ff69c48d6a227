package extract

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The extractor is pure: standard library only, no store, no models, so
// capture, import and the summarizers can all call it.
func TestDependenciesStayStandard(t *testing.T) {
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, "list", "-deps", ".")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, stderr.String())
	}
	deps := strings.Fields(string(out))
	if len(deps) < 5 {
		t.Fatalf("go list -deps listed only %q", deps)
	}
	self := "github.com/mneme-dev/mneme/internal/memory/extract"
	for _, d := range deps {
		if d != self && strings.Contains(strings.SplitN(d, "/", 2)[0], ".") {
			t.Errorf("extract depends on %s; it must stay standard library only", d)
		}
	}
}
