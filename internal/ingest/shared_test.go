package ingest

import (
	"encoding/json"
	"testing"

	"github.com/mneme-dev/mneme/hooks"
)

// hooks.ContinueJSON (for the hook process) and Continue (here, for the
// worker) must be the same answer.
func TestContinueJSONIsContinue(t *testing.T) {
	b, err := json.Marshal(Continue())
	if err != nil || string(b) != hooks.ContinueJSON {
		t.Fatalf("Continue() marshals to %s (%v), hooks.ContinueJSON is %s", b, err, hooks.ContinueJSON)
	}
}
