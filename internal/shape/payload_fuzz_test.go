package shape

import (
	"encoding/json"
	"github.com/mneme-dev/mneme/internal/testutil/fixtures"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"

	"github.com/mneme-dev/mneme/models"
)

// FuzzDecode feeds arbitrary bytes to Decode for every event: it must never
// panic, and whatever it accepts must satisfy the event's requirements.
func FuzzDecode(f *testing.F) {
	for _, line := range fixtures.Lines(f) {
		for _, slug := range hookwire.Slugs() {
			f.Add(slug, line)
		}
	}
	f.Add("post-tool-use", []byte(`{"session_id":"s","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":"\u0000\ud800"}`))
	f.Add("stop", []byte(`{"session_id":"s","mneme_time":"0001-01-01T00:00:00Z"}`))
	f.Add("session-start", []byte(`[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`))
	f.Fuzz(func(t *testing.T, slug string, body []byte) {
		event, ok := hookwire.EventName(slug)
		if !ok {
			event = hookwire.PostToolUse
		}
		p, err := Decode(event, body)
		if err != nil {
			if _, isDecode := err.(*DecodeError); !isDecode {
				t.Fatalf("Decode returned %T %v, want *DecodeError", err, err)
			}
			return
		}
		if p.SessionID == "" || len(p.SessionID) > 256 {
			t.Fatalf("accepted session_id %q", p.SessionID)
		}
		if (event == hookwire.PostToolUse || event == hookwire.PostToolUseFailure) && p.ToolName == "" {
			t.Fatal("accepted a tool event without tool_name")
		}
		if _, err := json.Marshal(p); err != nil {
			t.Fatalf("an accepted payload does not marshal back: %v", err)
		}
		// What the worker does next with it must not panic either.
		NewPolicy(models.DefaultSettings()).CleanEvent(p, "", nil).Observation()
	})
}
