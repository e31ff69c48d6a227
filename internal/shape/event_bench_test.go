package shape

import (
	"encoding/json"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/models"
)

// benchPayload is a PostToolUse of a Bash test run, as Claude Code sends
// one: a command, a few kB of output.
func benchPayload() *Payload {
	out := make([]byte, 0, 4096)
	for len(out) < 4000 {
		out = append(out, "=== RUN   TestSomething\n--- PASS: TestSomething (0.01s)\n"...)
	}
	resp, _ := json.Marshal(map[string]any{"stdout": string(out) + "ok  \tgithub.com/x/y\t0.3s\n", "stderr": "", "interrupted": false})
	return &Payload{SessionID: "5f0c8a3e-4f6b-4a0e-9d8e-2b1c0d9e8f7a", TranscriptPath: "/home/dev/.claude/projects/app/5f0c.jsonl",
		Cwd: "/home/dev/app", HookEventName: hookwire.PostToolUse, PermissionMode: "default", PromptID: "p-1",
		ToolName: "Bash", ToolInput: json.RawMessage(`{"command":"go test ./...","description":"Run the tests"}`),
		ToolResponse: resp, ToolUseID: "toolu_01ABCDEF", DurationMS: 812}
}

// BenchmarkDoorPostToolUse is what the worker does with a PostToolUse
// before its write: clean it at the door, shape its observation.
func BenchmarkDoorPostToolUse(b *testing.B) {
	pol, p := NewPolicy(models.DefaultSettings()), benchPayload()
	b.ReportAllocs()
	for b.Loop() {
		if pol.CleanEvent(p, "", nil).Observation() == nil {
			b.Fatal("no observation")
		}
	}
}
