package transcript

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// FuzzParse: no transcript, however broken, makes the parser panic, emit
// an event without a session id or name, or a tool event without a tool.
func FuzzParse(f *testing.F) {
	data, err := os.ReadFile(fixture(f, "session-basic.transcript.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	for _, l := range bytes.Split(data, []byte("\n")) {
		f.Add(l)
	}
	f.Add(data)
	f.Add([]byte(`{"type":"user","sessionId":"s","timestamp":"2026-01-01T00:00:00Z","message":{"content":[{"type":"tool_result","tool_use_id":"x","is_error":true}]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		opts := &Options{}
		fp := &fileParser{path: "f.jsonl", opts: opts, problem: func(Problem) {}, sessions: map[string]*session{}}
		fp.emit = func(ev *Event) error {
			if ev.Name == "" || ev.Payload.SessionID == "" || ev.Payload.MnemeTime == nil {
				t.Fatalf("bad event %+v", ev)
			}
			if (ev.Name == "PostToolUse" || ev.Name == "PostToolUseFailure") && (ev.Payload.ToolName == "" || ev.Payload.ToolUseID == "") {
				t.Fatalf("tool event without a tool: %+v", ev.Payload)
			}
			return nil
		}
		if err := fp.parse(bytes.NewReader(in), time.Now().Add(-time.Hour), func(int) {}); err != nil {
			t.Fatal(err)
		}
	})
}
