package hookwire

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestSpoolReplayOrderAfterClockWentBack: a replay file named while the
// clock was ahead must still be replayed before events spooled after the
// clock was set back.
func TestSpoolReplayOrderAfterClockWentBack(t *testing.T) {
	s := Spool{Dir: t.TempDir()}
	future := time.Now().Add(24 * time.Hour)
	old, _ := json.Marshal(SpoolLine{V: SpoolVersion, Event: "post-tool-use", SpooledAt: future, Body: json.RawMessage(`{"session_id":"s","tool_use_id":"first"}`)})
	name := filepath.Join(s.Dir, "replay-"+padded(future.UnixNano())+".jsonl")
	if err := os.WriteFile(name, append(old, '\n'), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.Append("post-tool-use", []byte(`{"session_id":"s","tool_use_id":"second"}`)); err != nil {
		t.Fatal(err)
	}
	var got []string
	var rejected []string
	s.OnReject = func(reason string) { rejected = append(rejected, reason) }
	res, err := s.Replay(func(event string, body []byte) error {
		var p struct {
			ToolUseID string `json:"tool_use_id"`
		}
		if err := json.Unmarshal(body, &p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p.ToolUseID)
		return nil
	})
	if err != nil || res.Sent != 2 || len(rejected) != 0 {
		t.Fatalf("replay: %+v %v rejected %v", res, err, rejected)
	}
	if got[0] != "first" || got[1] != "second" {
		t.Fatalf("replayed %v, want [first second]", got)
	}
}

func padded(n int64) string {
	b := []byte("00000000000000000000")
	for i := len(b) - 1; n > 0; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b)
}
