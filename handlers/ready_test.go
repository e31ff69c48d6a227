package handlers

import (
	"strings"
	"testing"
)

// A Handler missing a dependency says which when it is built, instead of
// a handler finding out at its first request.
func TestReadyNamesWhatIsMissing(t *testing.T) {
	err := (&Handler{}).Ready()
	if err == nil {
		t.Fatal("an empty Handler is ready")
	}
	for _, name := range []string{"Store", "Capture", "Broker", "Log", "Status", "Quarantined", "Settings", "Auth", "Import", "Embed"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("Ready() = %q, does not name %s", err, name)
		}
	}
}
