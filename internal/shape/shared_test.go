package shape

import (
	"encoding/json"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
)

// hookwire.ContinueJSON (for the hook process) and Continue (here, for the
// worker) must be the same answer.
func TestContinueJSONIsContinue(t *testing.T) {
	b, err := json.Marshal(Continue())
	if err != nil || string(b) != hookwire.ContinueJSON {
		t.Fatalf("Continue() marshals to %s (%v), hookwire.ContinueJSON is %s", b, err, hookwire.ContinueJSON)
	}
}
