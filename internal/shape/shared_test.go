package shape

import (
	"encoding/json"
	"testing"

	"github.com/mneme-dev/mneme/internal/hookwire"
	"github.com/mneme-dev/mneme/models"
)

// hookwire.ContinueJSON (for the hook process) and Continue (here, for the
// worker) must be the same answer.
func TestContinueJSONIsContinue(t *testing.T) {
	b, err := json.Marshal(Continue())
	if err != nil || string(b) != hookwire.ContinueJSON {
		t.Fatalf("Continue() marshals to %s (%v), hookwire.ContinueJSON is %s", b, err, hookwire.ContinueJSON)
	}
}

// clean is p as the worker's door hands it on, by the default settings.
func clean(p *Payload) *Event { return NewPolicy(models.DefaultSettings()).CleanEvent(p, "", nil) }

// observe is the observation pol shapes from p.
func observe(pol *Policy, p *Payload) *models.Observation {
	return pol.CleanEvent(p, "", nil).Observation()
}
