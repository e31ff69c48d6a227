//go:build unix

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkScript fails like a go test run while the project has no
// config.json, with this run's duration and temporary directory in its
// output, and passes once it has one.
const checkScript = `#!/bin/sh
if [ -f config.json ]; then
  echo "ok  	github.com/acme/app/load	0.2s"
  exit 0
fi
tmp=$(mktemp -d)
echo "--- FAIL: TestLoadConfig (0.0$$s)"
echo "    config_test.go:31: open $tmp/config.json: no such file or directory"
echo "FAIL"
echo "FAIL	github.com/acme/app/load	0.$$s"
exit 1
`

// TestClaudeCodeFailureSeenBefore: in session 1 the model's check fails
// (a test, through PostToolUseFailure), it writes the missing file, the
// check passes, and its answer says the root cause. The file goes away;
// in session 2 the same check fails again, with another duration and
// temporary path, and the model's next request (the one carrying the
// tool_result) carries mneme's hint: the earlier failure by #id, the
// call that fixed it, the file written and the root cause remembered.
func TestClaudeCodeFailureSeenBefore(t *testing.T) {
	m := NewMneme(t)
	m.Serve(t)
	proj := NewProject(t, "seen-app")
	if err := os.WriteFile(filepath.Join(proj, "check.sh"), []byte(checkScript), 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(proj, "config.json")
	check := map[string]any{"command": "./check.sh", "description": "run the loader tests"}

	fake := NewFakeAPI(t,
		ToolUse("Bash", check),
		ToolUse("Write", map[string]any{"file_path": config, "content": "{\"root\": \".\"}\n"}),
		ToolUse("Bash", check),
		Text("The loader tests pass now. The root cause was a missing config.json: the loader reads it from the project root."))
	res := m.Claude(t, fake, proj, "make the loader tests pass")
	s1, _ := m.WaitSettled(t, res.JSON.SessionID)
	m.WaitSummarized(t, res.JSON.SessionID)
	var failed, wrote, fixed int64
	for _, o := range s1.Observations {
		switch {
		case o.ToolName == "Bash" && !o.Success:
			failed = o.ID
		case o.ToolName == "Write" && o.Success:
			wrote = o.ID
		case o.ToolName == "Bash" && o.Success:
			fixed = o.ID
		}
	}
	if failed == 0 || wrote == 0 || fixed == 0 {
		t.Fatalf("session 1 stored %+v; want a failed check, a Write and a passing check", s1.Observations)
	}
	cause, haveCause := memoryWith(m.waitMemories(t, "seen-app", func(ms []apiMemory) bool {
		_, ok := memoryWith(ms, "missing config.json")
		return ok
	}), "missing config.json")
	if !haveCause || cause.Kind != "cause" {
		t.Logf("no cause memory was kept of session 1's answer (%+v): the hint is checked without it", cause)
	}

	if err := os.Remove(config); err != nil {
		t.Fatal(err)
	}
	fake2 := NewFakeAPI(t, ToolUse("Bash", check), Text("It fails as before."))
	res2 := m.Claude(t, fake2, proj, "run the loader tests again")
	m.WaitSettled(t, res2.JSON.SessionID)
	reqs := fake2.ToolRequests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (the check, then after its result)", len(reqs))
	}
	if strings.Contains(RequestText(reqs[0].Body), "seen before") {
		t.Errorf("the hint reached the model before the failure")
	}
	after := RequestText(reqs[1].Body)
	if !strings.Contains(string(reqs[1].Body), "tool_result") {
		t.Fatalf("the second request carries no tool_result")
	}
	const open = "<mneme-context>\nmneme: this failure was seen before"
	hint := hookContext(after, open)
	if hint != "" {
		hint = open + hint
		i := strings.Index(after, open)
		t.Logf("after the failing check, the model got:\n%s", after[max(0, i-60):i+len(hint)])
	}
	wants := []string{
		fmt.Sprintf("#%d `./check.sh`", failed),
		fmt.Sprintf("fixed then by #%d", fixed),
		fmt.Sprintf("config.json (#%d)", wrote),
	}
	if haveCause && cause.Kind == "cause" {
		wants = append(wants, fmt.Sprintf("root cause m%d", cause.ID))
	}
	if hint == "" {
		t.Fatalf("the request after the failing check carries no seen-before hint:\n%s", after)
	}
	for _, want := range wants {
		if !strings.Contains(hint, want) {
			t.Errorf("the hint lacks %q", want)
		}
	}
}
