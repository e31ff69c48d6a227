package transcript

import (
	"bytes"
	"os"
	"testing"
	"time"
)

// FuzzParse: no transcript, however broken, makes the parser panic, emit
// an event without a session id or name, a tool event without a tool, or
// a prompt that is empty or would not pass for one again unchanged
// (promptText).
func FuzzParse(f *testing.F) {
	for _, path := range []string{fixture(f, "session-basic.transcript.jsonl"), constructed("system-lines.transcript.jsonl")} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(data, []byte("\n")) {
			f.Add(l)
		}
		f.Add(data)
	}
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
			if ev.Name == "UserPromptSubmit" {
				if again, ok := promptText(ev.Payload.Prompt); !ok || again != ev.Payload.Prompt {
					t.Fatalf("prompt %q is not one again: %q, %v", ev.Payload.Prompt, again, ok)
				}
			}
			return nil
		}
		if err := fp.parse(bytes.NewReader(in), time.Now().Add(-time.Hour), func(int) {}); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzPromptText: a prompt promptText keeps is not empty and passes for
// one again unchanged; it never holds a whole system block.
func FuzzPromptText(f *testing.F) {
	for _, s := range []string{
		"use pnpm <system-reminder>x</system-reminder> for scripts",
		"<system-reminder>a</system-reminder>\n<task-notification>x</task-notification>",
		"a <bash-input> b <bash-input>x</bash-input> c",
		"first\n<bash-stdout>x</bash-stdout>\nsecond",
		"<bash-<bash-input>x</bash-input>input>y</bash-input>",
		"UserPromptSubmit hook success: ok",
		"[Request interrupted by user]",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, ok := promptText(in)
		if !ok {
			if p != "" {
				t.Fatalf("not a prompt, yet %q", p)
			}
			return
		}
		if p == "" {
			t.Fatal("an empty prompt")
		}
		if again, ok := promptText(p); !ok || again != p {
			t.Fatalf("%q: prompt %q is not one again: %q, %v", in, p, again, ok)
		}
		if stripped := stripSystemBlocks(p); stripped != p {
			t.Fatalf("%q: prompt %q holds a system block (%q without)", in, p, stripped)
		}
	})
}
