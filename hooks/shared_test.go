package hooks

import (
	"encoding/json"
	"testing"
)

// ContinueJSON (in edge, for the hook process) and Continue (here, for the
// worker) must be the same answer.
func TestContinueJSONIsContinue(t *testing.T) {
	b, err := json.Marshal(Continue())
	if err != nil || string(b) != ContinueJSON {
		t.Fatalf("Continue() marshals to %s (%v), ContinueJSON is %s", b, err, ContinueJSON)
	}
}
