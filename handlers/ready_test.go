package handlers

import (
	"strings"
	"testing"
	"time"
)

// A Handler missing a dependency says which when it is built, instead of
// a handler finding out at its first request.
func TestReadyNamesWhatIsMissing(t *testing.T) {
	t.Parallel()
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

func TestCountsFresh(t *testing.T) {
	t.Parallel()
	at := time.Unix(1000, 0)
	for _, tc := range []struct {
		name  string
		took  time.Duration
		after time.Duration
		want  bool
	}{
		{"small store, within two seconds", time.Millisecond, 2 * time.Second, true},
		{"small store, after two seconds", time.Millisecond, 2100 * time.Millisecond, false},
		{"a million rows, 110 ms to count, 10 s later", 110 * time.Millisecond, 10 * time.Second, true},
		{"a million rows, 12 s later", 110 * time.Millisecond, 12 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := countsFresh(at, tc.took, at.Add(tc.after)); got != tc.want {
				t.Errorf("countsFresh(took %v, %v later) = %v, want %v", tc.took, tc.after, got, tc.want)
			}
		})
	}
}
